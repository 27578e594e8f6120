"""
rote/jw_distance: ROTE's Jaro-Winkler distance, prefix bonus at every Jaro value.

A thin evaluate wrapper over (a generated copy of) rote_hf.metrics.jw_distances; see README.md (the metric card).
"""

import evaluate
import numpy
# evaluate copies only the sibling files that this script imports itself, so every
# generated sibling it needs is imported here (metric_*.py: generated from rote_hf.metrics;
# no comment may follow a relative import: evaluate would read it as a download URL).
from .metric_checks import as_rows
from .metric_checks import check_not_empty
from .metric_distances import jw_distances
from .rote_pair import rote_pair_info

#: Default of compute(max_length=...): the longest forecast or target, in symbols.
MAX_LENGTH = 100_000

_DESCRIPTION = """
Mean Jaro-Winkler distance 1 - S_JW between forecast and target strings, exactly as the ROTE
paper (appendix A.2, eqs. 13-15) and its reference code: match radius max(len)//2 - 1,
floor(t/2) transpositions, common prefix capped at 4, p = 0.1, and the prefix bonus applied at
every Jaro value (no 0.7 threshold, unlike rapidfuzz and jellyfish). Lower is better.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str, or list of lists of int token ids): forecast strings.
    references (list of str, or list of lists of int token ids): target strings, same count.
    p (float, default 0.1): Winkler prefix scale, in [0, 0.25].
    return_per_row (bool, default False): also return the per-pair distances.
    max_length (int or None, default 100000): longest forecast or target accepted, in symbols;
        a longer one is refused with a ValueError naming max_length. None: no limit.
Returns:
    jw_distance (float): mean over pairs, in [0, 1].
    jw_distances (list of float): per-pair values, only with return_per_row=True.
Examples:
    >>> jw = evaluate.load("rote/jw_distance")
    >>> jw.compute(predictions=["marhta"], references=["martha"])
    {'jw_distance': 0.03888888888888886}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class JWDistance(evaluate.Metric):
    """Mean ROTE Jaro-Winkler distance."""

    def _info(self):
        return rote_pair_info(_DESCRIPTION, _KWARGS_DESCRIPTION)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of (forecast, target) pairs; an empty batch is refused with a ValueError."""
        # evaluate reads the first row to pick the string or the token-id features, so an empty
        # input would fail there with an IndexError: refused first, with the library's message
        # (evaluate appends the inputs description to this docstring, so it must have one)
        check_not_empty({"predictions": predictions, "references": references})
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, references, p=0.1, return_per_row=False, max_length=MAX_LENGTH):
        values = jw_distances(predictions, references, p=p, max_length=max_length)
        out = {"jw_distance": float(numpy.mean(values))}
        if return_per_row:
            out["jw_distances"] = values.tolist()
        return out
