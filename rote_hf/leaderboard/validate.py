"""The full schema a row must meet before any board shows it or a submission stores it.

:func:`row_problem` checks one row (a dict with the columns of
:data:`rote_hf.results.COLUMNS`, JSON columns decoded) against the common rules and its suite's
rules, and returns the first problem as one line naming the field, or ``None``:

- identity: ``run_id`` (1-160 of ``A-Z a-z 0-9 _ . = + -``, not starting with ``.``), a known
  ``suite`` (:data:`SUITES`), ``model`` (1-100 of ``A-Z a-z 0-9 _ . : / + @ -``, no spaces);
- the suite's own forms: ROTE ``task`` ``n<symbols>-c<complexity>`` agreeing with
  ``task_params``, CogScale ``task`` one of the 14 tasks, ``config`` a difficulty and ``budget``
  like ``10k``, OEIS-LLM strata; the headline metric present on ``ok`` rows, metric values
  in their range (rates and DL in [0, 1], confidence in 1..5, counts non-negative integers);
- numbers: finite, integers where the schema says so, within bounds (parameter counts up to
  10**12, seeds within int64, times and memory non-negative);
- strings: no control characters (C0, DEL, C1) and no bidirectional-text controls (e.g. U+202E
  RIGHT-TO-LEFT OVERRIDE, which makes a field display other than it reads), in any field, JSON
  keys and values included; capped lengths; dictionaries: bounded nesting and size;
- provenance shapes: ``git_commit`` hex of 7-40 characters (``+dirty`` allowed, as
  :func:`rote_hf.results.provenance.git_commit` writes it), ``package_version`` a PEP 440 version.

The boards use it to skip malformed stored rows (with a visible notice); the submission path
uses it (plus submission-only rules) before anything is stored.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

RUN_ID_MAX = 160
MODEL_MAX = 100
TEXT_MAX = 200
ERROR_MAX = 20_000
OUTPUT_MAX = 20_000
JSON_DEPTH_MAX = 8
JSON_ITEMS_MAX = 2_000
INT64_MAX = 2**63 - 1

_RUN_ID = re.compile(r"[A-Za-z0-9_.=+-]+")
MODEL_FORM = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/+@-]*")
#: bidirectional-text controls (marks, embeddings, overrides, isolates) and line/paragraph separators
BIDI = "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{BIDI}]")
_CONTROL_EXCEPT_NEWLINE = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{BIDI}]")
_UNSAFE_IN_JSON = re.compile(f"[\\x7f-\\x9f{BIDI}]")  # JSON string values may hold tabs and newlines (replies)
GIT_COMMIT = re.compile(r"[0-9a-fA-F]{7,40}(\+dirty)?")
_BUDGET = re.compile(r"\d{1,6}(\.\d{1,3})?[kM]")
_ROTE_TASK = re.compile(r"n(\d{1,3})-c(\d{1,6})")

#: integer columns -> (low, high)
INT_FIELDS: Mapping[str, tuple[int, int]] = {
    "param_count": (0, 10**12), "data_seed": (0, INT64_MAX), "init_seed": (0, INT64_MAX), "run": (0, 10**6),
    "epochs": (0, 10**7),
}
#: float columns -> (low, high, low excluded)
FLOAT_FIELDS: Mapping[str, tuple[float, float, bool]] = {
    "learning_rate": (0.0, 100.0, True), "score": (-1e12, 1e12, False), "train_time_s": (0.0, 1e9, False),
    "time_per_epoch_s": (0.0, 1e9, False), "peak_cuda_mb": (0.0, 1e9, False), "peak_cpu_mb": (0.0, 1e9, False),
}
TEXT_FIELDS = ("config", "budget", "protocol", "score_name", "device", "package_version", "git_commit",
               "dataset_fingerprint", "config_name", "config_hash", "timestamp")
JSON_FIELDS = ("task_params", "model_config", "settings", "metrics", "outputs")


class RowError(ValueError):
    """A row that breaks the schema; the message names the field (one line)."""


def short(value: Any, limit: int = 40) -> str:
    """``repr`` of ``value`` on one line, cut to ``limit`` characters (for messages)."""
    text = repr(value)
    text = _CONTROL.sub("?", text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- suites --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SuiteRules:
    """What a row of one suite must look like beyond the common rules.

    ``check``: (row) -> problem or None, for task/config/budget forms. ``headline``: an ``ok``
    row needs at least one of these metrics. ``ranges``: metric name -> (low, high);
    ``counts``: metric names that are non-negative integer counts.
    """

    check: Callable[[Mapping[str, Any]], str | None]
    headline: tuple[str, ...]
    ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    counts: tuple[str, ...] = ()
    count_prefix: str = ""


def _rote_check(row: Mapping[str, Any]) -> str | None:
    m = _ROTE_TASK.fullmatch(str(row["task"]))
    if not m:
        return f"task must look like 'n<symbols>-c<complexity>' (e.g. 'n4-c30'), got {short(row['task'])}"
    n, c = int(m.group(1)), int(m.group(2))
    if not 2 <= n <= 256:
        return f"task's symbols must be in 2..256, got {n}"
    if not 1 <= c <= 100_000:
        return f"task's complexity must be in 1..100000, got {c}"
    params = row.get("task_params") or {}
    for key, want in (("symbols", n), ("complexity", c)):
        got = params.get(key)
        if isinstance(got, bool) or not isinstance(got, (int, float)) or got != want:
            return f"task_params.{key} must be {want} (from task {row['task']!r}), got {short(got)}"
    config = str(row.get("config") or "")
    if config and not re.fullmatch(r"s\d{1,4}", config):
        return f"config must be a seed index like 's0' or empty, got {short(config)}"
    return _budget_problem(row, required=False)


def _budget_problem(row: Mapping[str, Any], *, required: bool) -> str | None:
    budget = str(row.get("budget") or "")
    if (budget or required) and not _BUDGET.fullmatch(budget):
        return f"budget must look like '1k', '10k', '100k' or '0.2M', got {short(row.get('budget'))}"
    return None


def _cogscale_check(row: Mapping[str, Any]) -> str | None:
    from rote_hf.cogscale.presets import DIFFICULTIES  # lazy: imports numpy
    from rote_hf.cogscale.tasks import TASKS  # lazy: imports numpy

    if row["task"] not in TASKS:
        return f"task must be one of the 14 CogScale tasks {sorted(TASKS)}, got {short(row['task'])}"
    if row.get("config") not in DIFFICULTIES:
        return f"config must be a difficulty {list(DIFFICULTIES)}, got {short(row.get('config'))}"
    return _budget_problem(row, required=True)


LLM_STRATA = ("clean", "revising", "wilderness", "all")


def _mdl_check(row: Mapping[str, Any]) -> str | None:
    if row.get("protocol") != "llm-query":
        return f"protocol must be 'llm-query' for suite 'mdl', got {short(row.get('protocol'))}"
    if row["task"] not in LLM_STRATA:
        return f"task must be an MDL stratum {list(LLM_STRATA)}, got {short(row['task'])}"
    return None


_UNIT = (0.0, 1.0)
_ROTE = SuiteRules(_rote_check, headline=("DL", "exact"),
                   ranges={"DL": _UNIT, "JW": _UNIT, "exact": _UNIT, "test_accuracy": _UNIT, "test_loss": (0.0, 1e6)})
_LLM_RANGES = {name: _UNIT for name in (
    "accuracy", "abstention_rate", "confabulation_rate", "confabulation_rate_excluding_abstentions",
    "recognition_rate", "accuracy_recognized", "accuracy_unrecognized", "contamination_share", "failure_rate",
    "hedges")}
_LLM_RANGES.update({f"{k}_ci_{side}": _UNIT for k in list(_LLM_RANGES) for side in ("low", "high")})
_LLM_RANGES["mean_confidence"] = (1.0, 5.0)

SUITES: Mapping[str, SuiteRules] = {
    "rote": _ROTE,
    "rote_matched": _ROTE,
    "cogscale": SuiteRules(_cogscale_check, headline=("test_score",),
                           ranges={"test_score": (0.0, 1e6), "best_val_score": (0.0, 1e6)}),
    "mdl": SuiteRules(_mdl_check, headline=("accuracy", "n_scored"), ranges=_LLM_RANGES, count_prefix="n_"),
}
"""The suites the leaderboard shows, with their row rules."""


# -- the checks ----------------------------------------------------------------------------------------

def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _text(name: str, value: Any, limit: int, *, newlines: bool = False) -> str | None:
    if not isinstance(value, str):
        return f"{name} must be a string, got {type(value).__name__}"
    if len(value) > limit:
        return f"{name} must be at most {limit} characters, got {len(value)}"
    if (_CONTROL_EXCEPT_NEWLINE if newlines else _CONTROL).search(value):
        return f"{name} must not contain control or bidirectional-text characters, got {short(value)}"
    return None


def _int(name: str, value: Any, low: int, high: int) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "item"):
        return f"{name} must be an integer in {low}..{high} or null, got {type(value).__name__}"
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        return f"{name} must be an integer in {low}..{high}, got {short(value)}"
    if not low <= int(value) <= high:
        return f"{name} must be an integer in {low}..{high}, got {short(value) if abs(value) < 1e20 else '%.3g' % value}"
    return None


def _float(name: str, value: Any, low: float, high: float, open_low: bool = False) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "item"):
        return f"{name} must be a number or null, got {type(value).__name__}"
    value = float(value.item() if hasattr(value, "item") else value) if abs(value) < 1e308 else math.inf
    bound = f"({low:g}, {high:g}]" if open_low else f"[{low:g}, {high:g}]"
    if not math.isfinite(value) or value < low or value > high or (open_low and value == low):
        return f"{name} must be a finite number in {bound}, got {'%.6g' % value}"
    return None


def _json_problem(name: str, value: Any) -> str | None:
    """Bounded nesting and size; keys short strings; numbers finite and within int64."""
    items = 0

    def walk(v: Any, depth: int, path: str) -> str | None:
        nonlocal items
        items += 1
        if items > JSON_ITEMS_MAX:
            return f"{name} must hold at most {JSON_ITEMS_MAX} values"
        if depth > JSON_DEPTH_MAX:
            return f"{name} must be nested at most {JSON_DEPTH_MAX} levels deep (at {path})"
        if isinstance(v, Mapping):
            for k, x in v.items():
                if not isinstance(k, str) or not k or len(k) > 100 or _CONTROL.search(k):
                    return f"{name} keys must be 1-100 printable characters, got {short(k)} at {path}"
                problem = walk(x, depth + 1, f"{path}.{k}")
                if problem:
                    return problem
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                problem = walk(x, depth + 1, f"{path}[{i}]")
                if problem:
                    return problem
        elif isinstance(v, bool) or v is None:
            pass
        elif isinstance(v, int):
            if abs(v) > INT64_MAX:
                return f"{path} must be an integer within int64, got a {len(str(abs(v)))}-digit integer"
        elif isinstance(v, float):
            if math.isinf(v):  # NaN means missing (stored as null); an infinity is no value
                return f"{path} must be a finite number or null, got {v}"
        elif isinstance(v, str):
            if len(v) > OUTPUT_MAX:
                return f"{path} must be at most {OUTPUT_MAX} characters, got {len(v)}"
            if _UNSAFE_IN_JSON.search(v):
                return f"{path} must not contain control or bidirectional-text characters, got {short(v)}"
        else:
            return f"{path} must be JSON (object, list, string, number, boolean, null), got {type(v).__name__}"
        return None

    return walk(value, 0, name)


def row_problem(row: Mapping[str, Any]) -> str | None:
    """The first way ``row`` breaks the schema (one line naming the field), or ``None``."""
    run_id = row.get("run_id")
    if not isinstance(run_id, str) or not run_id or len(run_id) > RUN_ID_MAX or not _RUN_ID.fullmatch(run_id) \
            or run_id.startswith("."):
        return (f"run_id must be 1-{RUN_ID_MAX} characters of A-Z a-z 0-9 _ . = + - (not starting with '.'), "
                f"got {short(run_id)}")
    suite = row.get("suite")
    if suite not in SUITES:
        return f"suite must be one of {sorted(SUITES)}, got {short(suite)}"
    problem = _text("task", row.get("task"), TEXT_MAX)
    if problem or not row.get("task"):
        return problem or "task must be a non-empty string"
    model = row.get("model")
    if not isinstance(model, str) or not model or len(model) > MODEL_MAX or not MODEL_FORM.fullmatch(model):
        return f"model must be 1-{MODEL_MAX} characters of A-Z a-z 0-9 _ . : / + @ - (no spaces), got {short(model)}"
    for name in TEXT_FIELDS:
        value = row.get(name)
        if not _missing(value):
            problem = _text(name, value, TEXT_MAX)
            if problem:
                return problem
    problem = _provenance_problem(row)
    if problem:
        return problem
    if row.get("status") not in ("ok", "failed"):
        return f"status must be 'ok' or 'failed', got {short(row.get('status'))}"
    problem = _text("error", row.get("error") or "", ERROR_MAX, newlines=True)
    if problem:
        return problem
    if row["status"] == "failed" and not row.get("error"):
        return "error must say why a run with status 'failed' failed"
    for name, (low, high) in INT_FIELDS.items():
        if not _missing(row.get(name)):
            problem = _int(name, row[name], low, high)
            if problem:
                return problem
    for name, (low, high, open_low) in FLOAT_FIELDS.items():
        if not _missing(row.get(name)):
            problem = _float(name, row[name], low, high, open_low)
            if problem:
                return problem
    for name in ("lower_is_better", "verified"):
        if not isinstance(row.get(name, False), bool):
            return f"{name} must be true or false, got {short(row.get(name))}"
    for name in JSON_FIELDS:
        value = row.get(name) or {}
        if not isinstance(value, Mapping):
            return f"{name} must be an object, got {type(value).__name__}"
        problem = _json_problem(name, value)
        if problem:
            return problem
    for key, value in (row.get("outputs") or {}).items():
        if not isinstance(value, str):
            return f"outputs.{key} must be a string, got {type(value).__name__}"
    rules = SUITES[suite]
    problem = rules.check(row)
    if problem:
        return problem
    return _metrics_problem(row, rules)


def _provenance_problem(row: Mapping[str, Any]) -> str | None:
    """``git_commit`` and ``package_version`` have their shapes when given (empty: unknown)."""
    commit = row.get("git_commit")
    if not _missing(commit) and commit and not GIT_COMMIT.fullmatch(commit):
        return f"git_commit must be 7-40 hex digits (a git commit id), got {short(commit)}"
    version = row.get("package_version")
    if not _missing(version) and version:
        from packaging.version import InvalidVersion, Version  # lazy: only rows that carry a version

        try:
            Version(version)
        except InvalidVersion:
            return f"package_version must be a PEP 440 version like '0.1.0', got {short(version)}"
    return None


def _metrics_problem(row: Mapping[str, Any], rules: SuiteRules) -> str | None:
    metrics = row.get("metrics") or {}
    for key, value in metrics.items():
        if _missing(value):
            continue
        low, high = rules.ranges.get(key, (-1e12, 1e12))
        if rules.count_prefix and key.startswith(rules.count_prefix):
            problem = _int(f"metrics.{key}", value, 0, 10**9)
        else:
            problem = _float(f"metrics.{key}", value, low, high)
        if problem:
            return problem
    if row["status"] == "ok" and not any(not _missing(metrics.get(k)) for k in rules.headline):
        return f"metrics must hold {' or '.join(rules.headline)} for an 'ok' {row['suite']} row"
    return None


def check_row(row: Mapping[str, Any]) -> None:
    """:func:`row_problem` as an exception (:class:`RowError`)."""
    problem = row_problem(row)
    if problem:
        raise RowError(problem)


def valid_rows(frame):
    """Split a DataFrame of rows (JSON columns decoded) into the rows every board can show and
    one notice per skipped row: ``(frame, ["<run id>: <problem>", ...])``. Never raises on row
    content."""
    keep, notices = [], []
    for i, rec in enumerate(frame.to_dict("records")):
        try:
            problem = row_problem(rec)
        except Exception as exc:  # noqa: BLE001 -- a row must never break a board, whatever it holds
            problem = f"unreadable ({type(exc).__name__})"
        keep.append(problem is None)
        if problem:
            notices.append(f"{short(rec.get('run_id'), 60)}: {problem}")
    return frame.iloc[[i for i, k in enumerate(keep) if k]].reset_index(drop=True), notices  # rows, even when none
