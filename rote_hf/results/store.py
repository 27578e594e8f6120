"""The results store: a local folder of Parquet part files, one per run id.

Layout::

    <root>/runs/<run_id>.parquet     one row (schema: rote_hf.results.schema.arrow_schema())

Why one file per run: writes from several processes never touch the same file (no locks), every
write is atomic (temporary file + ``os.replace``), a killed process leaves at most a stray
``.tmp-*`` file that readers ignore, and a run id can never appear twice. Resume is reading the
file names. A failed run is stored as a row with ``status="failed"`` and its error; it counts as
finished unless the caller asks to retry failures, in which case the retry replaces that file.

Damage: a run file that cannot be read back (truncated, corrupted by a disk or a copy) is found by
:meth:`ResultStore.check` on resume, moved aside to ``<root>/corrupt/`` (kept for inspection, a
one-line warning) and is then simply not stored, so the sweep runs it again; :meth:`table` skips
such a file with the same warning. Files get the usual permissions from the umask (``0666 &
~umask``), like any file the user writes. Processes sharing a folder split its runs through
:mod:`rote_hf.results.claims`.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from rote_hf.files import write_atomic
from rote_hf.results.schema import COLUMNS, ResultRow, arrow_schema, decode_json_columns
from rote_hf.results.shipped import shipped_frame

RUNS_DIR = "runs"
CORRUPT_DIR = "corrupt"
_SUFFIX = ".parquet"
LOG = logging.getLogger("rote_hf.results")


@dataclass(frozen=True)
class StoredRun:
    """What resume needs of one stored run: ``status`` ("ok"/"failed"), ``device``, file mtime (ns)."""

    status: str
    device: str
    mtime_ns: int


_GONE = StoredRun("", "", -1)


def _read_run(path: Path) -> StoredRun | None:
    """The status and device of one run file; ``None`` when damaged, ``_GONE`` when it vanished."""
    import pyarrow.parquet as pq

    try:
        mtime = path.stat().st_mtime_ns
        table = pq.ParquetFile(path).read()
        row = table.select(["status", "device"]).to_pylist()[0]
        return StoredRun(str(row["status"]), str(row["device"] or ""), mtime)
    except FileNotFoundError:  # set aside or replaced by another process meanwhile
        return _GONE
    except Exception:  # noqa: BLE001 — any read error means the file is damaged
        return None


class ResultStore:
    """A results folder. Cheap to construct; creates ``<root>/runs`` on first write."""

    def __init__(self, root: str | os.PathLike) -> None:
        if not isinstance(root, (str, os.PathLike)):
            raise TypeError(f"root must be a path, got {type(root).__name__}")
        self.root = Path(root)

    @property
    def runs_dir(self) -> Path:
        return self.root / RUNS_DIR

    def path_of(self, run_id: str) -> Path:
        if not run_id or "/" in run_id or run_id.startswith("."):
            raise ValueError(f"run_id must be a non-empty file-name-safe string, got {run_id!r}")
        return self.runs_dir / f"{run_id}{_SUFFIX}"

    # -- writing ---------------------------------------------------------------------------
    def append(self, row: ResultRow, *, replace_failed: bool = True) -> Path:
        """Write ``row`` atomically; returns its file.

        An existing *finished* (``ok``) row with the same id is never overwritten
        (``FileExistsError``): that would be a duplicate. A ``failed`` row is replaced when
        ``replace_failed`` (a retry).
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not isinstance(row, ResultRow):
            raise TypeError(f"row must be a ResultRow, got {type(row).__name__}")
        target = self.path_of(row.run_id)
        if target.exists():
            try:
                previous = self.status_of(row.run_id)
            except Exception:  # noqa: BLE001 — unreadable: set aside, then store the new row
                self._set_aside(target)
                previous = None
            if previous == "ok" or (previous is not None and not replace_failed):
                raise FileExistsError(f"run {row.run_id!r} is already stored with status {previous!r} in {self.root}")
        table = pa.Table.from_pylist([row.to_record()], schema=arrow_schema())
        return write_atomic(target, lambda tmp: pq.write_table(table, tmp))

    # -- reading ---------------------------------------------------------------------------
    def _files(self) -> list[Path]:
        if not self.runs_dir.is_dir():
            return []
        return sorted(p for p in self.runs_dir.iterdir() if p.suffix == _SUFFIX and not p.name.startswith("."))

    def run_ids(self) -> set[str]:
        """Ids of every stored run (ok or failed)."""
        return {p.name[: -len(_SUFFIX)] for p in self._files()}

    def status_of(self, run_id: str) -> str | None:
        """``"ok"``, ``"failed"`` or ``None`` (not stored)."""
        import pyarrow.parquet as pq

        path = self.path_of(run_id)
        if not path.exists():
            return None
        return str(pq.read_table(path, columns=["status"]).column("status")[0].as_py())

    def check(self) -> dict[str, StoredRun]:
        """Every readable stored run by id; unreadable files are moved aside (see the module docstring).

        Reads each file whole (one row), so damage anywhere in it is found, not only in the footer;
        files are read by a few threads (pyarrow releases the GIL), about 2 ms per file per thread.
        """
        from concurrent.futures import ThreadPoolExecutor

        files = self._files()
        if not files:
            return {}
        with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1, len(files))) as pool:
            results = list(pool.map(_read_run, files))
        found: dict[str, StoredRun] = {}
        for path, run in zip(files, results):
            if run is None:
                self._set_aside(path)
            elif run is not _GONE:
                found[path.name[: -len(_SUFFIX)]] = run
        return found

    def _set_aside(self, path: Path) -> None:
        """Move a damaged run file to ``<root>/corrupt/`` (timestamped) with a one-line warning."""
        aside = self.root / CORRUPT_DIR
        aside.mkdir(parents=True, exist_ok=True)
        dest = aside / f"{path.name}.{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
        try:
            os.replace(path, dest)
        except FileNotFoundError:  # another process set it aside first
            return
        LOG.warning("run file %s is unreadable (damaged or truncated); moved to %s and the run will be re-run",
                    path.name, dest)

    def finished_ids(self, *, include_failed: bool = True) -> set[str]:
        """Run ids to skip on resume: all stored runs, or only the ``ok`` ones (damaged files set aside)."""
        return {rid for rid, run in self.check().items() if include_failed or run.status == "ok"}

    def rows(self) -> list[ResultRow]:
        """Every stored row, sorted by run id."""
        return [ResultRow.from_record(r) for r in self.table().to_pylist()]

    def table(self):
        """All rows as one ``pyarrow.Table`` (empty table with the schema when nothing is stored)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = arrow_schema()
        tables = []
        for path in self._files():
            try:
                tables.append(pq.read_table(path, schema=schema))
            except FileNotFoundError:
                continue
            except Exception:  # noqa: BLE001 — a damaged file must not hide every other row
                LOG.warning("skipping unreadable run file %s (damaged or truncated; a resumed sweep re-runs it)",
                            path)
        return pa.concat_tables(tables) if tables else schema.empty_table()

    def __len__(self) -> int:
        return len(self._files())


def rows_to_frame(rows: Iterable[ResultRow], *, decode_json: bool = True):
    """Rows -> pandas DataFrame with :data:`COLUMNS`; JSON columns decoded to dicts when asked."""
    import pandas as pd

    frame = pd.DataFrame([r.to_record() for r in rows], columns=list(COLUMNS))
    return decode_json_columns(frame) if decode_json else frame


def load(root: str | os.PathLike | None = None, *, include_paper: bool = False, suite: str | None = None,
         decode_json: bool = True, as_dataset: bool = False):
    """The results in ``root`` as a pandas DataFrame (or a ``datasets.Dataset`` when ``as_dataset``).

    ``include_paper`` adds the published numbers of the papers (``source="paper"``) shipped with
    the package, and our shipped reproduction rows (``source="ours"``, verified, e.g.
    ``config_name="cogscale_paper"``: :mod:`rote_hf.results.shipped`); ``root=None`` with
    ``include_paper`` gives the shipped rows alone (a run also in ``root`` is kept once, from
    ``root``). ``suite`` keeps one suite. JSON columns are decoded to dicts unless ``decode_json=False`` (always
    kept as JSON text in a Dataset, whose columns must have one Arrow type).
    """
    import pandas as pd

    frames = []
    if root is not None:
        frames.append(ResultStore(root).table().to_pandas())
    if include_paper:
        from rote_hf.results.published import paper_rows  # lazy: imports numpy

        frames.append(rows_to_frame(paper_rows(), decode_json=False))
        shipped = shipped_frame()
        if root is not None:  # a run in both: the store's copy is kept once
            shipped = shipped[~shipped["run_id"].isin(frames[0]["run_id"])]
        frames.append(shipped)
    if not frames:
        raise ValueError("root must be a results folder, or include_paper must be True")
    frames = [f for f in frames if len(f)] or frames[:1]
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if suite is not None:
        frame = frame[frame["suite"] == suite].reset_index(drop=True)
    if as_dataset:
        import datasets

        return datasets.Dataset.from_pandas(frame, preserve_index=False)
    return decode_json_columns(frame) if decode_json else frame
