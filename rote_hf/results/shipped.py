"""Our reproduction rows shipped with the package (``source="ours"``, verified).

The finished runs of a sweep config (:data:`SHIPPED_CONFIGS`: ``cogscale_paper``, CogScale's
published grid; ``hf_zoo``; ``rote_paper``, ROTE's main grid) are
exported (:mod:`rote_hf.reports.export`) from a results store into one compact file beside this module::

    rote_hf/results/ours/<config>.parquet   the rows (zstd Parquet, sorted by run id)
    rote_hf/results/ours/<config>.json      provenance: commits, sweep hash, versions, timestamps,
                                            counts done / failed / left, the exact command

Compact: a column whose value is the same in every exported row (``suite``, ``source``,
``config_name``, ``verified``, ...) is stored once in the JSON (``constant_columns``), and the
run id is dropped when it is ``<suite>-<model>-<task>-<config_hash>`` for every row (it is, for
rows written by ``eval_suite/train.py``). Nothing else is dropped, so :func:`shipped_table`
rebuilds the rows exactly (the store's Arrow schema). Deterministic: the same store gives
byte-identical files (no wall-clock time is written).

Only ``ok`` rows are shipped; failed runs are listed in the JSON (``failed``: run id, error and
the columns that place the run in its group: suite, task, model, config, budget, learning_rate,
data_seed) so that they are never dropped silently, and :func:`with_shipped_failures` gives them
back as failed rows (the reproduction report's strict rule counts the groups whose runs diverged). Shipped rows get ``verified=True`` (produced by the
team's documented config at the recorded commits) and ``config_name`` = the config's name (a run
id is the run's identity, whatever config first ran it).

>>> from rote_hf.results.shipped import shipped_frame, shipped_provenance
>>> shipped_frame("cogscale_paper")          # pandas DataFrame, empty when nothing is shipped yet
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from rote_hf.results.schema import COLUMNS, ResultRow, arrow_schema

SHIPPED_DIR = Path(__file__).with_name("ours")
SHIPPED_CONFIGS = ("cogscale_paper", "hf_zoo", "rote_paper")
"""Sweep configs whose rows are shipped (each ``<name>.parquet`` + ``<name>.json`` when exported):
CogScale's grid, the transformers architectures on CogScale, and ROTE's main grid (compared fit
by fit in :mod:`rote_hf.results.rote_reproduction`)."""
FORMAT_VERSION = 1


def shipped_provenance(name: str = "cogscale_paper", *, directory: str | os.PathLike | None = None) -> dict | None:
    """The provenance JSON of shipped config ``name`` (``None`` when nothing is shipped)."""
    if name not in SHIPPED_CONFIGS and directory is None:
        raise ValueError(f"name must be one of {SHIPPED_CONFIGS}, got {name!r}")
    path = Path(directory or SHIPPED_DIR) / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def derived_run_ids(table) -> list[str]:
    """``<suite>-<model>-<task>-<config_hash>`` of every row of ``table`` (how shipped files drop the run id)."""
    cols = [table.column(c).to_pylist() for c in ("suite", "model", "task", "config_hash")]
    return [f"{s}-{m}-{t}-{h}" for s, m, t, h in zip(*cols)]


@functools.lru_cache(maxsize=8)
def _read(name: str, directory: str, stamp: tuple[int, int] | None):
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = arrow_schema()
    provenance = shipped_provenance(name, directory=directory)
    data_path = Path(directory) / f"{name}.parquet"
    if provenance is None or not data_path.is_file():
        return schema.empty_table()
    data = data_path.read_bytes()
    if hashlib.sha256(data).hexdigest() != provenance["data_sha256"]:
        raise ValueError(f"{data_path} does not match the data_sha256 of its provenance JSON; re-export it")
    compact = pq.read_table(pa.BufferReader(data))
    n = compact.num_rows
    columns = {name_: compact.column(name_) for name_ in compact.column_names}
    for col, value in provenance["constant_columns"].items():
        columns[col] = pa.array([value] * n, schema.field(col).type)
    if "schema_version" not in columns:  # exported before rows carried it: version 0, as the store reads them
        columns["schema_version"] = pa.array([0] * n, pa.int64())
    if "run_id" not in columns:
        columns["run_id"] = pa.array(derived_run_ids(pa.table(columns)), pa.string())
    return pa.table({c: columns[c].cast(schema.field(c).type) for c in COLUMNS}, schema=schema)


def shipped_table(name: str = "cogscale_paper", *, directory: str | os.PathLike | None = None):
    """The shipped rows of config ``name`` as a ``pyarrow.Table`` with the store's schema
    (empty when not exported yet). Checked against the provenance's SHA-256."""
    if name not in SHIPPED_CONFIGS and directory is None:
        raise ValueError(f"name must be one of {SHIPPED_CONFIGS}, got {name!r}")
    path = Path(directory or SHIPPED_DIR) / f"{name}.parquet"
    stat = path.stat() if path.is_file() else None  # a rewritten file is read again
    return _read(name, str(directory or SHIPPED_DIR), (stat.st_mtime_ns, stat.st_size) if stat else None)


def shipped_run_ids(name: str = "cogscale_paper", *, directory: str | os.PathLike | None = None) -> set[str]:
    """Run ids of the shipped rows of config ``name`` (runs a resumed sweep of it need not train again)."""
    return set(shipped_table(name, directory=directory).column("run_id").to_pylist())


def shipped_failed_run_ids(name: str = "cogscale_paper", *, directory: str | os.PathLike | None = None) -> set[str]:
    """Run ids that shipped config ``name`` lists as failed (a resumed sweep keeps them failed unless
    it retries failed runs)."""
    return {entry["run_id"] for entry in (shipped_provenance(name, directory=directory) or {}).get("failed", [])}


def shipped_frame(name: str | None = None, *, directory: str | os.PathLike | None = None):
    """Shipped rows as a pandas DataFrame, JSON columns as text (``name=None``: every shipped config)."""
    import pyarrow as pa

    names = SHIPPED_CONFIGS if name is None else (name,)
    return pa.concat_tables([shipped_table(n, directory=directory) for n in names]).to_pandas()


def shipped_failed_rows(name: str = "cogscale_paper", *, directory: str | os.PathLike | None = None):
    """The runs shipped config ``name`` lists as failed, as failed result rows of ours (a pandas
    DataFrame, JSON columns as text; empty when nothing is shipped or nothing failed). Entries
    written before the JSON recorded their group columns (an export older than issue 30) raise
    ``ValueError``: export again (``rote-hf results --export-reproduction --results DIR``)."""
    import pyarrow as pa

    prov = shipped_provenance(name, directory=directory) or {}
    rows = []
    for entry in prov.get("failed", []):
        if entry.get("task") is None:
            raise ValueError(f"the shipped {name}.json lists failed run {entry.get('run_id')!r} without its group "
                             "columns: export it again (rote-hf results --export-reproduction --results DIR)")
        rows.append(ResultRow(run_id=entry["run_id"], suite=entry["suite"], task=entry["task"], model=entry["model"],
                              config=entry["config"], budget=entry["budget"], learning_rate=entry["learning_rate"],
                              data_seed=entry["data_seed"], init_seed=entry["data_seed"], status="failed",
                              error=entry.get("error") or "failed", source="ours", config_name=prov["config_name"],
                              verified=True))
    # as shipped_frame builds its frame, so that the two concatenate column by column
    return pa.Table.from_pylist([r.to_record() for r in rows], schema=arrow_schema()).to_pandas()


def with_shipped_failures(ours, name: str = "cogscale_paper"):
    """``ours`` (result rows) with the failed runs shipped config ``name`` lists
    (:func:`shipped_failed_rows`) added, when ``ours`` holds shipped rows of it (a run already in
    ``ours`` is kept as it is). Unchanged otherwise: a store's rows carry their own failures."""
    import pandas as pd

    if name not in SHIPPED_CONFIGS or not len(ours) or not (set(ours["run_id"]) & shipped_run_ids(name)):
        return ours
    failed = shipped_failed_rows(name)
    failed = failed[~failed["run_id"].isin(set(ours["run_id"]))]
    return pd.concat([ours, failed], ignore_index=True) if len(failed) else ours


def forget_reads() -> None:
    """Drop the cached reads of shipped files (called after an export rewrites them)."""
    _read.cache_clear()
