"""The OEIS-LLM suite (MDL paper §9) as one unit: LLMs continue MDL-stratified sequences.

Its runs are not trained: ``rote-hf llm-query`` / ``eval_suite/llm_query.py`` ask a responder
(:mod:`rote_hf.llm`) and store one row per (model, stratum), with suite ``mdl`` and protocol
``llm-query``. The unit owns what every surface shows: the headline metric (accuracy of the
next ``k`` terms, higher is better, a rate over the sequences of a stratum), the summary and
board tables, and the dataset builder (the frozen ``llm-eval`` sample of ``rote/oeis-mdl``).
The prompt defaults (20 terms shown, 3 asked) live in :mod:`rote_hf.mdl.strata`.
"""

from __future__ import annotations

from typing import Any

from rote_hf.boards.tables import llm_board
from rote_hf.results.headlines import OEIS_LLM_HEADLINE
from rote_hf.suites.base import Suite

PROTOCOL = "llm-query"


class OeisLlmSuite(Suite):
    """OEIS-LLM: exact next-term accuracy, abstention and confabulation per MDL stratum."""

    name = "mdl"
    headline = OEIS_LLM_HEADLINE
    summary_columns = ("source", "model", "stratum", "scored", "failed", "accuracy", "abstention", "confabulation",
                       "recognition", "mean confidence")
    dataset_builder = "rote_hf.datasets.oeis_mdl:build"
    dataset_card = "rote_hf.datasets:oeis_mdl.md"
    description = "run it with `rote-hf llm-query` (eval_suite/llm_query.py)"

    def rows(self, frame):
        return frame[(frame["suite"] == self.name) & (frame["protocol"] == PROTOCOL)]

    def summary(self, frame):
        return self.board(frame)

    def board(self, frame, **filters: Any):
        return llm_board(frame, **filters)


OEIS_LLM = OeisLlmSuite()
