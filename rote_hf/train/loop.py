"""The Accelerate loop: shard *runs* (configurations) across processes, never a fit.

Why not DDP: the papers' numbers come from single-process fits; data-parallel training changes
batch composition, shuffle order and the batch-mean validation loss (rote.md §8). So each
process takes every ``world``-th unfinished run, trains it alone on its own device
(``accelerator.device``: ``cuda:<local rank>`` on GPUs, CPU otherwise) and appends its rows to
the store, which is safe across processes (one file per run id).

CPU launches: ``accelerate launch --cpu --num_processes 2`` silently runs ONE process (stack.md
§7). Use ``accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no
--dynamo_backend no eval_suite/train.py ...``; the script builds ``Accelerator(cpu=True)`` when
no GPU is present and :func:`check_world` refuses to continue if the launched world differs from
the requested one.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from rote_hf.results.schema import ResultRow
from rote_hf.results.store import ResultStore
from rote_hf.train.config import RunSpec, describe
from rote_hf.train.suites import execute

LOG = logging.getLogger("rote_hf.train")


@dataclass
class LoopReport:
    """What one process did: ids it ran (ok / failed) and ids it skipped as already stored."""

    rank: int
    world: int
    assigned: list[str] = field(default_factory=list)
    ok: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    skipped: int = 0


def make_accelerator(cpu: bool | None = None):
    """``Accelerator(cpu=True)`` unless CUDA is available (``cpu=None``) — needed for a real CPU world."""
    import torch
    from accelerate import Accelerator

    if cpu is None:
        cpu = not torch.cuda.is_available()
    return Accelerator(cpu=cpu)


def check_world(accelerator: Any, requested: int | None) -> None:
    """``RuntimeError`` when the launched world size differs from ``requested`` (stack.md §7)."""
    if requested is not None and accelerator.num_processes != requested:
        raise RuntimeError(
            f"launched {accelerator.num_processes} process(es) but {requested} were requested; on CPU use "
            "'accelerate launch --multi_gpu --num_processes N --num_machines 1 --mixed_precision no "
            "--dynamo_backend no' (plain '--cpu --num_processes N' runs one process)")


def shard(specs: Sequence[RunSpec], done: set[str], rank: int, world: int) -> tuple[list[RunSpec], int]:
    """This rank's share of the unfinished runs: every ``world``-th, starting at ``rank``.

    Finished runs are removed first so that a resumed sweep stays balanced; every rank sees the
    same store listing at start, so the shares are disjoint and cover all unfinished runs.
    """
    todo = [s for s in specs if s.run_id not in done]
    return todo[rank::world], len(specs) - len(todo)


def run_specs(specs: Sequence[RunSpec], results_dir: str | os.PathLike, *, accelerator: Any = None,
              requested_processes: int | None = None, retry_failed: bool = False, progress: bool = True,
              executor: Callable[..., ResultRow] | None = None, fleet: int = 1) -> LoopReport:
    """Run every unfinished spec once across the accelerator's processes; rows go to ``results_dir``.

    ``retry_failed`` re-runs runs stored as failed (their row is replaced). ``executor`` replaces
    the suite's executor (``(spec, device) -> ResultRow``). ``fleet``: the most runs trained
    together as one fleet (rote_hf.train.fleet; 1 = one run at a time; ignored with ``executor``);
    fleets, not runs, are what the processes share. Returns this process's report; all
    processes wait for each other at the end.
    """
    if accelerator is None:
        accelerator = make_accelerator()
    check_world(accelerator, requested_processes)
    ids = [s.run_id for s in specs]
    if len(set(ids)) != len(ids):
        raise ValueError("specs must not contain the same run twice (duplicate run ids)")
    store = ResultStore(results_dir)
    rank, world = accelerator.process_index, accelerator.num_processes
    done = store.finished_ids(include_failed=not retry_failed)
    accelerator.wait_for_everyone()  # every rank has read the same listing before anyone writes
    units, skipped = _fleet_units(specs, done, rank, world, 1 if executor is not None else fleet)
    mine = [s for unit in units for s in unit]
    report = LoopReport(rank=rank, world=world, assigned=[s.run_id for s in mine], skipped=skipped)
    if accelerator.is_main_process:
        LOG.info("%s; %d already stored; %d process(es)", describe(list(specs)), skipped, world)
    bar = _progress(len(mine), rank, progress)
    for spec, row in _unit_rows(units, accelerator.device, executor):
        try:
            store.append(row, replace_failed=True)
        except FileExistsError:  # another sweep on the same folder finished it meanwhile: keep theirs
            LOG.warning("run %s was stored by another process meanwhile; keeping the stored row", spec.run_id)
        (report.ok if row.status == "ok" else report.failed).append(spec.run_id)
        if row.status == "failed":
            LOG.warning("run %s failed: %s", spec.run_id, row.error.splitlines()[0])
        if bar is not None:
            bar.set_postfix_str(f"{spec.model['name']} {spec.task} {row.status}", refresh=False)
            bar.update(1)
    if bar is not None:
        bar.close()
    accelerator.wait_for_everyone()
    return report


def _fleet_units(specs, done, rank, world, fleet: int):
    """This rank's units (lists of specs trained together); ``fleet`` 1 is :func:`shard` exactly."""
    if fleet == 1:
        mine, skipped = shard(specs, done, rank, world)
        return [[s] for s in mine], skipped
    from rote_hf.train.fleet import plan_fleets

    todo, skipped = shard(specs, done, 0, 1)
    return plan_fleets(todo, fleet)[rank::world], skipped


def _unit_rows(units, device, executor):
    """(spec, row) for every spec of every unit, a unit at a time (one-spec units via :func:`execute`)."""
    from rote_hf.train.fleet import run_fleet

    for unit in units:
        rows = [execute(unit[0], device, executor)] if len(unit) == 1 else run_fleet(unit, device)
        yield from zip(unit, rows)


def _progress(total: int, rank: int, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=f"rank {rank}", unit="run", position=rank, leave=True, file=sys.stderr,
                dynamic_ncols=True)


def run_config(config_path: str | os.PathLike, results_dir: str | os.PathLike, **kwargs: Any) -> LoopReport:
    """Load a YAML sweep config, expand it and :func:`run_specs` it."""
    from rote_hf.train.config import SweepConfig, expand

    return run_specs(expand(SweepConfig.from_yaml(Path(config_path))), results_dir, **kwargs)
