"""Compacted copies of a store's run files, so that a reader of every row opens a few files, not one per run.

The store writes one Parquet file per run (``runs/<run_id>.parquet``): run claims, atomic writes
and crash safety rest on that, and nothing here changes it. A reader that wants all rows (the
leaderboard) pays one file open per run: about 3 ms a file, half a minute for the full CogScale
grid. So the rows of run files are also copied, many at a time, into ``compact/part-<k>.parquet``,
and ``compact/manifest.json`` names, for each part, the run files it copies with their
modification time and size. A copy counts only while its run file still has that time and size:
a replaced run file (a failed run retried) is read from ``runs/`` again, and a removed one is
gone. The run files stay the record; deleting ``compact/`` loses nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from rote_hf.files import write_atomic
from rote_hf.results.schema import COLUMNS, arrow_schema
from rote_hf.results.store import ResultStore

COMPACT_DIR = "compact"
MANIFEST = "manifest.json"
RunStat = tuple[int, int]
"""A run file's (modification time in ns, size in bytes)."""


def compact_dir(store: ResultStore) -> Path:
    return store.root / COMPACT_DIR


def run_stats(files: list[Path]) -> dict[str, RunStat]:
    """File name -> (mtime_ns, size) of each of ``files`` that still exists."""
    out = {}
    for f in files:
        try:
            st = f.stat()
        except OSError:  # removed since the listing
            continue
        out[f.name] = (st.st_mtime_ns, st.st_size)
    return out


def read_manifest(store: ResultStore) -> dict[str, dict[str, list[int]]]:
    """Part file name -> {run file name: [mtime_ns, size]} (empty when nothing is compacted, or
    when the manifest cannot be read: then everything is read from ``runs/``)."""
    path = compact_dir(store) / MANIFEST
    try:
        parts = json.loads(path.read_text())["parts"]
        return {str(k): {str(n): [int(s[0]), int(s[1])] for n, s in v.items()} for k, v in parts.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return {}


def read_compacted(store: ResultStore, current: dict[str, RunStat]):
    """``(table, covered)``: the rows of the compacted copies that are still current (their run file
    in ``current`` with the same mtime and size), with the store's Arrow schema, and the run file
    names they cover. A part that cannot be read covers nothing."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    schema = arrow_schema()
    tables, covered = [], set()
    for part, runs in sorted(read_manifest(store).items()):
        valid = {name for name, stat in runs.items() if tuple(current.get(name, ())) == tuple(stat)} - covered
        if not valid:
            continue
        try:
            table = pq.read_table(compact_dir(store) / part).select(list(COLUMNS)).cast(schema)
        except Exception:  # noqa: BLE001 -- a damaged part: its runs are read from runs/ instead
            continue
        keep = pa.array(sorted(name[: -len(".parquet")] for name in valid), pa.string())
        tables.append(table.filter(pc.is_in(table.column("run_id"), keep)))
        covered |= valid
    return (pa.concat_tables(tables) if tables else schema.empty_table()), covered


def write_part(store: ResultStore, table, stats: dict[str, RunStat]) -> Path:
    """Add ``table`` (the rows of the run files ``stats`` names, as read) as one more part; the
    part is written first, then the manifest replaced (both atomic), so a reader sees the old
    manifest or the new one. Raises ``OSError`` where the store cannot be written."""
    import pyarrow.parquet as pq

    folder = compact_dir(store)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(store)
    k = 1 + max((int(p[len("part-"):-len(".parquet")]) for p in manifest if p.startswith("part-")), default=0)
    part = f"part-{k:06d}.parquet"
    write_atomic(folder / part, lambda tmp: pq.write_table(table, tmp, compression="zstd"))
    manifest[part] = {name: list(stat) for name, stat in sorted(stats.items())}
    text = json.dumps({"parts": manifest}, sort_keys=True)
    write_atomic(folder / MANIFEST, text.encode())
    return folder / part


__all__ = ["COMPACT_DIR", "MANIFEST", "compact_dir", "read_compacted", "read_manifest", "run_stats", "write_part"]
