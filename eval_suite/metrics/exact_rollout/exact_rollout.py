"""
rote/exact_rollout: ROTE's closed-loop rollout scores over many forecasts.

A thin evaluate wrapper over rote_hf.metrics.exact_rollout; see README.md (the metric card).
"""

import evaluate
from rote_hf.hub.metric_modules import rote_pair_info
from rote_hf.metrics import exact_rollout

_DESCRIPTION = """
Scores closed-loop rollouts (ROTE paper §3.3, Table 2, Figure 2): the exact-rollout rate
(forecast == target), the mean normalised Damerau-Levenshtein and Jaro-Winkler distances, the
mean first-error step (an exact row counts as horizon + 1) and the cumulative error of Figure 2
(mismatches over positions 1..h divided by h, averaged over rows) at the full horizon.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str, or list of lists of int token ids): rollout forecasts.
    references (list of str, or list of lists of int token ids): withheld targets, same count.
    return_per_row (bool, default False): add per-row lists exact, dl_distances,
        jw_distances, first_error_steps.
    return_curve (bool, default False): add cumulative_error_curve (one value per horizon).
Returns:
    exact_match, dl_distance, jw_distance, mean_first_error_step,
    mean_first_error_step_given_error, cumulative_error (floats).
Examples:
    >>> rollout = evaluate.load("rote/exact_rollout")
    >>> rollout.compute(predictions=["ABCD", "ABDC"], references=["ABCD", "ABCD"])["exact_match"]
    0.5
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ExactRollout(evaluate.Metric):
    """Exact-rollout rate, DL, JW, first-error step and cumulative error."""

    def _info(self):
        return rote_pair_info(_DESCRIPTION, _KWARGS_DESCRIPTION)

    def _compute(self, predictions, references, return_per_row=False, return_curve=False):
        return exact_rollout(predictions, references, return_per_row=return_per_row, return_curve=return_curve)
