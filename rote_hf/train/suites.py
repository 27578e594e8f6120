"""Run one :class:`~rote_hf.suites.base.RunSpec`: ask its suite unit, record failures as rows.

The suite units (:mod:`rote_hf.suites`) own data loading and the executors (with the pieces
every executor shares, :mod:`rote_hf.suites.execution`); this module holds the failed row and
:func:`execute`, which never lets one run crash a sweep.
"""

from __future__ import annotations

import traceback
from typing import Any, Callable

from rote_hf.protocols.device import DeviceFailure, device_label, environment, is_sticky_device_error
from rote_hf.results.schema import ResultRow
from rote_hf.suites import get_suite
from rote_hf.suites.base import RunSpec
from rote_hf.suites.execution import provenance


def run_rote(spec: RunSpec, device: Any = "cpu", *, data: Any = None, build: Callable[[], Any] | None = None) -> ResultRow:
    """One ROTE fit (either track) -> one row; ``data``/``build`` bring prepared windows or a model builder."""
    return get_suite(spec.suite).execute(spec, device, data=data, build=build)


def run_cogscale(spec: RunSpec, device: Any = "cpu", *, data: Any = None,
                 build: Callable[[], Any] | None = None) -> ResultRow:
    """One CogScale fit (gradient model or ESN) -> one row."""
    return get_suite("cogscale").execute(spec, device, data=data, build=build)


def failed_row(spec: RunSpec, exc: BaseException, device: Any = "cpu") -> ResultRow:
    """The row recording that ``spec`` failed with ``exc`` (type, message and the last frames)."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-3))
    unit = get_suite(spec.suite)
    return ResultRow(
        run_id=spec.run_id, suite=spec.suite, task=spec.task, task_params=dict(spec.task_params),
        run=spec.run, protocol=unit.protocol_name, settings={**spec.protocol, "environment": environment()}, status="failed",
        error=f"{type(exc).__name__}: {exc}\n{tb}", device=device_label(device), model=spec.model["name"],
        model_config={k: v for k, v in spec.model.items() if k != "name"},
        budget=unit.budget(spec.model), **unit.spec_columns(spec), **provenance(spec, ""),
    )


def execute(spec: RunSpec, device: Any = "cpu", executor: Callable[..., ResultRow] | None = None) -> ResultRow:
    """Run ``spec`` (with ``executor`` or its suite's); any exception (divergence, a missing
    package, bad data, CUDA out-of-memory) becomes a failed row, except a sticky CUDA error, which
    raises :class:`DeviceFailure`: the device is unusable, so this run (and any later one here)
    was never really tried."""
    try:
        fn = executor or get_suite(spec.suite).execute
        return fn(spec, device)
    except Exception as exc:  # noqa: BLE001 — a failed run must be recorded, not crash the sweep
        if is_sticky_device_error(exc):
            raise DeviceFailure(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from exc
        return failed_row(spec, exc, device)


__all__ = ["execute", "failed_row", "run_cogscale", "run_rote"]
