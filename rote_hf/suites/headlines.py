"""The headline metric of each suite, in a module of its own: the published rows
(:mod:`rote_hf.results.published`) take their direction from here without importing the suite
units, whose executors reach the trainer and torch (the leaderboard Space ships without either).
"""

from __future__ import annotations

from rote_hf.suites.base import MetricSpec

ROTE_HEADLINE = MetricSpec("DL", lower_is_better=True, aggregation="mean",
                           description="normalised Damerau-Levenshtein distance of the greedy rollout")
#: Used when a ROTE fit computed no rollout distance (``rollout_metrics: {}``): 1 = exact rollout.
ROTE_FALLBACK = MetricSpec("exact", lower_is_better=False, aggregation="rate", description="exact-rollout rate")
COGSCALE_HEADLINE = MetricSpec("test_score", lower_is_better=True, aggregation="mean",
                               description="CogScale test score (0 = perfect), mean over seeds at the chosen LR")
OEIS_LLM_HEADLINE = MetricSpec("accuracy", lower_is_better=False, aggregation="rate",
                               description="share of sequences whose next k terms are all right")
