"""The one result-row schema that ``train``, ``llm`` and ``space`` all speak (DESIGN.md "One result row").

A :class:`ResultRow` is one run of one suite: what was trained or queried (suite, task, config,
model, parameter count, budget, seeds, protocol settings), what came out (metric values and
string outputs such as a ROTE forecast), what it cost (train time, time per epoch, peak CUDA and
CPU memory, device) and where it came from (package version, git commit, dataset fingerprint,
config hash, timestamp, verified flag, ``source`` = ``"ours"``, ``"paper"`` or ``"submitted"``).

Variable parts (task parameters, model configuration, protocol settings, metrics, outputs) are
dictionaries; on disk they are canonical JSON strings so that every Parquet part file has the same
Arrow schema (:data:`ARROW_SCHEMA`) whatever the suite. Units: seconds and MiB (2**20 bytes).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

SOURCES = ("ours", "paper", "submitted")
"""``ours``: the maintainers' runs; ``paper``: the published numbers; ``submitted``: rows a visitor
created (an upload or the Space's LLM-query tab), always unverified."""
#: Version of the row layout written by this code. 1: the ``schema_version`` column itself
#: (rows stored before it existed read back as version 0; their other columns are unchanged).
SCHEMA_VERSION = 1
STATUSES = ("ok", "failed")

#: Columns holding dictionaries (stored as canonical JSON text).
JSON_COLUMNS = ("task_params", "model_config", "settings", "metrics", "outputs")


def budget_label(model: Mapping[str, Any], default: str = "") -> str:
    """The ``budget`` column of a row: a parameter budget of ``n`` parameters (int) written
    ``"<n/1000>k"`` (``"1k"``, ``"100k"``) or ``"<n/1e6>M"`` from 10**6; ``default`` otherwise."""
    budget = model.get("budget")
    if isinstance(budget, (int, float)) and not isinstance(budget, bool):
        return f"{budget / 1000:g}k" if budget < 10**6 else f"{budget / 1e6:g}M"
    return str(budget or default)


def budget_value(label: str) -> float:
    """Inverse of :func:`budget_label` for sorting (``"1k"`` -> 1000.0; ``inf`` when unparsable)."""
    mult = {"k": 1e3, "M": 1e6}.get(label[-1:], 1.0)
    try:
        return float(label[:-1] if label[-1:] in "kM" else label) * mult
    except ValueError:
        return math.inf


def canonical_json(value: Any) -> str:
    """Deterministic JSON (sorted keys, no spaces, NaN as null) used for storage and hashing."""

    def clean(v: Any) -> Any:
        if isinstance(v, Mapping):
            return {str(k): clean(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if hasattr(v, "item") and not isinstance(v, (str, bytes)):  # numpy / torch scalars
            return clean(v.item())
        return v

    return json.dumps(clean(value), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def config_hash(spec: Mapping[str, Any], length: int = 16) -> str:
    """SHA-256 of the canonical JSON of ``spec``, first ``length`` hex digits."""
    return hashlib.sha256(canonical_json(spec).encode()).hexdigest()[:length]


_SAFE = re.compile(r"[^A-Za-z0-9_.=-]+")


def make_run_id(suite: str, model: str, task: str, spec: Mapping[str, Any]) -> str:
    """A readable, file-name-safe, deterministic run id: ``<suite>-<model>-<task>-<hash16>``.

    The hash covers the whole ``spec`` (everything that defines the run), so two runs share an id
    exactly when they are the same run; the readable prefix is only for humans.
    """
    prefix = "-".join(_SAFE.sub("_", str(p)) for p in (suite, model, task))
    return f"{prefix}-{config_hash(spec)}"


@dataclass(frozen=True)
class ResultRow:
    """One run (or one published number) as a row. See the module docstring for the groups.

    ``metrics`` holds numbers only (``nan`` allowed: stored as null); ``outputs`` holds strings
    (e.g. ``forecast``, ``target``). ``score``/``score_name``/``lower_is_better`` name the suite's
    headline metric so that a leaderboard can rank rows without knowing the suite.
    """

    # identity and what was run
    run_id: str
    suite: str
    task: str
    model: str
    config: str = ""
    task_params: Mapping[str, Any] = field(default_factory=dict)
    model_config: Mapping[str, Any] = field(default_factory=dict)
    param_count: int | None = None
    budget: str = ""
    data_seed: int | None = None
    init_seed: int | None = None
    run: int | None = None
    protocol: str = ""
    learning_rate: float | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    # what came out
    status: str = "ok"
    error: str = ""
    metrics: Mapping[str, float] = field(default_factory=dict)
    outputs: Mapping[str, str] = field(default_factory=dict)
    score_name: str = ""
    score: float | None = None
    lower_is_better: bool = True
    # cost
    train_time_s: float | None = None
    time_per_epoch_s: float | None = None
    epochs: int | None = None
    peak_cuda_mb: float | None = None
    peak_cpu_mb: float | None = None
    device: str = ""
    # provenance
    source: str = "ours"
    package_version: str = ""
    git_commit: str = ""
    dataset_fingerprint: str = ""
    config_name: str = ""
    config_hash: str = ""
    timestamp: str = ""
    verified: bool = False
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        for name in ("run_id", "suite", "task", "model"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise ValueError(f"{name} must be a non-empty string, got {value!r}")
        if self.source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}, got {self.source!r}")
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        if isinstance(self.schema_version, bool) or not isinstance(self.schema_version, int) or self.schema_version < 0:
            raise ValueError(f"schema_version must be an integer >= 0, got {self.schema_version!r}")
        if self.status == "failed" and not self.error:
            raise ValueError("error must describe why a run with status='failed' failed")
        for name in JSON_COLUMNS:
            if not isinstance(getattr(self, name), Mapping):
                raise TypeError(f"{name} must be a mapping, got {type(getattr(self, name)).__name__}")
        for key, value in self.metrics.items():
            if value is not None and not isinstance(value, (int, float)) and not hasattr(value, "item"):
                raise TypeError(f"metrics[{key!r}] must be a number, got {type(value).__name__}")
        for key, value in self.outputs.items():
            if not isinstance(value, str):
                raise TypeError(f"outputs[{key!r}] must be a string, got {type(value).__name__}")

    def to_record(self) -> dict[str, Any]:
        """A flat dict matching :data:`ARROW_SCHEMA` (JSON columns as canonical JSON text)."""
        record = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in JSON_COLUMNS:
                value = canonical_json(value)
            elif isinstance(value, float) and not math.isfinite(value):
                value = None
            record[f.name] = value
        return record

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> "ResultRow":
        """Inverse of :meth:`to_record` (accepts pandas NaN/None for missing values)."""
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name not in record:
                if f.name == "schema_version":
                    kwargs[f.name] = 0  # written before the column existed
                continue
            value = record[f.name]
            if f.name == "schema_version" and _is_missing(value):
                kwargs[f.name] = 0
                continue
            if f.name in JSON_COLUMNS:
                value = json.loads(value) if isinstance(value, str) and value else {}
            elif _is_missing(value):
                value = None if f.default is None or f.default is dataclasses.MISSING else f.default
            elif hasattr(value, "item"):
                value = value.item()
            kwargs[f.name] = value
        return cls(**kwargs)


def decode_json_columns(frame):
    """``frame`` (a pandas DataFrame of stored rows) with its :data:`JSON_COLUMNS` decoded to dicts
    (empty or missing text -> ``{}``), in place; returns it."""
    for name in JSON_COLUMNS:
        frame[name] = [json.loads(v) if isinstance(v, str) and v else {} for v in frame[name]]
    return frame


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return isinstance(value, float) and math.isnan(value)
    except TypeError:  # pragma: no cover
        return False


COLUMNS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(ResultRow))


def _arrow_schema():
    import pyarrow as pa

    types = {
        "param_count": pa.int64(), "data_seed": pa.int64(), "init_seed": pa.int64(), "run": pa.int64(),
        "epochs": pa.int64(), "learning_rate": pa.float64(), "score": pa.float64(),
        "train_time_s": pa.float64(), "time_per_epoch_s": pa.float64(), "peak_cuda_mb": pa.float64(),
        "peak_cpu_mb": pa.float64(), "lower_is_better": pa.bool_(), "verified": pa.bool_(),
        "schema_version": pa.int64(),
    }
    return pa.schema([(name, types.get(name, pa.string())) for name in COLUMNS])


def arrow_schema():
    """The Arrow schema of a stored row (imports pyarrow lazily)."""
    return _arrow_schema()
