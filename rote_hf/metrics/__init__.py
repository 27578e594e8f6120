"""Pure metric functions for ROTE, CogScale and the MDL LLM evaluation.

The ``evaluate`` modules in ``eval_suite/metrics/<name>/`` are thin wrappers over these.
This package depends on nothing else in ``rote_hf`` (only NumPy and rapidfuzz).
"""

from rote_hf.metrics.cogscale_score import CATEGORIES, cogscale_score
from rote_hf.metrics.confabulation import confabulation, wilson_interval
from rote_hf.metrics.distances import (
    dl_distance,
    dl_distances,
    jaro_similarity,
    jw_distance,
    jw_distances,
)
from rote_hf.metrics.rollout import cumulative_error_curve, exact_rollout, first_error_step

__all__ = [
    "CATEGORIES",
    "cogscale_score",
    "confabulation",
    "cumulative_error_curve",
    "dl_distance",
    "dl_distances",
    "exact_rollout",
    "first_error_step",
    "jaro_similarity",
    "jw_distance",
    "jw_distances",
    "wilson_interval",
]
