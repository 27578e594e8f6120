"""Our reproduction rows shipped with the package (``source="ours"``, verified).

The finished runs of a sweep config (today: ``cogscale_paper``, CogScale's published grid) are
exported from a results store into one compact file beside this module::

    rote_hf/results/ours/<config>.parquet   the rows (zstd Parquet, sorted by run id)
    rote_hf/results/ours/<config>.json      provenance: commits, sweep hash, versions, timestamps,
                                            counts done / failed / left, the exact command

Compact: a column whose value is the same in every exported row (``suite``, ``source``,
``config_name``, ``verified``, ...) is stored once in the JSON (``constant_columns``), and the
run id is dropped when it is ``<suite>-<model>-<task>-<config_hash>`` for every row (it is, for
rows written by ``eval_suite/train.py``). Nothing else is dropped, so :func:`shipped_table`
rebuilds the rows exactly (the store's Arrow schema). Deterministic: the same store gives
byte-identical files (no wall-clock time is written).

Only ``ok`` rows are shipped; failed runs are listed in the JSON (``failed``: run id and error)
so that they are never dropped silently. Shipped rows get ``verified=True`` (produced by the
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
import tempfile
from pathlib import Path
from typing import Any

SHIPPED_DIR = Path(__file__).with_name("ours")
SHIPPED_CONFIGS = ("cogscale_paper",)
"""Sweep configs whose rows are shipped (each ``<name>.parquet`` + ``<name>.json`` when exported)."""
FORMAT_VERSION = 1


def default_config_path(name: str = "cogscale_paper") -> Path:
    """``eval_suite/configs/<name>.yaml`` of the source checkout this package was imported from."""
    return Path(__file__).resolve().parents[2] / "eval_suite" / "configs" / f"{name}.yaml"


def _json_value(value: Any) -> Any:
    """An Arrow scalar's Python value, JSON-safe (NaN -> None)."""
    if isinstance(value, float) and value != value:
        return None
    return value


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)  # package data: readable by all (mkstemp makes 0600)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _derived_run_ids(table) -> list[str]:
    cols = [table.column(c).to_pylist() for c in ("suite", "model", "task", "config_hash")]
    return [f"{s}-{m}-{t}-{h}" for s, m, t, h in zip(*cols)]


def export_reproduction(results: str | os.PathLike, *, config: str | os.PathLike | None = None,
                        out_dir: str | os.PathLike | None = None, command: str = "") -> dict[str, Any]:
    """Collect the finished (``ok``) runs of sweep ``config`` into ``<out_dir>/<config name>.parquet``
    + ``.json`` (atomic writes); returns the provenance dict.

    The runs are the rows already shipped in ``out_dir`` for this config plus the store
    ``results``'s rows of the config's runs (a run in both is taken from the store), so a sweep
    resumed on a new machine, whose store holds only the runs trained there, adds to what is
    shipped. ``config``: the sweep YAML (default ``eval_suite/configs/cogscale_paper.yaml``).
    ``out_dir``: default the package's ``rote_hf/results/ours/``. ``command``: recorded verbatim.
    """
    import io

    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from rote_hf.registry import resolve_object
    from rote_hf.results.schema import COLUMNS, arrow_schema, config_hash

    # the store reads these shipped rows and the sweep configs sit above the results room:
    # reached by lazy reference, so that exporting adds no import circle
    ResultStore = resolve_object("rote_hf.results.store:ResultStore")
    SweepConfig = resolve_object("rote_hf.train.config:SweepConfig")
    expand = resolve_object("rote_hf.train.config:expand")

    results = Path(results)
    if not (results / "runs").is_dir():
        raise FileNotFoundError(f"results must be a results store (a folder with runs/), got {str(results)!r}")
    config_path = Path(config) if config is not None else default_config_path()
    sweep = SweepConfig.from_yaml(config_path)
    specs = expand(sweep)
    expected = {s.run_id: s for s in specs}
    store = ResultStore(results)
    stored = store.run_ids() & set(expected)
    out_dir = Path(out_dir) if out_dir is not None else SHIPPED_DIR
    shipped = shipped_table(sweep.name, directory=out_dir)
    shipped = shipped.filter(pc.invert(pc.is_in(shipped.column("run_id"), pa.array(sorted(stored), pa.string()))))
    shipped = shipped.filter(pc.is_in(shipped.column("run_id"), pa.array(sorted(expected), pa.string())))
    table = pa.concat_tables([shipped] + [pq.read_table(store.path_of(rid), schema=arrow_schema())
                                          for rid in sorted(stored)])
    table = table.take(pc.sort_indices(table, [("run_id", "ascending")]))
    ok_mask = pc.equal(table.column("status"), "ok")
    failed = table.filter(pc.invert(ok_mask))
    table = table.filter(ok_mask)
    n = table.num_rows
    table = table.set_column(COLUMNS.index("verified"), "verified", pa.array([True] * n, pa.bool_()))
    table = table.set_column(COLUMNS.index("config_name"), "config_name", pa.array([sweep.name] * n, pa.string()))

    constants: dict[str, Any] = {}
    keep = []
    for name in COLUMNS:
        values = table.column(name)
        distinct = values.unique() if n else values
        if n and len(distinct) == 1:
            constants[name] = _json_value(distinct[0].as_py())
        else:
            keep.append(name)
    run_id_derived = n > 0 and table.column("run_id").to_pylist() == _derived_run_ids(table)
    if run_id_derived:
        keep.remove("run_id")
    compact = table.select(keep)
    buf = io.BytesIO()
    pq.write_table(compact, buf, compression="zstd", compression_level=9, store_schema=False)
    data = buf.getvalue()

    by_cell: dict[str, dict[str, int]] = {}
    ok_ids = set(table.column("run_id").to_pylist())
    for rid, spec in expected.items():
        key = f"{spec.model['name']}-{spec.task_params['difficulty']}"
        cell = by_cell.setdefault(key, {"expected": 0, "ok": 0, "failed": 0})
        cell["expected"] += 1
        cell["ok"] += rid in ok_ids
    for rid in failed.column("run_id").to_pylist():
        spec = expected[rid]
        by_cell[f"{spec.model['name']}-{spec.task_params['difficulty']}"]["failed"] += 1
    stamps = sorted(t for t in table.column("timestamp").to_pylist() if t)
    provenance = {
        "format_version": FORMAT_VERSION,
        "config_name": sweep.name,
        "config_file": config_path.name,
        "config_sha256": hashlib.sha256(config_path.read_bytes()).hexdigest(),
        "sweep_hash": config_hash([s.identity() for s in specs]),
        "command": command,
        "runs_expected": len(specs),
        "runs_ok": n,
        "runs_failed": failed.num_rows,
        "runs_left": len(specs) - n - failed.num_rows,
        "runs_by_model_difficulty": dict(sorted(by_cell.items())),
        "git_commits": sorted(set(table.column("git_commit").to_pylist())),
        "package_versions": sorted(set(table.column("package_version").to_pylist())),
        "devices": sorted(set(table.column("device").to_pylist())),
        "first_timestamp": stamps[0] if stamps else None,
        "last_timestamp": stamps[-1] if stamps else None,
        "failed": [{"run_id": r, "error": e} for r, e in
                   sorted(zip(failed.column("run_id").to_pylist(), failed.column("error").to_pylist()))],
        "data_file": f"{sweep.name}.parquet",
        "data_sha256": hashlib.sha256(data).hexdigest(),
        "data_bytes": len(data),
        "stored_columns": keep,
        "constant_columns": constants,
        "run_id": "derived: <suite>-<model>-<task>-<config_hash>" if run_id_derived else "stored",
    }
    # the JSON first: a reader pairs the two by data_sha256, and a half-written pair is refused
    _write_atomic(out_dir / f"{sweep.name}.json", (json.dumps(provenance, indent=1, sort_keys=True) + "\n").encode())
    _write_atomic(out_dir / f"{sweep.name}.parquet", data)
    _read.cache_clear()
    return provenance


def shipped_provenance(name: str = "cogscale_paper", *, directory: str | os.PathLike | None = None) -> dict | None:
    """The provenance JSON of shipped config ``name`` (``None`` when nothing is shipped)."""
    if name not in SHIPPED_CONFIGS and directory is None:
        raise ValueError(f"name must be one of {SHIPPED_CONFIGS}, got {name!r}")
    path = Path(directory or SHIPPED_DIR) / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


@functools.lru_cache(maxsize=8)
def _read(name: str, directory: str, stamp: tuple[int, int] | None):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from rote_hf.results.schema import COLUMNS, arrow_schema

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
        columns["run_id"] = pa.array(_derived_run_ids(pa.table(columns)), pa.string())
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


def shipped_frame(name: str | None = None, *, directory: str | os.PathLike | None = None):
    """Shipped rows as a pandas DataFrame, JSON columns as text (``name=None``: every shipped config)."""
    import pyarrow as pa

    names = SHIPPED_CONFIGS if name is None else (name,)
    return pa.concat_tables([shipped_table(n, directory=directory) for n in names]).to_pandas()
