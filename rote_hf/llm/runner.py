"""The query runner: sample -> prompts -> (cached) replies -> parses -> metrics per stratum -> rows.

Input is the frozen ``llm-eval`` sample of ``rote/oeis-mdl`` (rows with ``anum``, ``stratum``,
``shown``, ``answer``) or any rows of its ``oeis`` config (``anum``, ``terms``, ``regime``,
``genuine_wilderness``), as dicts (:func:`items_from_rows`). For each item the first
``n_shown`` terms are shown and the next ``k_next`` are the truth.

:func:`run_queries` asks the responder with bounded concurrency (a thread pool), consulting the
:class:`~rote_hf.llm.cache.ReplyCache` first, so a resumed run never asks twice; ``deadline_s``
bounds the whole run (a sequence not answered by then is an ``api_error`` ``DeadlineExceeded``,
and the responder is closed, which ends its connections).
:func:`summarize` scores each stratum with :func:`rote_hf.metrics.confabulation` (failed replies
counted, never scored). :func:`evaluate_llm` does everything, writes the per-sample log
(JSON lines: prompt, raw reply, parsed fields, status, score flags) and appends one result row
per stratum (suite ``mdl``, protocol ``llm-query``, config ``llm-eval``, task = stratum).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rote_hf.files import write_atomic
from rote_hf.llm.cache import ReplyCache, prune_oldest
from rote_hf.llm.parse import ParsedResponse, api_error, parse_response
from rote_hf.llm.prompt import SYSTEM_PROMPT, PromptConfig, build_messages
from rote_hf.llm.responders import Responder, ResponderError
from rote_hf.mdl.strata import LLM_STRATA, llm_stratum
from rote_hf.results import ResultRow, ResultStore, config_hash, make_run_id
from rote_hf.results.provenance import git_commit, package_version, utc_timestamp

STRATA_ORDER = LLM_STRATA
SUITE, PROTOCOL, CONFIG = "mdl", "llm-query", "llm-eval"
ALL = "all"


@dataclass(frozen=True)
class SampleItem:
    """One sequence to ask about: shown terms and the true continuation (Python ints)."""

    anum: str
    stratum: str
    shown: tuple[int, ...]
    answer: tuple[int, ...]


@dataclass(frozen=True)
class QueryRecord:
    """One answered (or failed) query."""

    item: SampleItem
    messages: tuple[Mapping[str, str], ...]
    reply: str | None
    parsed: ParsedResponse
    cached: bool = False


def _ints(values: Iterable[Any], name: str) -> list[int]:
    out = []
    for i, v in enumerate(values):
        if isinstance(v, str) and v.strip().lstrip("+-").isdigit():
            out.append(int(v))
        elif isinstance(v, int) and not isinstance(v, bool):
            out.append(v)
        else:
            raise TypeError(f"{name}[{i}] must be an integer or a decimal string, got {v!r}")
    return out


def items_from_rows(rows: Iterable[Mapping[str, Any]], prompt: PromptConfig = PromptConfig()) -> list[SampleItem]:
    """Sample items from ``llm-eval`` rows (``shown`` + ``answer``) or ``oeis`` rows (``terms``).

    Terms may be ints or decimal strings (the dataset stores strings: terms exceed 64 bits).
    Rows with fewer than ``n_shown + k_next`` terms raise ``ValueError`` naming the A-number.
    """
    need = prompt.n_shown + prompt.k_next
    items = []
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise TypeError(f"rows[{i}] must be an object with 'anum', 'shown' and 'answer' (or 'terms'), "
                            f"got {type(row).__name__}")
        if "anum" not in row:
            raise ValueError("rows must have an 'anum' column")
        if "shown" in row and "answer" in row:
            terms = _ints(row["shown"], "shown") + _ints(row["answer"], "answer")
        elif "terms" in row:
            terms = _ints(row["terms"], "terms")
        else:
            raise ValueError("rows must have 'shown' and 'answer' (llm-eval) or 'terms' (oeis) columns")
        if len(terms) < need:
            raise ValueError(f"sequence {row['anum']} has {len(terms)} terms; n_shown + k_next = {need} are needed")
        items.append(SampleItem(str(row["anum"]), llm_stratum(row), tuple(terms[: prompt.n_shown]),
                                tuple(terms[prompt.n_shown : need])))
    return items


def per_stratum(items: Sequence[SampleItem], k: int | None) -> list[SampleItem]:
    """The first ``k`` items of each stratum, in input order (all when ``k`` is None)."""
    if k is None:
        return list(items)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"per_stratum must be a positive int or None, got {k!r}")
    seen: dict[str, int] = {}
    out = []
    for it in items:
        if seen.get(it.stratum, 0) < k:
            seen[it.stratum] = seen.get(it.stratum, 0) + 1
            out.append(it)
    return out


def load_sample_rows(source: str | os.PathLike, *, config: str = CONFIG, split: str | None = None) -> list[dict]:
    """Rows of a sample: a ``.json`` / ``.jsonl`` file (list of objects / one per line), or a
    dataset path or repo id read with ``datasets.load_dataset(source, config)`` (the local mirror
    folder ``rote/oeis-mdl`` resolves before the Hub)."""
    path = Path(source)
    if path.suffix in (".json", ".jsonl") and path.is_file():
        text = path.read_text(encoding="utf-8")
        try:
            if path.suffix == ".jsonl":
                return [json.loads(line) for line in text.splitlines() if line.strip()]
            data = json.loads(text)
        except RecursionError:
            raise ValueError(f"source {str(source)!r} nests JSON too deeply to be a list of row objects") from None
        if not isinstance(data, list):
            raise ValueError(f"source {str(source)!r} must hold a JSON list of row objects")
        return data
    if path.suffix in (".json", ".jsonl"):
        raise FileNotFoundError(f"source {str(source)!r} does not exist")
    from datasets import load_dataset

    try:
        ds = load_dataset(str(source), config)
    except (ConnectionError, OSError) as exc:  # FileNotFoundError and DatasetNotFoundError included
        hint = " (build the local mirror with `rote-hf build oeis-mdl --root .`)" if "oeis-mdl" in str(source) else ""
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FileNotFoundError(f"dataset {str(source)!r} (config {config!r}) is neither a local folder nor "
                                f"reachable on the Hub{hint}: {first}") from None
    if split is None:
        if len(ds) != 1:
            raise ValueError(f"split must be one of {sorted(ds)} for {str(source)!r}")
        split = next(iter(ds))
    return ds[split].to_list()


def cache_identity(responder: Responder, cache: ReplyCache | None = None) -> dict[str, Any]:
    """What keys ``responder``'s replies in the cache: its ``cache_identity()`` (endpoint, model,
    sampling parameters), else its ``settings()``, else its model id alone; with ``cache``, also
    ``credential``: the keyed hash of the responder's token under the cache's secret (absent
    without a token), so callers with different tokens never share replies."""
    ident = {"model": responder.model_id}
    for name in ("cache_identity", "settings"):
        fn = getattr(responder, name, None)
        if callable(fn):
            ident = {"model": responder.model_id, **dict(fn())}
            break
    scope = getattr(responder, "credential_scope", None)
    if cache is not None and callable(scope):
        credential = scope(cache.secret)
        if credential:
            ident["credential"] = credential
    return ident


class DeadlineExceeded(TimeoutError):
    """The whole query ran past its deadline; the sequences not answered by then are not asked."""


def _within(fn: Callable[[], str], until: float | None, deadline_s: float | None) -> str:
    """``fn()``, abandoned (``DeadlineExceeded``) at the monotonic time ``until``: it runs in a
    daemon thread, which the caller ends by closing the responder."""
    if until is None:
        return fn()
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["reply"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="rote-hf-llm-query", daemon=True).start()
    if not done.wait(max(0.0, until - time.monotonic())):
        raise DeadlineExceeded(f"the query's deadline of {deadline_s:g} s passed")
    if "error" in box:
        raise box["error"]
    return box["reply"]


def _ask(responder: Responder, item: SampleItem, prompt: PromptConfig, cache: ReplyCache | None,
         until: float | None = None, deadline_s: float | None = None) -> QueryRecord:
    messages = build_messages(item.shown, prompt)
    ident = cache_identity(responder, cache) if cache is not None else {}
    hit = cache.get(ident, messages) if cache is not None else None
    if hit is not None:
        return QueryRecord(item, tuple(messages), hit, parse_response(hit, prompt.k_next), cached=True)
    if until is not None and time.monotonic() >= until:
        return QueryRecord(item, tuple(messages), None,
                           api_error(f"DeadlineExceeded: the query's deadline of {deadline_s:g} s passed; not asked"))
    try:
        reply = _within(lambda: responder.respond(messages), until, deadline_s)
    except DeadlineExceeded as exc:
        return QueryRecord(item, tuple(messages), None, api_error(f"DeadlineExceeded: {exc}"))
    except ResponderError as exc:
        return QueryRecord(item, tuple(messages), None, api_error(str(exc)))
    if cache is not None:
        cache.put(ident, messages, reply)
    return QueryRecord(item, tuple(messages), reply, parse_response(reply, prompt.k_next))


def run_queries(items: Sequence[SampleItem], responder: Responder, *, prompt: PromptConfig = PromptConfig(),
                cache: ReplyCache | None = None, concurrency: int = 4, progress: bool = False,
                deadline_s: float | None = None) -> list[QueryRecord]:
    """Ask about every item (at most ``concurrency`` calls in flight); records in input order.

    ``deadline_s`` (seconds, None = none) bounds the whole run: past it, calls in flight are
    abandoned and the remaining items are not asked (both ``api_error`` ``DeadlineExceeded``), and
    the responder's ``close()`` (if it has one) ends its connections, so a server dripping a byte
    a second holds nothing past the deadline."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or not 1 <= concurrency <= 64:
        raise ValueError(f"concurrency must be an int in 1..64, got {concurrency!r}")
    if deadline_s is not None and (isinstance(deadline_s, bool) or not isinstance(deadline_s, (int, float))
                                   or not 0 < deadline_s <= 86_400):
        raise ValueError(f"deadline_s must be a number of seconds in (0, 86400] or None, got {deadline_s!r}")
    until = None if deadline_s is None else time.monotonic() + deadline_s
    try:
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            it = pool.map(lambda x: _ask(responder, x, prompt, cache, until, deadline_s), items)
            if progress:
                from tqdm.auto import tqdm

                it = tqdm(it, total=len(items), desc=f"llm-query {responder.model_id}", unit="seq")
            return list(it)
    finally:
        close = getattr(responder, "close", None)
        if until is not None and time.monotonic() >= until and callable(close):
            close()  # the abandoned calls end with their connections


def _metric_inputs(records: Sequence[QueryRecord]) -> dict[str, list]:
    return {
        "predictions": [list(r.parsed.next_terms) for r in records],
        "references": [list(r.item.answer) for r in records],
        "confidence": [r.parsed.confidence for r in records],
        "abstained": [r.parsed.abstained for r in records],
        "recognized": [r.parsed.recognized for r in records],
        "status": [r.parsed.status for r in records],
    }


def strata(records: Sequence[QueryRecord]) -> list[str]:
    """Strata present, paper order first, then the others sorted."""
    present = {r.item.stratum for r in records}
    return [s for s in STRATA_ORDER if s in present] + sorted(present - set(STRATA_ORDER))


def summarize(records: Sequence[QueryRecord], *, include_all: bool = True) -> dict[str, dict[str, float]]:
    """Metrics of :func:`rote_hf.metrics.confabulation` per stratum (and over ``all`` rows)."""
    from rote_hf.metrics import confabulation  # lazy: imports numpy, rapidfuzz

    out: dict[str, dict[str, float]] = {}
    groups = {s: [r for r in records if r.item.stratum == s] for s in strata(records)}
    if include_all and len(groups) > 1:
        groups[ALL] = list(records)
    for name, rows in groups.items():
        out[name] = {k: float(v) for k, v in confabulation(**_metric_inputs(rows)).items()}
    return out


def per_row_flags(records: Sequence[QueryRecord]) -> list[dict[str, bool] | None]:
    """exact / partial / confabulated per record (None for failed replies), from the metric."""
    from rote_hf.metrics import confabulation  # lazy: imports numpy, rapidfuzz

    if not records:
        return []
    res = confabulation(**_metric_inputs(records), return_per_row=True)
    return [None if e is None else {"exact": e, "partial": p, "confabulated": c}
            for e, p, c in zip(res["exact"], res["partial"], res["confabulated"])]


def write_log(path: str | os.PathLike, records: Sequence[QueryRecord]) -> Path:
    """Per-sample JSON lines: A-number, stratum, prompt, raw reply, parsed fields, score flags."""
    lines = [json.dumps({
        "anum": rec.item.anum, "stratum": rec.item.stratum,
        "shown": [str(t) for t in rec.item.shown], "answer": [str(t) for t in rec.item.answer],
        "messages": [dict(m) for m in rec.messages], "reply": rec.reply, "cached": rec.cached,
        **{f"parsed_{k}": v for k, v in rec.parsed.to_dict().items()}, "score": flag,
    }, ensure_ascii=True) + "\n" for rec, flag in zip(records, per_row_flags(records))]
    return write_atomic(path, "".join(lines).encode("ascii"))


def sample_fingerprint(items: Sequence[SampleItem]) -> str:
    """SHA-256 (16 hex) of the A-numbers, strata and terms, in order."""
    h = hashlib.sha256()
    for it in items:
        h.update(json.dumps([it.anum, it.stratum, [str(t) for t in it.shown], [str(t) for t in it.answer]]).encode())
    return h.hexdigest()[:16]


# Settings that define a run (the rest -- URL, timeouts, retries -- only say how it was reached).
_DEFINING = ("responder", "model", "temperature", "max_tokens", "max_new_tokens", "seed", "json_mode", "do_sample")


def result_rows(summary: Mapping[str, Mapping[str, float]], records: Sequence[QueryRecord], model_id: str,
                settings: Mapping[str, Any], prompt: PromptConfig, *, log_file: str = "",
                data_seed: int | None = None, sample_name: str = CONFIG) -> list:
    """One :class:`~rote_hf.results.ResultRow` per stratum of ``summary`` (``source="ours"``);
    ``sample_name`` (the dataset config or file) becomes the row's ``config``. A stratum with
    calls that failed (``api_error``) is stored with ``status="failed"`` (metrics included): a
    re-run asks those calls again and replaces the row."""
    rows = []
    for stratum, metrics in summary.items():
        items = [r.item for r in records if stratum == ALL or r.item.stratum == stratum]
        spec = {
            "suite": SUITE, "protocol": PROTOCOL, "model": model_id, "stratum": stratum,
            "prompt": {"n_shown": prompt.n_shown, "k_next": prompt.k_next,
                       "system": hashlib.sha256(SYSTEM_PROMPT.encode()).hexdigest()[:16]},
            "settings": {k: settings[k] for k in _DEFINING if k in settings},
            "sample": sample_fingerprint(items), "sample_name": sample_name,
        }
        failures = [f"{r.item.anum}:{r.parsed.status}" for r in records
                    if (stratum == ALL or r.item.stratum == stratum) and not r.parsed.ok]
        n_api = int(metrics.get("n_failed_api_error", 0))
        # Calls that never came back are transient: the row is stored as failed, so the same command
        # run again (which re-asks only them) replaces it. Unparseable replies are the model's own.
        incomplete = {"status": "failed", "error": f"{n_api} of {len(items)} calls failed (api_error); "
                      "run the same command again to retry them"} if n_api else {}
        rows.append(ResultRow(
            run_id=make_run_id(SUITE, model_id, stratum, spec), suite=SUITE, task=stratum, model=model_id,
            config=sample_name, protocol=PROTOCOL, data_seed=data_seed,
            task_params={"stratum": stratum, "n_items": len(items), "anums": [it.anum for it in items],
                         "n_shown": prompt.n_shown, "k_next": prompt.k_next},
            model_config={k: v for k, v in settings.items() if k in ("responder", "model")},
            settings=dict(settings), metrics=dict(metrics),
            outputs={"failures": ",".join(failures), "log_file": log_file},
            score_name="accuracy", score=metrics.get("accuracy"), lower_is_better=False,
            source="ours", package_version=package_version(), git_commit=git_commit(),
            dataset_fingerprint=sample_fingerprint(items), config_name=sample_name, config_hash=config_hash(spec),
            timestamp=utc_timestamp(), verified=False, **incomplete,
        ))
    return rows


@dataclass
class EvalReport:
    """What :func:`evaluate_llm` did."""

    records: list[QueryRecord]
    summary: dict[str, dict[str, float]]
    rows: list = field(default_factory=list)
    appended: list[str] = field(default_factory=list)
    already_stored: list[str] = field(default_factory=list)
    log_path: Path | None = None

    @property
    def n_cached(self) -> int:
        return sum(r.cached for r in self.records)

    @property
    def n_asked(self) -> int:
        return sum(not r.cached for r in self.records)


def evaluate_llm(items: Sequence[SampleItem], responder: Responder, *, results: str | os.PathLike | None = None,
                 cache_dir: str | os.PathLike | ReplyCache | None = None, log_dir: str | os.PathLike | None = None,
                 prompt: PromptConfig = PromptConfig(), concurrency: int = 4, progress: bool = False,
                 data_seed: int | None = None, sample_name: str = CONFIG, deadline_s: float | None = None,
                 log_max_bytes: int | None = None) -> EvalReport:
    """Run the whole evaluation. Defaults: cache in ``<results>/llm_cache``, logs in
    ``<results>/llm_logs``; no results folder means no cache, log or rows unless given.
    ``cache_dir`` may be an open :class:`ReplyCache` (one shared by many queries, with its quota).
    ``deadline_s`` bounds the whole run (:func:`run_queries`); ``log_max_bytes`` is the quota of
    the log folder (the oldest logs are deleted after writing, never the one just written)."""
    if not items:
        raise ValueError("items must hold at least one sequence")
    root = Path(results) if results is not None else None
    cache_dir = cache_dir if cache_dir is not None else (root / "llm_cache" if root else None)
    log_dir = log_dir if log_dir is not None else (root / "llm_logs" if root else None)
    cache = cache_dir if isinstance(cache_dir, ReplyCache) else ReplyCache(cache_dir) if cache_dir is not None else None
    records = run_queries(items, responder, prompt=prompt, cache=cache, concurrency=concurrency, progress=progress,
                          deadline_s=deadline_s)
    summary = summarize(records)
    settings = dict(getattr(responder, "settings", lambda: {"model": responder.model_id})())
    report = EvalReport(records=records, summary=summary)
    if log_dir is not None:
        stem = hashlib.sha256(json.dumps([responder.model_id, sample_fingerprint(items), prompt.n_shown,
                                          prompt.k_next]).encode()).hexdigest()[:16]
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in responder.model_id)
        report.log_path = write_log(Path(log_dir) / f"{safe}-{stem}.samples.jsonl", records)
        if log_max_bytes is not None:
            prune_oldest(log_dir, log_max_bytes, keep=report.log_path, pattern="*.samples.jsonl")
    rows = result_rows(summary, records, responder.model_id, settings, prompt,
                       log_file=str(report.log_path) if report.log_path else "", data_seed=data_seed,
                       sample_name=sample_name)
    report.rows = rows
    if root is not None:
        store = ResultStore(root)
        done = store.finished_ids(include_failed=False)
        for row in rows:
            if row.run_id in done:
                report.already_stored.append(row.run_id)
            else:
                store.append(row)
                report.appended.append(row.run_id)
    return report


_REASON = re.compile(r"^(\w+)(?: HTTP (\d{3}))?:")


def failure_reasons(records: Sequence[QueryRecord]) -> dict[str, dict[str, int]]:
    """Failed records counted by status, and within ``api_error`` by reason (``HTTP 503``, or the
    error's class such as ``ConnectError``, ``RequestTimeout``, ``ProtocolError``). Sorted by count."""
    out: dict[str, dict[str, int]] = {}
    for r in records:
        if r.parsed.ok:
            continue
        m = _REASON.match(r.parsed.error or "") if r.parsed.status == "api_error" else None
        reason = "" if m is None else (f"HTTP {m.group(2)}" if m.group(2) else m.group(1))
        by = out.setdefault(r.parsed.status, {})
        by[reason] = by.get(reason, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: (-sum(kv[1].values()), kv[0])))


def format_failures(records: Sequence[QueryRecord]) -> str:
    """One line such as ``failures: 3 api_error (ConnectError: 3), 1 no_json`` (``failures: none``)."""
    parts = []
    for status, by in failure_reasons(records).items():
        detail = ", ".join(f"{k}: {v}" for k, v in sorted(by.items(), key=lambda kv: (-kv[1], kv[0])) if k)
        parts.append(f"{sum(by.values())} {status}" + (f" ({detail})" if detail else ""))
    return "failures: " + (", ".join(parts) if parts else "none")


TABLE_COLUMNS = (
    ("n", "n_rows", "{:.0f}"), ("failed", "n_failed", "{:.0f}"), ("acc", "accuracy", "{:.3f}"),
    ("partial", "partial_accuracy", "{:.3f}"), ("abstain", "abstention_rate", "{:.3f}"),
    ("confab", "confabulation_rate", "{:.3f}"), ("mean_conf", "mean_confidence", "{:.2f}"),
    ("recog", "recognition_rate", "{:.3f}"), ("acc|recog", "accuracy_recognized", "{:.3f}"),
    ("acc|unrecog", "accuracy_unrecognized", "{:.3f}"),
)


def format_table(summary: Mapping[str, Mapping[str, float]], model_id: str = "") -> str:
    """A plain-text per-stratum table (NaN shown as ``-``)."""
    header = ["stratum", *(c for c, _, _ in TABLE_COLUMNS)]
    body = []
    for stratum, m in summary.items():
        cells = [stratum]
        for _, key, fmt in TABLE_COLUMNS:
            v = m.get(key, float("nan"))
            cells.append("-" if v != v else fmt.format(v))
        body.append(cells)
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = [f"model: {model_id}"] if model_id else []
    lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in body]
    return "\n".join(lines)


def agreement(answers: Mapping[str, Mapping[Any, Sequence[int] | None]]) -> dict[str, float]:
    """Cross-model agreement on the predicted terms (paper §9: "unanimous" and "majority").

    ``answers`` maps model -> item key -> predicted terms (``None`` when that reply failed). Only
    items every model answered (status ok) count: ``n_items``; ``unanimous`` = all predictions
    equal; ``majority`` = one prediction shared by more than half of the models. Rates are over
    ``n_items`` (NaN when 0). Needs at least two models.
    """
    if len(answers) < 2:
        raise ValueError(f"answers must hold at least 2 models, got {len(answers)}")
    models = list(answers)
    keys = [k for k in answers[models[0]] if all(k in answers[m] for m in models)]
    n = unanimous = majority = 0
    for key in keys:
        preds = [answers[m][key] for m in models]
        if any(p is None for p in preds):
            continue
        n += 1
        counts: dict[tuple, int] = {}
        for p in preds:
            counts[tuple(p)] = counts.get(tuple(p), 0) + 1
        top = max(counts.values())
        unanimous += top == len(models)
        majority += 2 * top > len(models)
    rate = (lambda k: k / n) if n else (lambda k: float("nan"))
    return {"n_items": float(n), "unanimous": float(unanimous), "majority": float(majority),
            "unanimous_rate": rate(unanimous), "majority_rate": rate(majority)}


def agreement_by_stratum(runs: Mapping[str, Sequence[QueryRecord]]) -> dict[str, dict[str, float]]:
    """:func:`agreement` per stratum for several models' records on the same sample."""
    out = {}
    all_records = [r for recs in runs.values() for r in recs]
    for stratum in strata(all_records):
        out[stratum] = agreement({
            model: {r.item.anum: (r.parsed.next_terms if r.parsed.ok else None)
                    for r in recs if r.item.stratum == stratum}
            for model, recs in runs.items()})
    return out
