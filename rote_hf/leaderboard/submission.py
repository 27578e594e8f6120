"""Visitor submissions: a results file is validated against the full row schema and stored
unverified, all rows or none.

Safety rules (why each one):

- only ``.json`` (a list of row objects, or ``{"rows": [...]}``), ``.jsonl`` (one object per line)
  and ``.parquet`` are accepted: JSON is parsed with ``json.loads`` and Parquet with pyarrow,
  neither of which can run code; pickle (``.pkl``, ``.pt``, ``.npy`` with objects ...) is
  refused by name and by its magic bytes whatever the file is called;
- at most :data:`MAX_BYTES` bytes and :data:`MAX_ROWS` rows, checked before parsing; JSON text
  (the file, and JSON columns given as text) is scanned before parsing for nesting deeper than
  :data:`MAX_DEPTH` and numbers longer than :data:`MAX_NUMBER_CHARS` characters, so a hostile
  file meets a one-line refusal, not the parser's recursion or integer-size limits;
  ``NaN``/``Infinity`` are refused;
- every row must build a :class:`~rote_hf.results.ResultRow` and meet its suite's full schema
  (:func:`rote_hf.leaderboard.validate.row_problem`: required fields, known task, difficulty,
  budget and model-name forms, finite numbers in range, non-negative counts and times, capped
  string lengths), with no unknown columns; a submission cannot claim ``source="paper"`` nor
  ``verified=True``;
- every row is checked before any is stored, and :func:`store_submission` writes all of them or
  none (each file is linked into place only if no file of that id exists; a failure removes
  the ones already placed);
- stored rows get ``source="submitted"``, ``verified=False``, a run id prefixed ``submitted-``
  and ``settings["submission"] = {"file", "sha256"}``; the boards show them as
  ``unverified (submitted)``.

Every refusal is a :class:`SubmissionError` whose message is one line naming the row and field.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from rote_hf.leaderboard.validate import RUN_ID_MAX, row_problem, short
from rote_hf.results import ResultStore
from rote_hf.results.compact import run_stats, write_part
from rote_hf.results.schema import COLUMNS, JSON_COLUMNS, ResultRow, arrow_schema

LOG = logging.getLogger("rote_hf.leaderboard")

MAX_BYTES = 2 * 1024 * 1024
"""Largest accepted upload (2 MiB)."""
MAX_ROWS = 5000
MAX_DEPTH = 12
"""Deepest JSON nesting accepted in a file (the file's list, a row, a JSON column and 8 levels in it)."""
MAX_NUMBER_CHARS = 40
"""Longest number literal accepted (an int64 has at most 20 characters; a float's repr at most 24)."""
ALLOWED_SUFFIXES = (".json", ".jsonl", ".parquet")
SUBMITTED_PREFIX = "submitted-"
SUBMITTED_SOURCE = "submitted"
REQUIRED = ("run_id", "suite", "task", "model")


class SubmissionError(ValueError):
    """A rejected upload; the message says why, for the visitor."""


def _looks_like_pickle(data: bytes) -> bool:
    # protocol 2+ starts with PROTO (0x80) and the protocol number; numpy/torch archives wrap
    # pickles in zip files (PK\x03\x04)
    return (len(data) >= 2 and data[0] == 0x80 and 2 <= data[1] <= 5) or data[:4] == b"PK\x03\x04"


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"\s*:?|-?[0-9][0-9.eE+-]*|[\[\]{}]')


def check_json_text(text: str, where: str = "file") -> None:
    """Refuse, before parsing, JSON nested deeper than :data:`MAX_DEPTH` or holding a number
    literal longer than :data:`MAX_NUMBER_CHARS` characters (naming the field when it has one)."""
    depth = 0
    key = None
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise SubmissionError(f"{where} is nested deeper than {MAX_DEPTH} levels (at character {m.start()}); "
                                      "rows are flat objects with small JSON fields")
        elif tok in "]}":
            depth -= 1
        elif tok[0] == '"':
            key = tok[1:tok.rindex('"')] if tok.endswith(":") else key
        elif len(tok) > MAX_NUMBER_CHARS:
            field = f"field {short(key)}" if key is not None else where
            raise SubmissionError(f"{field}: a number with {len(tok)} characters; numbers must fit in 64 bits "
                                  f"(at most {MAX_NUMBER_CHARS} characters)")


def _refuse_constant(name: str) -> Any:
    raise SubmissionError(f"file holds {name}; numbers must be finite (use null for a missing value)")


def _loads(text: str, where: str = "file") -> Any:
    check_json_text(text, where)
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise SubmissionError(f"{where} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except (RecursionError, ValueError) as exc:  # SubmissionError is a ValueError: pass it on as it is
        if isinstance(exc, SubmissionError):
            raise
        raise SubmissionError(f"{where} could not be read as JSON ({type(exc).__name__})") from None


def _records(data: bytes, suffix: str) -> list[dict[str, Any]]:
    if suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not (data[:4] == b"PAR1" and data[-4:] == b"PAR1"):
            raise SubmissionError("file is not a Parquet file (missing PAR1 magic bytes)")
        try:
            table = pq.read_table(io.BytesIO(data))
            if table.num_rows > MAX_ROWS:
                raise SubmissionError(f"file has {table.num_rows} rows; at most {MAX_ROWS} are accepted")
            return table.to_pylist()
        except (pa.ArrowException, OSError, ValueError, TypeError) as exc:
            if isinstance(exc, SubmissionError):
                raise
            first = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            raise SubmissionError(f"file could not be read as Parquet: {first}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SubmissionError("file is not UTF-8 text") from None
    if suffix == ".jsonl":
        lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
        if len(lines) > MAX_ROWS:
            raise SubmissionError(f"file has {len(lines)} rows; at most {MAX_ROWS} are accepted")
        records = [_loads(line, f"line {n}") for n, line in lines]
    else:
        records = _loads(text)
        if isinstance(records, dict) and "rows" in records:
            records = records["rows"]
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise SubmissionError("file must hold a list of row objects (or {\"rows\": [...]})")
    return records


def parse_submission(data: bytes, filename: str) -> list[ResultRow]:
    """Validate an uploaded file and return its rows as unverified submitted rows.

    ``SubmissionError`` (a ``ValueError``) names the first problem in one line: size, type,
    format, nesting, number size, row count, an unknown column, or the row (index and run id)
    and field that break the schema. Nothing is stored here.
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
        raise SubmissionError(f"file type must be one of {list(ALLOWED_SUFFIXES)} (no pickle or archives), got {short(name, 80)}")
    records = _records(bytes(data), suffix)
    if not records:
        raise SubmissionError("file holds no rows")
    if len(records) > MAX_ROWS:
        raise SubmissionError(f"file has {len(records)} rows; at most {MAX_ROWS} are accepted")
    digest = hashlib.sha256(data).hexdigest()
    rows = [_row(i, rec, name, digest) for i, rec in enumerate(records)]
    ids = [r.run_id for r in rows]
    if len(set(ids)) != len(ids):
        raise SubmissionError("run_id values must be unique within a submission")
    return rows


def _row(i: int, rec: dict[str, Any], name: str, digest: str) -> ResultRow:
    """One record -> a submitted ResultRow, or SubmissionError naming row ``i`` and the field."""
    missing = [k for k in REQUIRED if not rec.get(k)]
    if missing:
        raise SubmissionError(f"row {i}: missing required fields {missing}")
    unknown = sorted(set(rec) - set(COLUMNS))
    if unknown:
        raise SubmissionError(f"row {i}: unknown columns {[re.sub(r'[^ -~]', '?', str(u))[:30] for u in unknown[:5]]}; "
                              "allowed: the result-row schema (rote_hf.results.COLUMNS)")
    if rec.get("source", "ours") not in ("ours", SUBMITTED_SOURCE):
        raise SubmissionError(f"row {i}: source must be 'ours' in a submission, got {short(rec.get('source'))}")
    run_id = rec.get("run_id")
    limit = RUN_ID_MAX - len(SUBMITTED_PREFIX)
    if not isinstance(run_id, str) or not run_id or len(run_id) > limit or run_id.startswith(".") \
            or not re.fullmatch(r"[A-Za-z0-9_.=+-]+", run_id):
        raise SubmissionError(f"row {i}: run_id must be a non-empty file-name-safe string of at most {limit} "
                              f"characters of A-Z a-z 0-9 _ . = + -, got {short(run_id)}")
    where = f"row {i} ({short(run_id)})"
    rec = dict(rec)
    for key in JSON_COLUMNS:  # JSON text (as stored) or objects are both fine
        if isinstance(rec.get(key), str):
            try:
                rec[key] = _loads(rec[key], key) if rec[key] else {}
            except SubmissionError as exc:
                raise SubmissionError(f"{where}: {exc}") from None
        elif rec.get(key) is None:
            rec.pop(key, None)
    settings = rec.get("settings") or {}
    if not isinstance(settings, dict):
        raise SubmissionError(f"{where}: settings must be an object")
    try:
        row = as_submitted(ResultRow(**rec), {"file": name[:TEXT_NAME_MAX], "sha256": digest})
    except (TypeError, ValueError) as exc:
        raise SubmissionError(f"{where}: {str(exc).splitlines()[0][:300]}") from None
    _check_types(row, i)
    problem = row_problem(row.__dict__)
    if problem:
        raise SubmissionError(f"{where}: {problem}")
    return row


TEXT_NAME_MAX = 100


def as_submitted(row: ResultRow, origin: Any) -> ResultRow:
    """``row`` as a visitor's row: ``source="submitted"``, ``verified=False``, run id prefixed
    :data:`SUBMITTED_PREFIX`, ``settings["submission"] = origin`` (the uploaded file and its
    SHA-256, or the Space tab that created it)."""
    import dataclasses

    run_id = row.run_id if row.run_id.startswith(SUBMITTED_PREFIX) else SUBMITTED_PREFIX + row.run_id
    return dataclasses.replace(row, run_id=run_id, source=SUBMITTED_SOURCE, verified=False,
                               settings={**dict(row.settings), "submission": origin})


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
    """Store validated rows in the results store at ``root``: all of them or none.

    A run id already stored is refused before anything is written. Each row is written to a
    temporary file first; then each is hard-linked into place, which fails if a file of that
    id appeared meanwhile (another submission), and any failure removes the files this call
    placed. Temporary files are always removed.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    store = ResultStore(root)
    stored = store.run_ids()  # listed once: per row it made a 5,000-row upload cost minutes on a full store
    taken = sorted(r.run_id for r in rows if r.run_id in stored)
    if taken:
        raise SubmissionError(f"run ids already stored: {taken[:5]}; choose new run_id values")
    targets = [store.path_of(r.run_id) for r in rows]
    store.runs_dir.mkdir(parents=True, exist_ok=True)
    temps: list[str] = []
    placed: list[Path] = []
    try:
        for row in rows:
            fd, tmp = tempfile.mkstemp(prefix=".tmp-submit-", suffix=".parquet", dir=store.runs_dir)
            os.close(fd)
            temps.append(tmp)
            pq.write_table(pa.Table.from_pylist([row.to_record()], schema=arrow_schema()), tmp)
        for tmp, target in zip(temps, targets):
            os.link(tmp, target)  # atomic, and never replaces an existing file
            placed.append(target)
    except FileExistsError as exc:
        for path in placed:
            path.unlink(missing_ok=True)
        raise SubmissionError(f"run id {Path(exc.filename or '').stem!r} was stored meanwhile; nothing was stored") from None
    except BaseException:
        for path in placed:
            path.unlink(missing_ok=True)
        raise
    finally:
        for tmp in temps:
            if os.path.exists(tmp):
                os.unlink(tmp)
    # the rows again as one compacted copy: the Space reads one file, not one per row (best effort:
    # without it the run files are read one by one, as any store's)
    try:
        write_part(store, pa.Table.from_pylist([r.to_record() for r in rows], schema=arrow_schema()),
                   run_stats(placed))
    except OSError as exc:
        LOG.warning("results store %s: the submission was not compacted (%s)", root, exc)
    return placed
