"""The LLM-query tab's one connection to the evaluation of ``rote_hf.llm`` (issue 8).

Everything the tab needs from that package goes through :func:`run_llm_query`, so that adapting
to the runner's final signature is a change here only. The token is passed to the runner and
nowhere else: it is not stored, not logged, not echoed, and scrubbed from error messages.

Queries run through one :class:`rote_hf.llm.VisitorQueries` per results folder (issue 26): public
addresses only (plus ``$ROTE_LLM_ALLOWED_HOSTS``), a reply cache scoped to the visitor's token, a
deadline over each query, a fair queue per user, quotas on the cache and the logs.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

PER_STRATUM_MIN = 1
PER_STRATUM_MAX = 20
"""Sequences per MDL stratum a visitor may request (the published sample has 20 per stratum)."""

RECORD_COLUMNS = ["stratum", "a_number", "prompt", "reply", "next_three", "formula", "confidence", "recognized",
                  "status", "exact"]
METRIC_COLUMNS = ["stratum", "n_rows", "n_scored", "n_failed", "accuracy", "abstention_rate", "confabulation_rate",
                  "recognition_rate", "mean_confidence"]
"""The first columns of the metrics table (the others of rote_hf.metrics.confabulation follow)."""
ORIGIN = "llm-query tab"


def check_query(base_url: str, model: str, per_stratum: Any) -> int:
    """Validate the form; returns the per-stratum count as an int (``ValueError`` names the field)."""
    parsed = urlparse(str(base_url or "").strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"base URL must be an http(s) URL such as https://router.huggingface.co/v1, got {base_url!r}")
    if not str(model or "").strip():
        raise ValueError("model name must be a non-empty string")
    from rote_hf.leaderboard.validate import MODEL_FORM, MODEL_MAX, short

    if len(str(model).strip()) > MODEL_MAX or not MODEL_FORM.fullmatch(str(model).strip()):
        raise ValueError(f"model name must be 1-{MODEL_MAX} characters of A-Z a-z 0-9 _ . : / + @ - (no spaces), "
                         f"got {short(str(model))}")
    try:
        count = int(per_stratum)
    except (TypeError, ValueError):
        raise ValueError(f"sequences per stratum must be an integer in {PER_STRATUM_MIN}..{PER_STRATUM_MAX}") from None
    if not PER_STRATUM_MIN <= count <= PER_STRATUM_MAX or count != float(per_stratum):
        raise ValueError(f"sequences per stratum must be an integer in {PER_STRATUM_MIN}..{PER_STRATUM_MAX}, got {per_stratum!r}")
    return count


SAMPLE_ENV = "ROTE_LLM_SAMPLE"
DEFAULT_SAMPLE = "rote/oeis-mdl"
"""The sequences asked about: the ``llm-eval`` config of this dataset (the local mirror folder
``rote/oeis-mdl`` resolves before the Hub), or a ``.json``/``.jsonl`` file of rows named by
``$ROTE_LLM_SAMPLE``."""


def _record(rec: Any, flags: dict | None) -> dict:
    p = rec.parsed
    return {
        "stratum": rec.item.stratum, "a_number": rec.item.anum, "prompt": rec.messages[-1]["content"],
        "reply": rec.reply or "", "next_three": ", ".join(map(str, p.next_terms)), "formula": p.formula,
        "confidence": p.confidence, "recognized": p.recognized, "status": p.status,
        "exact": None if flags is None else bool(flags["exact"]),
    }


_QUERIES: dict[str, Any] = {}
_QUERIES_LOCK = threading.Lock()


def visitor_queries(results: str) -> Any:
    """The one :class:`rote_hf.llm.VisitorQueries` of ``results`` in this process (its queue and
    cache are shared by every visitor; limits from the environment, read on first use)."""
    key = str(Path(results).resolve())
    with _QUERIES_LOCK:
        if key not in _QUERIES:
            from rote_hf.llm import VisitorQueries

            _QUERIES[key] = VisitorQueries(Path(results))
        return _QUERIES[key]


def run_llm_query(base_url: str, model: str, token: str, per_stratum: Any, results: str, user: str = "anonymous"):
    """Run the LLM-query evaluation on the visitor's endpoint; returns (message, records, metrics).
    ``user`` names the visitor in the fair queue (the signed-in user name, else the session).

    ``records``: one line per queried sequence (prompt, raw reply, parsed fields, exact);
    ``metrics``: one line per stratum (:func:`rote_hf.llm.summarize`). Raw replies are cached and
    result rows appended under ``results``: rows created here are a visitor's, so they are stored
    as ``source="submitted"``, unverified, with run ids prefixed ``submitted-``
    (:func:`rote_hf.leaderboard.submission.as_submitted`); a stratum in which no reply was scored
    stores no row (nothing to rank).
    """
    import os

    import pandas as pd

    empty = pd.DataFrame(columns=RECORD_COLUMNS), pd.DataFrame(columns=METRIC_COLUMNS)
    try:
        count = check_query(base_url, model, per_stratum)
    except ValueError as exc:
        return f"Not run: {exc}", *empty
    from rote_hf.llm import AddressRefused, QueueFull, items_from_rows, load_sample_rows, per_row_flags
    from rote_hf.llm import per_stratum as first_per_stratum

    try:
        items = first_per_stratum(items_from_rows(load_sample_rows(os.environ.get(SAMPLE_ENV, DEFAULT_SAMPLE))), count)
        # rows are stored below as the visitor's (submitted), not by the runner as ours
        report = visitor_queries(results).run(user or "anonymous", base_url.strip(), model.strip(), token or None,
                                              items)
    except (AddressRefused, QueueFull) as exc:  # refused before anything ran or was stored
        return f"Not run: {exc}", *empty
    except Exception as exc:  # noqa: BLE001 -- any endpoint or sample failure becomes a message, never a trace
        text = f"{type(exc).__name__}: {exc}".splitlines()[0]
        if token:
            text = text.replace(token, "***")
        return f"Failed: {text}", *empty
    records = pd.DataFrame([_record(r, f) for r, f in zip(report.records, per_row_flags(report.records))],
                           columns=RECORD_COLUMNS)
    table = pd.DataFrame([{"stratum": s, **m} for s, m in report.summary.items()])
    table = table[[c for c in METRIC_COLUMNS if c in table] + [c for c in table if c not in METRIC_COLUMNS]]
    stored, kept, unscored = store_visitor_rows(report.rows, results)
    failed = [r.parsed for r in report.records if r.parsed.status != "ok"]
    note = f" {len(failed)} replies failed ({failed[0].status}: {failed[0].error})." if failed else ""
    if token:
        note = note.replace(token, "***")
    return (f"Queried {len(records)} sequences ({count} per stratum) from {model.strip()}: {report.n_asked} asked, "
            f"{report.n_cached} from the cache; {len(stored)} result rows appended as submitted (unverified)"
            f"{_unstored(kept, unscored)}.{note}"), records, table


def _unstored(kept: list[str], unscored: list[str]) -> str:
    parts = ([f"{len(kept)} already stored"] if kept else []) + (
        [f"none for {', '.join(unscored)}: no reply was scored"] if unscored else [])
    return f" ({'; '.join(parts)})" if parts else ""


def store_visitor_rows(rows: list, results: str) -> tuple[list[str], list[str], list[str]]:
    """Store the runner's rows as the visitor's: ``(stored ids, ids already stored, strata not
    stored because no reply was scored)``. A failed row (calls that never came back) is replaced
    by a later run; an ``ok`` row of the same id is kept."""
    from rote_hf.leaderboard.submission import as_submitted
    from rote_hf.leaderboard.validate import check_row
    from rote_hf.results import ResultStore

    store = ResultStore(results)
    done = store.finished_ids(include_failed=False)
    stored, kept, unscored = [], [], []
    for row in rows:
        if not (row.metrics.get("n_scored") or 0) > 0:
            unscored.append(row.task)
            continue
        row = as_submitted(row, ORIGIN)
        check_row(row.__dict__)
        if row.run_id in done:
            kept.append(row.run_id)
        else:
            store.append(row)
            stored.append(row.run_id)
    return stored, kept, unscored
