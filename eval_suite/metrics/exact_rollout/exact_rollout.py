"""
rote/exact_rollout: ROTE's closed-loop rollout scores over many forecasts.

A thin evaluate wrapper over (a generated copy of) rote_hf.metrics.exact_rollout; see README.md (the metric card).
"""

import evaluate
# evaluate copies only the sibling files that this script imports itself, so every
# generated sibling it needs is imported here (metric_*.py: generated from rote_hf.metrics;
# no comment may follow a relative import: evaluate would read it as a download URL).
from .metric_checks import as_rows
from .metric_checks import check_not_empty
from .metric_distances import dl_distances
from .metric_keys import renamed_keys
from .metric_rollout import exact_rollout
from .rote_pair import rote_pair_info

DISTANCE_KEYS = ("dl_distance", "jw_distance", "dl_distances", "jw_distances")

_DESCRIPTION = """
Scores closed-loop rollouts (ROTE paper §3.3, Table 2, Figure 2): the exact-rollout rate
(forecast == target), the mean first-error step (an exact row counts as horizon + 1) and the cumulative error of Figure 2
(mismatches over positions 1..h divided by h, averaged over rows) at the full horizon.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str, or list of lists of int token ids): rollout forecasts.
    references (list of str, or list of lists of int token ids): withheld targets, same count.
    return_per_row (bool, default False): add per-row lists exact, first_error_steps.
    return_curve (bool, default False): add cumulative_error_curve (one value per horizon).
    legacy_keys (bool, default False): also return the deprecated key exact_match (until 0.3).
Returns:
    exact_rollout_rate, mean_first_error_step,
    mean_first_error_step_given_error, cumulative_error (floats).
Examples:
    >>> rollout = evaluate.load("rote/exact_rollout")
    >>> rollout.compute(predictions=["ABCD", "ABDC"], references=["ABCD", "ABCD"])["exact_rollout_rate"]
    0.5
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ExactRollout(evaluate.Metric):
    """Exact-rollout rate, first-error step and cumulative error (DL and JW: their own modules)."""

    def _info(self):
        return rote_pair_info(_DESCRIPTION, _KWARGS_DESCRIPTION)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of (forecast, target) pairs; an empty batch is refused with a ValueError."""
        # evaluate reads the first row to pick the string or the token-id features, so an empty
        # input would fail there with an IndexError: refused first, with the library's message
        # (evaluate appends the inputs description to this docstring, so it must have one)
        check_not_empty({"predictions": predictions, "references": references})
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, references, return_per_row=False, return_curve=False, legacy_keys=False):
        out = exact_rollout(predictions, references, return_per_row=return_per_row, return_curve=return_curve)
        # DL and JW are the modules rote/dl_distance and rote/jw_distance: leaving them out keeps
        # evaluate.combine([...dl_distance, jw_distance, exact_rollout]) free of clashing keys;
        # exact_match is exact_rollout_rate, so evaluate's own exact_match combines with it too.
        out = {k: v for k, v in out.items() if k not in DISTANCE_KEYS}
        return renamed_keys("exact_rollout", out, legacy_keys)
