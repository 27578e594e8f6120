"""Re-run a sample of stored runs on this machine and say how exactly they come back: the
``rote-hf results --verify-sample N`` behind issue 30's "exactness stated as measured".

A run is defined by its sweep config (its run id is the hash of what defines it), so a stored row
is re-run by expanding its config (``eval_suite/configs/<config_name>.yaml`` or ``--config``),
finding the spec with the row's run id and handing it to the normal one-run executor
(:func:`rote_hf.train.suites.execute`, on the CPU). Each re-run is compared with the stored row:

- ``equal 1e-6``: every metric the two rows share within 1e-6 (score units) and the same number of
  epochs (the stopping epoch);
- ``equal 1e-3``: within 1e-3, same epochs;
- ``different``: anything else (another trajectory, or a re-run that failed).

The arithmetic of a CPU fit depends on torch's CPU kernel path (``cpu_capability``: AVX2,
AVX512, ...) and on the intra-op thread count, which rows record since issue 30 in
``settings["environment"]`` (:func:`rote_hf.protocols.device.environment`). The report's first
line compares the recorded capability with this machine's (``not recorded`` for older rows).
Each re-run uses the row's recorded thread count, or ``threads`` when given, or 1 when the row
records none (the documented sweeps ran one thread per process). A row that was trained in a
fleet is re-run alone (fleet members equal their one-run fits to float rounding:
``benchmarks/reproducibility.md`` measures both, and another thread count).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from rote_hf.protocols.device import environment
from rote_hf.reports.export import default_config_path
from rote_hf.results.aggregate import decode_metrics
from rote_hf.suites.base import RunSpec
from rote_hf.train.config import SweepConfig, expand, select

VERDICTS = ("equal 1e-6", "equal 1e-3", "different")
TOLERANCES = (1e-6, 1e-3)
DEFAULT_THREADS = 1
"""Intra-op threads of a re-run whose row records none (the shipped sweeps ran with one thread)."""


@dataclass(frozen=True)
class Verified:
    """One re-run against its stored row: ``max_abs_diff`` over the shared metrics (NaN in both
    counts as equal; inf when one side is not finite or the re-run failed), the epochs of both,
    the recorded and used thread counts, the recorded CPU capability (``""``: not recorded) and
    the ``verdict`` (one of :data:`VERDICTS`)."""

    run_id: str
    model: str
    task: str
    config: str
    budget: str
    learning_rate: float | None
    seed: int | None
    score_stored: float
    score_now: float
    max_abs_diff: float
    epochs_stored: int | None
    epochs_now: int | None
    threads: int
    capability: str
    verdict: str
    error: str = ""


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


def metric_gap(stored: Mapping[str, Any], now: Mapping[str, Any]) -> float:
    """The largest ``|stored - now|`` over the metrics both hold (NaN in both: 0; one side not
    finite: inf); 0 when they share none."""
    gap = 0.0
    for key in sorted(set(stored) & set(now)):
        a, b = _number(stored[key]), _number(now[key])
        if math.isnan(a) and math.isnan(b):
            continue
        if not (math.isfinite(a) and math.isfinite(b)):
            if a != b:
                return math.inf
            continue
        gap = max(gap, abs(a - b))
    return gap


def verdict(gap: float, same_epochs: bool) -> str:
    """:data:`VERDICTS` entry of a re-run with metric gap ``gap`` (see the module docstring)."""
    if same_epochs and gap <= TOLERANCES[0]:
        return VERDICTS[0]
    if same_epochs and gap <= TOLERANCES[1]:
        return VERDICTS[1]
    return VERDICTS[2]


def stratified_sample(rows, n: int, seed: int, by: str | Sequence[str] = "model") -> list[int]:
    """Positions of ``n`` rows of ``rows`` (a frame with the ``by`` column or columns), spread over
    the strata (the distinct values of ``by``; default the model): the strata in a seeded random
    order take turns, each giving its next row in a seeded random order, until ``n`` are drawn (all
    rows when ``n >= len(rows)``). Deterministic for a seed. ``by=("model", "learning_rate")``
    gives every (model, learning rate) pair its share."""
    import numpy as np

    columns = [by] if isinstance(by, str) else list(by)
    rng = np.random.default_rng(seed)
    strata: dict[tuple, list[int]] = {}
    for pos, key in enumerate(zip(*(rows[c] for c in columns))):
        strata.setdefault(tuple(str(v) for v in key), []).append(pos)
    queues = [list(rng.permutation(strata[key])) for key in sorted(strata)]
    queues = [queues[i] for i in rng.permutation(len(queues))]
    picked: list[int] = []
    while len(picked) < min(n, len(rows)):
        for q in queues:
            if q and len(picked) < n:
                picked.append(int(q.pop(0)))
    return picked


def specs_by_run_id(config_names: Iterable[str], config: str | os.PathLike | None = None,
                    only: Sequence[str] = ()) -> tuple[set[str], dict[str, RunSpec]]:
    """Run ids of every run of the sweep configs ``config_names`` (each read from
    ``eval_suite/configs/<name>.yaml``, or from ``config`` when given), and the runs passing the
    ``only`` filters (as ``train.py --only``) by run id."""
    every: set[str] = set()
    specs: dict[str, RunSpec] = {}
    for name in sorted(set(config_names)):
        path = Path(config) if config is not None else default_config_path(name)
        if not path.is_file():
            raise FileNotFoundError(f"no sweep config for the rows of config {name!r} at {path}: pass --config YAML")
        expanded = expand(SweepConfig.from_yaml(path))
        every.update(s.run_id for s in expanded)
        for spec in select(expanded, list(only)) if only else expanded:
            specs[spec.run_id] = spec
    return every, specs


def rerun(spec: RunSpec, threads: int):
    """Run ``spec`` alone through the one-run executor on the CPU with ``threads`` intra-op threads
    (the process's thread count is restored afterwards); returns its ``ResultRow``."""
    import torch

    from rote_hf.train.suites import execute  # lazy: imports torch and the zoo

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return execute(spec, "cpu")
    finally:
        torch.set_num_threads(before)


def verify_sample(rows, n: int, *, seed: int = 0, only: Sequence[str] = (), config: str | os.PathLike | None = None,
                  threads: int | None = None) -> dict[str, Any]:
    """Re-run ``n`` of the ``ok`` rows of ``rows`` (a frame of stored rows of ours, JSON columns as
    text or dicts), drawn by :func:`stratified_sample` among those whose run is in their sweep
    config (and passes the ``only`` filters, as ``train.py --only``). Returns ``{"pool", "asked",
    "results": [Verified, ...], "stored", "not_in_config", "only", "capability_here"}``: ``stored``
    ok rows of ours, ``not_in_config`` of them no run of their config, ``pool`` the rows drawn from."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"--verify-sample must be an integer >= 1, got {n!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"--threads must be an integer >= 1, got {threads!r}")
    ok = rows[(rows["status"] == "ok") & (rows["source"] == "ours")] if len(rows) else rows
    if not len(ok):
        raise ValueError("there are no rows of ours to verify (nothing shipped, or --results DIR holds no ok run)")
    every, specs = specs_by_run_id(ok["config_name"], config, only)
    in_config = ok["run_id"].isin(every).to_numpy()
    drawn = ok["run_id"].isin(set(specs)).to_numpy()
    pool = decode_metrics(ok[drawn]).reset_index(drop=True)
    if not len(pool):
        raise ValueError("no stored row is a run of its sweep config" + (" passing --only" if only else ""))
    here = environment()["cpu_capability"]
    results = []
    for pos in stratified_sample(pool, n, seed):
        row = pool.iloc[pos]
        use = threads or recorded_threads(row)
        results.append(compare(row, rerun(specs[row["run_id"]], use), use))
    return {"stored": len(ok), "pool": len(pool), "asked": n, "results": results,
            "not_in_config": int((~in_config).sum()), "only": list(only), "capability_here": here}


def _json(text: Any) -> dict:
    import json

    return json.loads(text) if isinstance(text, str) and text else {}


def recorded_environment(row: Mapping[str, Any]) -> dict:
    """``settings["environment"]`` of a stored row (settings as JSON text or a dict); ``{}`` when not recorded."""
    settings = row["settings"] if isinstance(row["settings"], dict) else _json(row["settings"])
    return dict(settings.get("environment") or {})


def recorded_threads(row: Mapping[str, Any]) -> int:
    """The intra-op thread count a stored row records, or :data:`DEFAULT_THREADS` when it records none."""
    return int(recorded_environment(row).get("threads") or DEFAULT_THREADS)


def compare(row: Mapping[str, Any], new: Any, threads: int) -> Verified:
    """A re-run ``new`` (a ``ResultRow``, ok or failed) against its stored ``row`` (a stored row with
    its ``metrics`` decoded, e.g. a row of :func:`~rote_hf.results.aggregate.decode_metrics`),
    re-run with ``threads`` intra-op threads: the metric gap, both stopping epochs and the verdict."""
    stored_metrics = row["metrics"] or {}
    if new.status != "ok":
        gap, epochs_now, score_now, error = math.inf, None, math.nan, (new.error.splitlines() or [""])[0]
    else:
        gap, epochs_now, score_now, error = metric_gap(stored_metrics, new.metrics), new.epochs, _number(new.score), ""
    epochs_stored = None if row["epochs"] is None or row["epochs"] != row["epochs"] else int(row["epochs"])
    return Verified(
        run_id=row["run_id"], model=row["model"], task=row["task"], config=row["config"], budget=row["budget"],
        learning_rate=None if row["learning_rate"] != row["learning_rate"] else row["learning_rate"],
        seed=None if row["data_seed"] != row["data_seed"] else int(row["data_seed"]),
        score_stored=_number(row["score"]), score_now=score_now, max_abs_diff=gap, epochs_stored=epochs_stored,
        epochs_now=epochs_now, threads=threads, capability=str(recorded_environment(row).get("cpu_capability") or ""),
        verdict=verdict(gap, epochs_stored == epochs_now), error=error)


def capability_line(results: Sequence[Verified], here: str) -> str:
    """The report's first line: the recorded CPU capability of the re-run rows against this machine's."""
    recorded = [r.capability for r in results if r.capability]
    missing = len(results) - len(recorded)
    differ = sorted({c for c in recorded if c != here})
    if differ:
        return (f"CPU capability DIFFERS: this machine runs {here}; {sum(c != here for c in recorded)} of the "
                f"{len(results)} rows were trained on {', '.join(differ)}"
                + (f" ({missing} not recorded)" if missing else "")
                + ": expect float-level, not bit-level, agreement")
    if not recorded:
        return (f"CPU capability: this machine runs {here}; the rows' capability was not recorded (rows older than "
                "the field): bit-identical results are expected only where it was the same")
    return (f"CPU capability: {here} here and in the {len(recorded)} rows that record it"
            + (f" ({missing} not recorded)" if missing else ""))


def text_report(outcome: Mapping[str, Any]) -> str:
    """The console report of :func:`verify_sample`: the capability line first, then the sample,
    one line per run, and the totals per verdict."""
    results = outcome["results"]
    lines = [capability_line(results, outcome["capability_here"])]
    if outcome["asked"] > outcome["pool"]:
        lines.append(f"asked for {outcome['asked']} runs, but only {outcome['pool']} can be drawn: re-running all of them")
    pool = (f"the {outcome['pool']} of {outcome['stored']} stored runs passing --only {' '.join(outcome['only'])}"
            if outcome["only"] else f"{outcome['pool']} stored runs")
    lines.append(f"re-ran {len(results)} of {pool} (stratified by model) with the one-run executor on this machine's "
                 "CPU" + (f"; {outcome['not_in_config']} stored rows are not runs of their config and were not drawn"
                          if outcome["not_in_config"] else ""))
    for r in results:
        lr = "–" if r.learning_rate is None else f"{r.learning_rate:g}"
        lines.append(f"  {r.verdict:<10}  {r.model} {r.task} {r.config} {r.budget} lr={lr} seed={r.seed}: "
                     f"score {r.score_stored:.6g} -> {r.score_now:.6g}, max |diff| {r.max_abs_diff:.3g}, "
                     f"epochs {r.epochs_stored} -> {r.epochs_now}, threads {r.threads}, capability "
                     f"{r.capability or 'not recorded'}" + (f" ({r.error})" if r.error else ""))
    counts = {v: sum(r.verdict == v for r in results) for v in VERDICTS}
    lines.append("total: " + ", ".join(f"{counts[v]} {v}" for v in VERDICTS) + f" (of {len(results)})")
    return "\n".join(lines)


__all__ = ["DEFAULT_THREADS", "TOLERANCES", "VERDICTS", "Verified", "capability_line", "compare", "metric_gap",
           "recorded_environment", "recorded_threads", "rerun", "specs_by_run_id", "stratified_sample",
           "text_report", "verdict", "verify_sample"]
