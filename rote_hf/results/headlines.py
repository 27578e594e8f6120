"""A suite's headline metric (:class:`MetricSpec`) and the headline of each shipped suite.

They sit with the row schema because every row copies its suite's headline
(``score_name``/``score``/``lower_is_better``), and the papers' published rows
(:mod:`rote_hf.results.published`) are written with the same specs as our own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

AGGREGATIONS = ("mean", "median", "rate")


@dataclass(frozen=True)
class MetricSpec:
    """A suite's headline metric: ``name`` (a key of ``ResultRow.metrics``), ``lower_is_better``
    and ``aggregation`` over runs (one of :data:`AGGREGATIONS`)."""

    name: str
    lower_is_better: bool
    aggregation: str = "mean"
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.lower_is_better, bool):
            raise TypeError(f"lower_is_better must be a bool, got {type(self.lower_is_better).__name__}")
        if self.aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation must be one of {AGGREGATIONS}, got {self.aggregation!r}")

    def row_fields(self, metrics: Mapping[str, Any], *, name: str | None = None) -> dict[str, Any]:
        """``score_name``/``score``/``lower_is_better`` of a row whose metrics are ``metrics``
        (``name`` overrides the metric's key, e.g. a published aggregate ``DL_mean``)."""
        key = name or self.name
        return {"score_name": key, "score": metrics.get(key), "lower_is_better": self.lower_is_better}


ROTE_HEADLINE = MetricSpec("DL", lower_is_better=True, aggregation="mean",
                           description="normalised Damerau-Levenshtein distance of the greedy rollout")
#: Used when a ROTE fit computed no rollout distance (``rollout_metrics: {}``): 1 = exact rollout.
ROTE_FALLBACK = MetricSpec("exact", lower_is_better=False, aggregation="rate", description="exact-rollout rate")
COGSCALE_HEADLINE = MetricSpec("test_score", lower_is_better=True, aggregation="mean",
                               description="CogScale test score (0 = perfect), mean over seeds at the chosen LR")
OEIS_LLM_HEADLINE = MetricSpec("accuracy", lower_is_better=False, aggregation="rate",
                               description="share of sequences whose next k terms are all right")
