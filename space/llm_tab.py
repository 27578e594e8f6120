"""The LLM-query tab's one connection to the evaluation of ``rote_hf.llm`` (issue 8).

Everything the tab needs from that package goes through :func:`run_llm_query`, so that adapting
to the runner's final signature is a change here only. The token is passed to the runner and
nowhere else: it is not stored, not logged, not echoed, and scrubbed from error messages.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

PER_STRATUM_MIN = 1
PER_STRATUM_MAX = 20
"""Sequences per MDL stratum a visitor may request (the published sample has 20 per stratum)."""

RECORD_COLUMNS = ["stratum", "a_number", "prompt", "reply", "next_three", "formula", "confidence", "recognized",
                  "status", "exact"]


def check_query(base_url: str, model: str, per_stratum: Any) -> int:
    """Validate the form; returns the per-stratum count as an int (``ValueError`` names the field)."""
    parsed = urlparse(str(base_url or "").strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"base URL must be an http(s) URL such as http://127.0.0.1:8000/v1, got {base_url!r}")
    if not str(model or "").strip():
        raise ValueError("model name must be a non-empty string")
    try:
        count = int(per_stratum)
    except (TypeError, ValueError):
        raise ValueError(f"sequences per stratum must be an integer in {PER_STRATUM_MIN}..{PER_STRATUM_MAX}") from None
    if not PER_STRATUM_MIN <= count <= PER_STRATUM_MAX or count != float(per_stratum):
        raise ValueError(f"sequences per stratum must be an integer in {PER_STRATUM_MIN}..{PER_STRATUM_MAX}, got {per_stratum!r}")
    return count


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def run_llm_query(base_url: str, model: str, token: str, per_stratum: Any, results: str):
    """Run the LLM-query evaluation on the visitor's endpoint; returns (message, records, metrics).

    ``records``: one line per queried sequence (prompt, raw reply, parsed fields, score);
    ``metrics``: one line per stratum. Result rows are appended to ``results`` by the runner.
    Expected runner (issue 8): ``rote_hf.llm.run_query(base_url=, model=, token=, per_stratum=,
    results=)`` returning ``records`` (list of dicts) and ``metrics`` ({stratum: {metric: value}}),
    as attributes or keys.
    """
    import pandas as pd

    empty = pd.DataFrame(columns=RECORD_COLUMNS), pd.DataFrame(columns=["stratum"])
    try:
        count = check_query(base_url, model, per_stratum)
    except ValueError as exc:
        return f"Not run: {exc}", *empty
    try:
        from rote_hf.llm import run_query  # issue 8; imported lazily so that the app starts without it
    except ImportError:
        return "Not run: the LLM-query evaluation (rote_hf.llm.run_query) is not installed in this build.", *empty
    try:
        out = run_query(base_url=base_url.strip(), model=model.strip(), token=token or None, per_stratum=count,
                        results=results)
    except Exception as exc:  # noqa: BLE001 -- any endpoint failure becomes a message, never a trace
        text = f"{type(exc).__name__}: {exc}"
        if token:
            text = text.replace(token, "***")
        return f"Failed: {text}", *empty
    records = pd.DataFrame(list(_field(out, "records") or []))
    metrics = _field(out, "metrics") or {}
    table = pd.DataFrame([{"stratum": s, **dict(m)} for s, m in dict(metrics).items()])
    return f"Queried {len(records)} sequences ({count} per stratum) from {model.strip()}; rows appended to the results.", records, table
