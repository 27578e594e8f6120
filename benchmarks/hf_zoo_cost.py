"""CPU cost of ``eval_suite/configs/hf_zoo.yaml``, estimated from a measured subset.

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python benchmarks/hf_zoo_cost.py

For every model and task of the config, one fit (seed 0, learning rate 1e-3) runs
``EPOCHS`` epochs (patience off) through the suite's own executor; its ``time_per_epoch_s``
(training epoch + validation, one CPU thread) is multiplied by the mean number of epochs that
CogScale's six trained baselines needed on that task at small difficulty and 10k parameters in
our shipped reproduction rows (``rote_hf/results/ours/cogscale_paper``: early stopping, patience
10, at most 200), and by the 15 fits (5 learning rates x 3 seeds) per model and task.
Writes ``benchmarks/hf_zoo_cost.md``.
"""

from __future__ import annotations

import dataclasses
import json
import platform
import time
from pathlib import Path

import torch

from rote_hf.results.shipped import shipped_frame
from rote_hf.suites import get_suite
from rote_hf.train.config import SweepConfig, expand

HERE = Path(__file__).parent
CONFIG = HERE.parent / "eval_suite" / "configs" / "hf_zoo.yaml"
OUT = HERE / "hf_zoo_cost.md"
EPOCHS = 3
FITS_PER_CELL = 15


def baseline_epochs() -> dict[str, float]:
    """Mean epochs per task of the trained baselines at small difficulty, 10k (shipped rows)."""
    df = shipped_frame("cogscale_paper")
    small = df["task_params"].map(lambda t: json.loads(t)["difficulty"] == "small")
    d = df[small & (df["budget"] == "10k") & (df["model"] != "esn")]
    return {k: float(v) for k, v in d.groupby("task")["epochs"].mean().items()}


def main() -> None:
    torch.set_num_threads(1)
    epochs = baseline_epochs()
    specs = [s for s in expand(SweepConfig.from_yaml(CONFIG))
             if s.task_params["seed"] == 0 and s.protocol["learning_rate"] == 1e-3]
    suite = get_suite("cogscale")
    rows, total = [], 0.0
    for spec in specs:
        spec = dataclasses.replace(spec, settings=dataclasses.replace(spec.settings, max_epochs=EPOCHS, patience=0))
        start = time.perf_counter()
        row = suite.execute(spec, "cpu")
        wall = time.perf_counter() - start
        tpe = row.time_per_epoch_s if row.status == "ok" else None
        est = None if tpe is None else tpe * epochs[spec.task] * FITS_PER_CELL
        total += est or 0.0
        rows.append((spec.model["name"], spec.task, row.param_count, tpe, epochs[spec.task], est, row.error))
        print(spec.model["name"], spec.task, row.status, tpe, f"{wall:.1f}s", flush=True)
    by_model: dict[str, float] = {}
    for model, _, _, _, _, est, _ in rows:
        by_model[model] = by_model.get(model, 0.0) + (est or 0.0)
    lines = [
        "# Cost of `eval_suite/configs/hf_zoo.yaml` (estimated from a measured subset)",
        "",
        f"Produced by `PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 10 python benchmarks/hf_zoo_cost.py` "
        f"({platform.machine()} CPU, one thread per fit, on a machine shared with other jobs: times are upper-ish).",
        f"Method: one fit per model and task (seed 0, LR 1e-3, {EPOCHS} epochs, patience off) gives the seconds per "
        "epoch; x the mean epochs the six trained baselines needed on that task (small, 10k, shipped reproduction "
        f"rows) x {FITS_PER_CELL} fits (5 LRs x 3 seeds).",
        "",
        f"**Estimated total: {total / 3600:.1f} CPU-hours** for {len(specs) * FITS_PER_CELL:,} fits "
        "(one fit per CPU thread; `--processes N` divides the wall time by about N).",
        "",
        "| model | CPU-hours |",
        "|---|---|",
        *[f"| {m} | {h / 3600:.1f} |" for m, h in sorted(by_model.items(), key=lambda kv: -kv[1])],
        "",
        "| model | task | params | s / epoch | baseline mean epochs | est. CPU-hours (15 fits) |",
        "|---|---|---|---|---|---|",
    ]
    for model, task, params, tpe, ep, est, error in rows:
        if tpe is None:
            lines.append(f"| {model} | {task} | | failed: {error} | {ep:.1f} | |")
        else:
            lines.append(f"| {model} | {task} | {params:,} | {tpe:.3f} | {ep:.1f} | {est / 3600:.2f} |")
    lines.append("")
    OUT.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
