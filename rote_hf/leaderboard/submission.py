"""Visitor submissions: a results file is validated against the row schema and stored unverified.

Safety rules (why each one):

- only ``.json`` (a list of row objects, or ``{"rows": [...]}``), ``.jsonl`` (one object per line)
  and ``.parquet`` are accepted: JSON is parsed with ``json.loads`` and Parquet with pyarrow,
  neither of which can run code; pickle (``.pkl``, ``.pt``, ``.npy`` with objects ...) is
  refused by name and by its magic bytes whatever the file is called;
- at most :data:`MAX_BYTES` bytes and :data:`MAX_ROWS` rows, checked before parsing;
- every row must build a :class:`~rote_hf.results.ResultRow` (the schema's own validation:
  types, required fields, numbers in ``metrics``, strings in ``outputs``), with no unknown
  columns; a submission cannot claim ``source="paper"`` nor ``verified=True``;
- stored rows get ``verified=False``, ``source="ours"``, a run id prefixed ``submitted-`` and
  ``settings["submission"] = {"file", "sha256"}``, which the boards show as
  ``unverified (submitted)``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any

from rote_hf.results.schema import COLUMNS, JSON_COLUMNS, ResultRow

MAX_BYTES = 2 * 1024 * 1024
"""Largest accepted upload (2 MiB)."""
MAX_ROWS = 5000
ALLOWED_SUFFIXES = (".json", ".jsonl", ".parquet")
SUBMITTED_PREFIX = "submitted-"
REQUIRED = ("run_id", "suite", "task", "model")


class SubmissionError(ValueError):
    """A rejected upload; the message says why, for the visitor."""


def _looks_like_pickle(data: bytes) -> bool:
    # protocol 2+ starts with PROTO (0x80) and the protocol number; numpy/torch archives wrap
    # pickles in zip files (PK\x03\x04)
    return (len(data) >= 2 and data[0] == 0x80 and 2 <= data[1] <= 5) or data[:4] == b"PK\x03\x04"


def _records(data: bytes, suffix: str) -> list[dict[str, Any]]:
    if suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not (data[:4] == b"PAR1" and data[-4:] == b"PAR1"):
            raise SubmissionError("file is not a Parquet file (missing PAR1 magic bytes)")
        try:
            table = pq.read_table(io.BytesIO(data))
        except (pa.ArrowException, OSError) as exc:
            raise SubmissionError(f"file could not be read as Parquet: {exc}") from None
        if table.num_rows > MAX_ROWS:
            raise SubmissionError(f"file has {table.num_rows} rows; at most {MAX_ROWS} are accepted")
        return table.to_pylist()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SubmissionError("file is not UTF-8 text") from None
    try:
        if suffix == ".jsonl":
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            records = json.loads(text)
            if isinstance(records, dict) and "rows" in records:
                records = records["rows"]
    except json.JSONDecodeError as exc:
        raise SubmissionError(f"file is not valid JSON: {exc}") from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise SubmissionError("file must hold a list of row objects (or {\"rows\": [...]})")
    return records


def parse_submission(data: bytes, filename: str) -> list[ResultRow]:
    """Validate an uploaded file and return its rows as unverified submitted rows.

    ``SubmissionError`` (a ``ValueError``) names the first problem: size, type, format,
    row count, an unknown column, or the row (index and run id) that breaks the schema.
    """
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    name = os.path.basename(str(filename))
    suffix = Path(name).suffix.lower()
    if len(data) > MAX_BYTES:
        raise SubmissionError(f"file is {len(data)} bytes; the limit is {MAX_BYTES} bytes")
    if not data:
        raise SubmissionError("file is empty")
    if suffix not in ALLOWED_SUFFIXES or _looks_like_pickle(bytes(data[:4])):
        raise SubmissionError(f"file type must be one of {list(ALLOWED_SUFFIXES)} (no pickle or archives), got {name!r}")
    records = _records(bytes(data), suffix)
    if not records:
        raise SubmissionError("file holds no rows")
    if len(records) > MAX_ROWS:
        raise SubmissionError(f"file has {len(records)} rows; at most {MAX_ROWS} are accepted")
    digest = hashlib.sha256(data).hexdigest()
    rows = []
    for i, rec in enumerate(records):
        missing = [k for k in REQUIRED if not rec.get(k)]
        if missing:
            raise SubmissionError(f"row {i}: missing required fields {missing}")
        unknown = sorted(set(rec) - set(COLUMNS))
        if unknown:
            raise SubmissionError(f"row {i}: unknown columns {unknown}; allowed: the result-row schema (rote_hf.results.COLUMNS)")
        if rec.get("source", "ours") != "ours":
            raise SubmissionError(f"row {i}: source must be 'ours' in a submission, got {rec.get('source')!r}")
        rec = dict(rec)
        for key in JSON_COLUMNS:  # JSON text (as stored) or objects are both fine
            if isinstance(rec.get(key), str):
                try:
                    rec[key] = json.loads(rec[key]) if rec[key] else {}
                except json.JSONDecodeError:
                    raise SubmissionError(f"row {i}: {key} is not valid JSON") from None
        settings = rec.get("settings") or {}
        if not isinstance(settings, dict):
            raise SubmissionError(f"row {i}: settings must be an object")
        run_id = rec.get("run_id")
        if not isinstance(run_id, str) or not run_id or "/" in run_id or run_id.startswith(".") or len(run_id) > 200:
            raise SubmissionError(f"row {i}: run_id must be a non-empty file-name-safe string, got {run_id!r}")
        rec.update(run_id=run_id if run_id.startswith(SUBMITTED_PREFIX) else SUBMITTED_PREFIX + run_id,
                   verified=False, source="ours",
                   settings={**settings, "submission": {"file": name, "sha256": digest}})
        try:
            row = ResultRow(**rec)
        except (TypeError, ValueError) as exc:
            raise SubmissionError(f"row {i} ({run_id!r}): {exc}") from None
        _check_types(row, i)
        rows.append(row)
    ids = [r.run_id for r in rows]
    if len(set(ids)) != len(ids):
        raise SubmissionError("run_id values must be unique within a submission")
    return rows


_NUMERIC = ("param_count", "data_seed", "init_seed", "run", "epochs", "learning_rate", "score", "train_time_s",
            "time_per_epoch_s", "peak_cuda_mb", "peak_cpu_mb")
_TEXT = ("suite", "task", "model", "config", "budget", "protocol", "error", "score_name", "device",
         "package_version", "git_commit", "dataset_fingerprint", "config_name", "config_hash", "timestamp")


def _check_types(row: ResultRow, i: int) -> None:
    for name in _NUMERIC:
        value = getattr(row, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise SubmissionError(f"row {i}: {name} must be a number or null, got {type(value).__name__}")
    for name in _TEXT:
        if not isinstance(getattr(row, name), str):
            raise SubmissionError(f"row {i}: {name} must be a string, got {type(getattr(row, name)).__name__}")
    if not isinstance(row.lower_is_better, bool):
        raise SubmissionError(f"row {i}: lower_is_better must be true or false")


def store_submission(rows: list[ResultRow], root: str | os.PathLike) -> list[Path]:
    """Append validated rows to the results store at ``root``; a run id already stored is refused
    (nothing of the submission is written then)."""
    from rote_hf.results import ResultStore

    store = ResultStore(root)
    taken = sorted(r.run_id for r in rows if r.run_id in store.run_ids())
    if taken:
        raise SubmissionError(f"run ids already stored: {taken[:5]}; choose new run_id values")
    return [store.append(r) for r in rows]
