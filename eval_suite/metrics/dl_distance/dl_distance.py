"""
rote/dl_distance: ROTE's normalised restricted Damerau-Levenshtein distance.

A thin evaluate wrapper over (a generated copy of) rote_hf.metrics.dl_distances; see README.md (the metric card).
"""

import evaluate
import numpy
# evaluate copies only the sibling files that this script imports itself, so every
# generated sibling it needs is imported here (metric_*.py: generated from rote_hf.metrics;
# no comment may follow a relative import: evaluate would read it as a download URL).
from .metric_checks import as_rows
from .metric_distances import dl_distances
from .rote_pair import rote_pair_info

_DESCRIPTION = """
Mean normalised Damerau-Levenshtein distance between forecast and target strings, as in the
ROTE paper (appendix A.2, eqs. 11-12): the optimal-string-alignment edit distance (insertions,
deletions, substitutions and adjacent transpositions cost 1) divided by the longer length.
Identical strings score 0, exactly one empty string scores 1. Lower is better.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str, or list of lists of int token ids): forecast strings.
    references (list of str, or list of lists of int token ids): target strings, same count.
    return_per_row (bool, default False): also return the per-pair distances.
Returns:
    dl_distance (float): mean over pairs, in [0, 1].
    dl_distances (list of float): per-pair values, only with return_per_row=True.
Examples:
    >>> dl = evaluate.load("rote/dl_distance")
    >>> dl.compute(predictions=["ABBA"], references=["ABAB"])
    {'dl_distance': 0.25}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DLDistance(evaluate.Metric):
    """Mean normalised OSA (restricted Damerau-Levenshtein) distance."""

    def _info(self):
        return rote_pair_info(_DESCRIPTION, _KWARGS_DESCRIPTION)

    def _compute(self, predictions, references, return_per_row=False):
        values = dl_distances(predictions, references)
        out = {"dl_distance": float(numpy.mean(values))}
        if return_per_row:
            out["dl_distances"] = values.tolist()
        return out
