"""Ship a sweep's finished runs with the package: the export behind
``rote-hf results --export-reproduction``.

The files it writes, and how they are read back, are described in :mod:`rote_hf.results.shipped`;
exporting sits here, above the results room, because it expands the sweep config
(:mod:`rote_hf.train.config`) to know which runs the config has.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any

from rote_hf.files import write_atomic
from rote_hf.results.schema import COLUMNS, arrow_schema, config_hash
from rote_hf.results.shipped import (
    FORMAT_VERSION, SHIPPED_DIR, derived_run_ids, forget_reads, shipped_provenance, shipped_table,
)
from rote_hf.results.store import ResultStore
from rote_hf.suites import get_suite
from rote_hf.suites.base import RunSpec
from rote_hf.train.config import PUBLISHED_LR, SweepConfig, expand, select


def default_config_path(name: str = "cogscale_paper") -> Path:
    """``eval_suite/configs/<name>.yaml`` of the source checkout this package was imported from."""
    return Path(__file__).resolve().parents[2] / "eval_suite" / "configs" / f"{name}.yaml"


def _json_value(value: Any) -> Any:
    """An Arrow scalar's Python value, JSON-safe (NaN -> None)."""
    if isinstance(value, float) and value != value:
        return None
    return value


def export_reproduction(results: str | os.PathLike, *, config: str | os.PathLike | None = None,
                        out_dir: str | os.PathLike | None = None, command: str = "") -> dict[str, Any]:
    """Collect the finished (``ok``) runs of sweep ``config`` into ``<out_dir>/<config name>.parquet``
    + ``.json`` (atomic writes); returns the provenance dict.

    The runs are the rows already shipped in ``out_dir`` for this config plus the store
    ``results``'s rows of the config's runs (a run in both is taken from the store), so a sweep
    resumed on a new machine, whose store holds only the runs trained there, adds to what is
    shipped. ``config``: the sweep YAML (default ``eval_suite/configs/cogscale_paper.yaml``).
    ``out_dir``: default the package's ``rote_hf/results/ours/`` (:data:`~rote_hf.results.shipped.SHIPPED_DIR`). ``command``: recorded verbatim.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

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
    failed_rows = table.filter(pc.invert(ok_mask))
    table = table.filter(ok_mask)
    n = table.num_rows
    # failures: this store's, and those listed by the last export that no row of this store has
    # since retried (a store on a new machine holds only its own runs; a failure is never dropped)
    ok_ids = set(table.column("run_id").to_pylist())
    failed = dict(zip(failed_rows.column("run_id").to_pylist(), failed_rows.column("error").to_pylist()))
    for entry in (shipped_provenance(sweep.name, directory=out_dir) or {}).get("failed", []):
        rid = entry.get("run_id")
        if rid in expected and rid not in ok_ids and rid not in stored:
            failed.setdefault(rid, entry.get("error", ""))
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
    run_id_derived = n > 0 and table.column("run_id").to_pylist() == derived_run_ids(table)
    if run_id_derived:
        keep.remove("run_id")
    compact = table.select(keep)
    buf = io.BytesIO()
    pq.write_table(compact, buf, compression="zstd", compression_level=9, store_schema=False)
    data = buf.getvalue()

    by_cell: dict[str, dict[str, int]] = {}
    for rid, spec in expected.items():
        cell = by_cell.setdefault(cell_key(spec), {"expected": 0, "ok": 0, "failed": 0})
        cell["expected"] += 1
        cell["ok"] += rid in ok_ids
    for rid in failed:
        by_cell[cell_key(expected[rid])]["failed"] += 1
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
        "runs_failed": len(failed),
        "runs_left": len(specs) - n - len(failed),
        "runs_by_model_difficulty": dict(sorted(by_cell.items())),
        "phase_a": phase_a_counts(specs, ok_ids | set(failed)),
        "git_commits": sorted(set(table.column("git_commit").to_pylist())),
        "package_versions": sorted(set(table.column("package_version").to_pylist())),
        "devices": sorted(set(table.column("device").to_pylist())),
        "first_timestamp": stamps[0] if stamps else None,
        "last_timestamp": stamps[-1] if stamps else None,
        "failed": [failed_entry(expected[r], e) for r, e in sorted(failed.items())],
        "data_file": f"{sweep.name}.parquet",
        "data_sha256": hashlib.sha256(data).hexdigest(),
        "data_bytes": len(data),
        "stored_columns": keep,
        "constant_columns": constants,
        "run_id": "derived: <suite>-<model>-<task>-<config_hash>" if run_id_derived else "stored",
    }
    # the JSON first: a reader pairs the two by data_sha256, and a half-written pair is refused
    # package data: readable by all, whatever the umask
    write_atomic(out_dir / f"{sweep.name}.json", (json.dumps(provenance, indent=1, sort_keys=True) + "\n").encode(),
                 mode=0o644)
    write_atomic(out_dir / f"{sweep.name}.parquet", data, mode=0o644)
    forget_reads()
    return provenance


def cell_key(spec: RunSpec) -> str:
    """The provenance's count key of run ``spec`` (``runs_by_model_difficulty``): ``<model>-<difficulty>``
    for CogScale (``gru-small``), ``<model>-n<symbols>`` for ROTE, which has no difficulty
    (``gru-n4``), ``<model>-<task>`` for any other suite."""
    params = spec.task_params
    if "difficulty" in params:
        part = params["difficulty"]
    elif "symbols" in params:
        part = f"n{params['symbols']}"
    else:
        part = spec.task
    return f"{spec.model['name']}-{part}"


def phase_a_counts(specs: list[RunSpec], finished: set[str]) -> dict[str, dict[str, int]]:
    """Phase A of a CogScale sweep (each cell at the learning rate the published table chose,
    ``train.py --only lr=published``), per ``<model>-<difficulty>-<budget>``: its ``cells`` (one per
    task), the ``cells_complete`` whose every seed is ``finished`` (ok or failed: a failed run is
    not retried), and its ``runs`` and ``runs_finished``. Empty for other suites and for the ESN,
    which has no learning rate."""
    if not specs or specs[0].suite != "cogscale":
        return {}
    unit = get_suite("cogscale")
    cells: dict[str, dict[str, list[bool]]] = {}
    for spec in select(specs, [f"lr={PUBLISHED_LR}"]):
        key = f"{spec.model['name']}-{spec.task_params['difficulty']}-{unit.budget(spec.model)}"
        cells.setdefault(key, {}).setdefault(spec.task, []).append(spec.run_id in finished)
    return {key: {"cells": len(by_task), "cells_complete": sum(all(d) for d in by_task.values()),
                  "runs": sum(map(len, by_task.values())), "runs_finished": sum(map(sum, by_task.values()))}
            for key, by_task in sorted(cells.items())}


FAILED_KEYS = ("suite", "task", "model", "config", "budget", "learning_rate", "data_seed")
"""Columns of a failed run that the provenance JSON records beside its run id and error, so that a
reader can put the failure in its group without the sweep config (the Space has none)."""


def failed_entry(spec: RunSpec, error: str) -> dict[str, Any]:
    """The provenance JSON's record of failed run ``spec``: run id, error and :data:`FAILED_KEYS`
    (the columns its row would have: difficulty as ``config``, the seed as ``data_seed``)."""
    unit = get_suite(spec.suite)
    columns = {"suite": spec.suite, "task": spec.task, "model": spec.model["name"], "budget": unit.budget(spec.model),
               **unit.spec_columns(spec)}
    return {"run_id": spec.run_id, "error": error, **{k: columns.get(k) for k in FAILED_KEYS}}


__all__ = ["FAILED_KEYS", "cell_key", "default_config_path", "export_reproduction", "failed_entry", "phase_a_counts"]
