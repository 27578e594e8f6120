"""The Accelerate loop: deal *runs* (configurations) to processes, never a fit.

Why not DDP: the papers' numbers come from single-process fits; data-parallel training changes
batch composition, shuffle order and the batch-mean validation loss (rote.md §8). So each
process trains whole runs alone on its own device and appends their rows to the store, which is
safe across processes (one file per run id).

Dealing is dynamic, through run claims (:mod:`rote_hf.results.claims`): a free process claims the
next unstored, unclaimed run (rank r first tries every world-th run from position r, then the
others'), so fast and slow ranks finish together and any number of sweeps sharing a folder (on
one machine or several) split the work; each fit runs once. The only collective is one barrier at
the start (every rank has listed the store before anyone writes); at the end each process polls
the store until every run of the sweep is stored, so a rank that finishes early never waits in a
timed collective (issue 16.1). ``make_accelerator(collective_timeout=...)`` sets the gloo timeout
(default one week: long enough never to matter).

Devices (:mod:`rote_hf.protocols.device`): ranks coordinate over gloo (``Accelerator(cpu=True)``) and
each trains on ``cuda:{local_rank % device_count}`` when CUDA is present, so N processes can share
one GPU. A sticky CUDA error stops that rank (its claim is given back, nothing stored for it);
out-of-memory fails that run alone. Rows record the device kind and hardware name; a resume that
would mix CPU and GPU rows of one sweep is refused unless ``allow_mixed_devices``.

Workers end with their launcher: under ``accelerate launch``/``torchrun`` (``TORCHELASTIC_RUN_ID``
set) each worker asks the kernel for SIGTERM when its parent dies (Linux ``PR_SET_PDEATHSIG``) and
checks ``os.getppid()`` between runs, so a ``kill -9`` of the launcher does not leave orphans
finishing the sweep.

CPU launches: ``accelerate launch --cpu --num_processes 2`` silently runs ONE process (stack.md
§7). Use ``accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no
--dynamo_backend no eval_suite/train.py ...``; :func:`check_world` refuses to continue if the
launched world differs from the requested one.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from rote_hf.protocols.device import DeviceFailure, choose_device, device_kind, device_label, warm_up
from rote_hf.results.claims import DEFAULT_LEASE_S, ClaimBook
from rote_hf.results.schema import ResultRow
from rote_hf.results.store import ResultStore, StoredRun
from rote_hf.train.config import RunSpec, SweepConfig, describe, expand
from rote_hf.train.fleet import plan_fleets, run_fleet
from rote_hf.train.suites import execute

LOG = logging.getLogger("rote_hf.train")

#: Default gloo timeout of the launch (seconds): one week, long enough never to fire.
DEFAULT_COLLECTIVE_TIMEOUT_S = 7 * 24 * 3600
MIXED_PRECISION = ("no",)


@dataclass
class LoopReport:
    """What one process did: ids it ran (ok / failed), ids skipped as already stored at start,
    and ``stopped`` (why this rank stopped taking work early; empty when it did not)."""

    rank: int
    world: int
    assigned: list[str] = field(default_factory=list)
    ok: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    skipped: int = 0
    stopped: str = ""


def check_mixed_precision(value: str | None) -> None:
    """``ValueError`` naming ``--mixed_precision`` unless ``value`` is ``no`` (or unset): every fit
    runs in float32 (the papers' setting); bf16/fp16 would change results and are not recorded."""
    if value not in (None, "", *MIXED_PRECISION):
        raise ValueError(f"--mixed_precision must be 'no' (fits run in float32, as the papers'), got {value!r}")


def make_accelerator(cpu: bool | None = None, *, collective_timeout: float | None = None):
    """The process's ``Accelerator``: gloo coordination only (``cpu=True``) with ``collective_timeout``
    seconds (default :data:`DEFAULT_COLLECTIVE_TIMEOUT_S`) for its collectives.

    ``cpu=True`` also makes :func:`run_specs` train on the CPU when CUDA is present; by default the
    training device is :func:`~rote_hf.protocols.device.choose_device` of the local rank. Refuses
    ``--mixed_precision`` other than ``no`` (``ValueError``), however it was set.
    """
    from datetime import timedelta

    from accelerate import Accelerator
    from accelerate.utils import InitProcessGroupKwargs

    timeout = DEFAULT_COLLECTIVE_TIMEOUT_S if collective_timeout is None else collective_timeout
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"--collective-timeout must be a number of seconds > 0, got {collective_timeout!r}")
    check_mixed_precision(os.environ.get("ACCELERATE_MIXED_PRECISION"))
    accelerator = Accelerator(cpu=True, kwargs_handlers=[
        InitProcessGroupKwargs(timeout=timedelta(seconds=float(timeout)))])  # cpu=True: gloo when distributed
    check_mixed_precision(str(accelerator.mixed_precision))
    accelerator.rote_train_device = "cpu" if cpu else None
    return accelerator


def check_world(accelerator: Any, requested: int | None) -> None:
    """``RuntimeError`` when the launched world size differs from ``requested`` (stack.md §7)."""
    if requested is not None and accelerator.num_processes != requested:
        raise RuntimeError(
            f"launched {accelerator.num_processes} process(es) but {requested} were requested; on CPU use "
            "'accelerate launch --multi_gpu --num_processes N --num_machines 1 --mixed_precision no "
            "--dynamo_backend no' (plain '--cpu --num_processes N' runs one process)")


def shard(specs: Sequence[RunSpec], done: set[str], rank: int, world: int) -> tuple[list[RunSpec], int]:
    """This rank's first choices among the unfinished runs: every ``world``-th, starting at ``rank``.

    Finished runs are removed first so that a resumed sweep stays balanced. With claims this is
    only the order in which a rank tries runs (see :func:`deal_order`), not a fixed share.
    """
    todo = [s for s in specs if s.run_id not in done]
    return todo[rank::world], len(specs) - len(todo)


def deal_order(pending: Sequence[RunSpec], rank: int, world: int) -> list[RunSpec]:
    """The order in which ``rank`` tries to claim ``pending``: its own :func:`shard` first, then the rest."""
    return list(pending[rank::world]) + [s for i, s in enumerate(pending) if i % world != rank % world]


def check_devices(specs: Sequence[RunSpec], stored: dict[str, StoredRun], device: Any) -> None:
    """``RuntimeError`` when stored ``ok`` rows of these runs were trained on another device kind."""
    kind = device_kind(device_label(device))
    other = sorted({device_kind(stored[s.run_id].device) for s in specs
                    if s.run_id in stored and stored[s.run_id].status == "ok" and stored[s.run_id].device}
                   - {kind})
    if other:
        raise RuntimeError(
            f"the results folder holds rows of this sweep trained on {', '.join(other)} but this process trains "
            f"on {kind}; GPU and CPU fits are not bit-identical (docs/gpu.md), so use another --results folder "
            "or pass --allow-mixed-devices")


def check_shared_folder(results_dir: str | os.PathLike, accelerator: Any) -> None:
    """``RuntimeError`` unless every process of the launch sees the same ``results_dir``.

    Each rank leaves a marker in ``<results>/.launch/<launch id>/``; after a barrier every rank
    must see all ``world`` markers. On several machines a node-local (e.g. relative) folder fails
    this at start instead of letting each node redo the others' runs.
    """
    import re
    import socket

    world, rank = accelerator.num_processes, accelerator.process_index
    if world == 1:
        return
    launch = os.environ.get("TORCHELASTIC_RUN_ID") or f"port{os.environ.get('MASTER_PORT', '')}"
    folder = Path(results_dir) / ".launch" / re.sub(r"[^A-Za-z0-9_.-]+", "_", launch)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / str(rank)).write_text(socket.gethostname())
    accelerator.wait_for_everyone()
    seen = sum(1 for p in folder.iterdir() if p.name.isdigit() and int(p.name) < world)
    accelerator.wait_for_everyone()  # everyone has counted before the markers go
    (folder / str(rank)).unlink(missing_ok=True)
    for empty in (folder, folder.parent):  # the last one out removes the folders
        try:
            empty.rmdir()
        except OSError:
            break
    if seen < world:
        raise RuntimeError(
            f"--results {results_dir} is not shared by the {world} processes of this launch (this process sees "
            f"{seen}); on several machines pass a folder every machine mounts (docs/gpu.md)")


class _ParentWatch:
    """Ends this worker when its launcher dies (see the module docstring)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.ppid = os.getppid()
        if enabled and sys.platform.startswith("linux"):
            try:
                import ctypes
                import signal

                ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
            except (OSError, AttributeError):
                pass
        self.check()

    def check(self) -> None:
        if self.enabled and (os.getppid() != self.ppid or self.ppid == 1):  # 1: orphaned before we looked
            raise RuntimeError(f"the launcher (parent process {self.ppid}) has ended; this worker stops")


def run_specs(specs: Sequence[RunSpec], results_dir: str | os.PathLike, *, accelerator: Any = None,
              requested_processes: int | None = None, retry_failed: bool = False, progress: bool = True,
              executor: Callable[..., ResultRow] | None = None, device: Any = None, poll_s: float = 5.0,
              lease_s: float = DEFAULT_LEASE_S, allow_mixed_devices: bool = False,
              end_with_parent: bool | None = None, fleet: int = 1) -> LoopReport:
    """Run every unfinished spec once across all processes sharing ``results_dir``; rows go there.

    ``retry_failed`` re-runs runs stored as failed (their row is replaced). ``executor`` replaces
    the suite's executor (``(spec, device) -> ResultRow``). ``device``: the training device
    (default: ``cuda:{local_rank % count}`` or ``cpu``). ``poll_s``: seconds between looks at the
    store while every remaining run is held by another process. ``lease_s``: claim lease
    (:mod:`rote_hf.results.claims`). ``end_with_parent``: stop when the launcher dies (default:
    when launched by torchrun/accelerate). Returns when every run of ``specs`` is stored (or, on a
    rank stopped by a device error, when no live process works on the rest). ``fleet``: the most
    runs trained together as one fleet (:mod:`rote_hf.train.fleet`; 1 = one run at a time; ignored
    with ``executor``); a fleet's members are claimed together and share no result.
    """
    if accelerator is None:
        accelerator = make_accelerator()
    check_world(accelerator, requested_processes)
    ids = [s.run_id for s in specs]
    if len(set(ids)) != len(ids):
        raise ValueError("specs must not contain the same run twice (duplicate run ids)")
    if end_with_parent is None:
        end_with_parent = "TORCHELASTIC_RUN_ID" in os.environ
    watch = _ParentWatch(end_with_parent)
    rank, world = accelerator.process_index, accelerator.num_processes
    if device is None:
        device = getattr(accelerator, "rote_train_device", None) or choose_device(accelerator.local_process_index)
    check_shared_folder(results_dir, accelerator)
    store, claims = ResultStore(results_dir), ClaimBook(results_dir, lease_s=lease_s)
    stored = store.check()  # damaged files are set aside here, so their runs count as not stored
    if not allow_mixed_devices:
        check_devices(specs, stored, device)
    baseline = {rid: run.mtime_ns for rid, run in stored.items()}
    done = {rid for rid, run in stored.items() if not (retry_failed and run.status == "failed")}
    accelerator.wait_for_everyone()  # every rank has read the same listing before anyone writes
    pending, skipped = shard(specs, done, 0, 1)
    report = LoopReport(rank=rank, world=world, skipped=skipped)
    if accelerator.is_main_process:
        LOG.info("%s; %d already stored; %d process(es)", describe(list(specs)), skipped, world)
    warm_up(device)
    bar = _progress(len(pending), rank, progress)

    def stored_now(spec: RunSpec) -> bool:  # stored (or replaced, for a retry) since this sweep started
        try:
            return store.path_of(spec.run_id).stat().st_mtime_ns != baseline.get(spec.run_id)
        except FileNotFoundError:
            return False

    idle_polls = 0
    try:
        while pending:
            ran = False
            fleet_size = 1 if executor is not None else fleet
            for unit in ([] if report.stopped else deal_order(_units(pending, fleet_size), rank, world)):
                watch.check()
                held = [s for s in unit if not stored_now(s) and claims.try_claim(s.run_id)]
                try:
                    held = [s for s in held if not stored_now(s)]  # stored between our look and our claim
                    if not held:
                        continue
                    report.assigned.extend(s.run_id for s in held)
                    try:
                        rows = _execute_unit(held, device, executor)
                    except DeviceFailure as exc:
                        del report.assigned[-len(held):]
                        report.stopped = f"device {device} is unusable ({exc}); this rank stops"
                        LOG.error("rank %d: %s; %d run(s) left to other processes", rank, report.stopped, len(held))
                        break
                    for row in rows:
                        _store(store, row)
                finally:
                    for s in held:
                        claims.release(s.run_id)
                ran = True
                for spec, row in zip(held, rows):
                    (report.ok if row.status == "ok" else report.failed).append(spec.run_id)
                    if row.status == "failed":
                        LOG.warning("run %s failed: %s", spec.run_id, row.error.splitlines()[0])
                    if bar is not None:
                        bar.set_postfix_str(f"{spec.model['name']} {spec.task} {row.status}", refresh=False)
                        bar.update(1)
            pending = [s for s in pending if not stored_now(s)]
            if not pending or ran:
                continue
            # nothing claimable now: every remaining run is held by another process (or this rank stopped)
            if report.stopped:
                live = any(claims.live_holder(s.run_id) is not None for s in pending)
                idle_polls = 0 if live else idle_polls + 1
                if idle_polls >= 3:  # no process works on the rest: nobody will store it
                    break
            watch.check()
            time.sleep(poll_s)
    finally:
        claims.release_all()
        if bar is not None:
            bar.close()
    return report


def _store(store: ResultStore, row: ResultRow) -> None:
    try:
        store.append(row, replace_failed=True)
    except FileExistsError:  # stored by a process that does not take claims (an older version): keep theirs
        LOG.warning("run %s was stored by another process meanwhile; keeping the stored row", row.run_id)


def _units(pending: Sequence[RunSpec], fleet: int) -> list[list[RunSpec]]:
    """The pending runs as units trained together (``fleet`` 1: one run a unit)."""
    if fleet == 1:
        return [[s] for s in pending]

    return plan_fleets(list(pending), fleet)


def _execute_unit(unit: Sequence[RunSpec], device: Any, executor: Callable[..., ResultRow] | None) -> list[ResultRow]:
    """One row per spec of ``unit``, in order (a one-spec unit through :func:`execute`)."""
    if len(unit) == 1:
        return [execute(unit[0], device, executor)]

    return run_fleet(unit, device)


def _progress(total: int, rank: int, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=f"rank {rank}", unit="run", position=rank, leave=True, file=sys.stderr,
                dynamic_ncols=True)


def run_config(config_path: str | os.PathLike, results_dir: str | os.PathLike, **kwargs: Any) -> LoopReport:
    """Load a YAML sweep config, expand it and :func:`run_specs` it."""
    return run_specs(expand(SweepConfig.from_yaml(Path(config_path))), results_dir, **kwargs)
