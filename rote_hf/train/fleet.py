"""Fleets in a sweep: which run specs train together (:func:`plan_fleets`) and how a planned
unit runs (:func:`run_fleet`), writing the rows the one-run executor writes.

The fleet fits themselves (:mod:`rote_hf.protocols.fleet`) are protocols; the CogScale fleet
(:func:`fit_cogscale_fleet`, :class:`CogScaleMember`) is re-exported here, where
the 0.1 documentation named them.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Sequence

from rote_hf.protocols.fleet import CogScaleMember, data_shapes, fit_cogscale_fleet
from rote_hf.protocols.measure import measure
from rote_hf.suites import get_suite
from rote_hf.suites.cogscale import FITTED_MODELS
from rote_hf.suites.execution import model_builder
from rote_hf.train.suites import execute, failed_row

#: ``--fleet`` default: the most members trained together (the 5 LRs x 10 seeds of one grid cell make 2 fleets).
DEFAULT_FLEET_SIZE = 25


def fleet_key(spec: Any) -> tuple | None:
    """What members of one fleet share (None: the spec always runs alone).

    CogScale gradient fits group by task parameters except the seed, the model entry, and the
    protocol except the learning rate; data shapes are split again after the data are built
    (:func:`run_fleet`), so members of different architectures or shapes never share a fleet.
    """
    if spec.suite != "cogscale" or spec.model["name"] in FITTED_MODELS:
        return None
    task = {k: v for k, v in spec.task_params.items() if k != "seed"}
    protocol = {k: v for k, v in spec.protocol.items() if k != "learning_rate"}
    return (spec.suite, spec.task, json.dumps([task, dict(spec.model), protocol], sort_keys=True, default=str))


def plan_fleets(specs: Sequence[Any], max_size: int) -> list[list[Any]]:
    """Specs grouped into fleets of at most ``max_size`` members sharing :func:`fleet_key`, in first-seen order.

    ``max_size`` 1 gives one spec per unit (the one-run path). The grouping never changes a
    run's id or its result, only which runs are computed together.
    """
    if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
        raise ValueError(f"fleet size must be an integer >= 1, got {max_size!r}")
    groups: dict[Any, list[Any]] = {}
    units: list[list[Any]] = []
    for n, spec in enumerate(specs):
        key = fleet_key(spec) if max_size > 1 else None
        if key is None:
            units.append([spec])
            continue
        group = groups.get(key)
        if group is None or len(group) >= max_size:
            group = groups[key] = []
            units.append(group)
        group.append(spec)
    return units


def run_fleet(specs: Sequence[Any], device: Any = "cpu") -> list[Any]:
    """Execute a planned unit; one :class:`~rote_hf.results.schema.ResultRow` per spec, in order.

    A one-spec unit goes through :func:`rote_hf.train.suites.execute` (today's one-run path).
    Otherwise the data of every spec are built, split by array shapes, and each part is fitted
    with :func:`fit_cogscale_fleet`; the rows are those the one-run executor writes. A member
    that diverged becomes a failed row alone; if anything else fails while building or fitting
    a fleet, its runs fall back to the one-run path, one by one (each with its own failure row).
    """
    specs = list(specs)
    if len(specs) == 1 or fleet_key(specs[0]) is None:
        return [execute(s, device) for s in specs]
    rows: dict[int, Any] = {}
    try:
        parts: dict[tuple, list[tuple[int, Any, Any]]] = {}
        unit = get_suite("cogscale")
        for n, spec in enumerate(specs):
            data = unit.load_data(spec)
            parts.setdefault(data_shapes(data), []).append((n, spec, data))
        for part in parts.values():
            rows.update(_run_part(part, device))
    except Exception as exc:  # noqa: BLE001 — fall back to the one-run path, which records each failure itself
        logging.getLogger("rote_hf.train").warning("fleet of %d runs failed (%s: %s); running them one by one",
                                                   len(specs), type(exc).__name__, exc)
    return [rows[n] if n in rows else execute(s, device) for n, s in enumerate(specs)]


def _run_part(part: Sequence[tuple[int, Any, Any]], device: Any) -> dict[int, Any]:
    unit = get_suite("cogscale")
    _, spec0, data0 = part[0]
    build = model_builder(dict(spec0.model), data0.input_size, data0.output_size)
    members = [CogScaleMember(data, unit.protocol_of(spec), int(spec.task_params["seed"]))
               for _, spec, data in part]
    with measure(device) as m:
        outcomes = fit_cogscale_fleet(build, members, device=device)
    rows = {}
    for (n, spec, data), member, outcome in zip(part, members, outcomes):
        if isinstance(outcome, Exception):
            rows[n] = failed_row(spec, outcome, device)
        else:
            model, fit = outcome
            rows[n] = unit.row(spec, data, model, fit, member.protocol, m, device)
    return rows


__all__ = ["CogScaleMember", "DEFAULT_FLEET_SIZE", "fit_cogscale_fleet", "fleet_key", "plan_fleets", "run_fleet"]
