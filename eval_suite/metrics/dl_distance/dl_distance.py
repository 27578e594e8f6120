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
from .metric_checks import check_not_empty
from .metric_distances import dl_distances
from .rote_pair import rote_pair_info

#: Default of compute(max_length=...): the longest forecast or target, in symbols.
MAX_LENGTH = 100_000

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
    max_length (int or None, default 100000): longest forecast or target accepted, in symbols;
        a longer one is refused with a ValueError naming max_length (the time grows with the
        square of the length). None: no limit.
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

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of (forecast, target) pairs; an empty batch is refused with a ValueError."""
        # evaluate reads the first row to pick the string or the token-id features, so an empty
        # input would fail there with an IndexError: refused first, with the library's message
        # (evaluate appends the inputs description to this docstring, so it must have one)
        check_not_empty({"predictions": predictions, "references": references})
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, references, return_per_row=False, max_length=MAX_LENGTH):
        values = dl_distances(predictions, references, max_length=max_length)
        out = {"dl_distance": float(numpy.mean(values))}
        if return_per_row:
            out["dl_distances"] = values.tolist()
        return out
