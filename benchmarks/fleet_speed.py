"""Fleet training speed: K = 1, 10, 50 members per fleet against one run at a time.

For each (difficulty, model, budget) cell, the same members (seeds 0.., learning rates of the
paper grid cycled) are trained for a fixed number of epochs (patience 0: no early stopping, so
every run does the same work) one at a time with ``fit_cogscale`` and as fleets of K with
``fit_cogscale_fleet``. Times are process CPU seconds (one thread; the machine is shared, so
wall time would measure the neighbours), after one untimed warm-up fit per cell.
Reported: CPU seconds per run (a fleet's time / K) and the speed-up
over one run at a time. The one-run time is measured on ``--baseline-runs`` runs (its time per
run does not depend on how many runs there are). ``--profile`` adds the top operators of one
fleet epoch (torch.profiler, self CPU time).

    OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 nice -n 5 python benchmarks/fleet_speed.py --profile
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

LRS = (1e-2, 3e-3, 1e-3, 3e-4, 1e-4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="adding_problem")
    parser.add_argument("--difficulties", nargs="+", default=["small", "medium"])
    parser.add_argument("--models", nargs="+", default=["gru", "lstm", "transformer"])
    parser.add_argument("--budgets", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--fleets", type=int, nargs="+", default=[1, 10, 50])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--baseline-runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--out", default="benchmarks/fleet_speed.json")
    args = parser.parse_args(argv)

    import torch

    from rote_hf.cogscale import build_task
    from rote_hf.protocols.cogscale import CogScaleData, CogScaleProtocol, fit_cogscale
    from rote_hf.protocols.fleet import CogScaleMember, fit_cogscale_fleet
    from rote_hf.suites.execution import model_builder

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    n_members = max(args.fleets + [args.baseline_runs])
    rows = []
    for difficulty in args.difficulties:
        datas = [CogScaleData.from_build(build_task(args.task, difficulty, seed=s)) for s in range(10)]
        for model in args.models:
            for budget in args.budgets:
                d0 = datas[0]
                build = model_builder({"name": model, "preset": "cogscale-paper", "budget": budget}, d0.input_size,
                                      d0.output_size)
                members = [CogScaleMember(datas[i % 10], CogScaleProtocol(learning_rate=LRS[i % 5], max_epochs=args.epochs,
                                                                          patience=0), i % 10) for i in range(n_members)]
                fit_cogscale(build, members[0].data, members[0].protocol, seed=0)  # warm-up (lazy imports, kernels)
                t0 = time.process_time()
                for m in members[:args.baseline_runs]:
                    fit_cogscale(build, m.data, m.protocol, seed=m.seed)
                one = (time.process_time() - t0) / args.baseline_runs
                row = {"difficulty": difficulty, "model": model, "budget": budget, "one_run_s": one}
                for k in args.fleets:
                    t0 = time.process_time()
                    fit_cogscale_fleet(build, members[:k])
                    per_run = (time.process_time() - t0) / k
                    row[f"fleet{k}_s"] = per_run
                    row[f"speedup{k}"] = one / per_run
                rows.append(row)
                print(json.dumps(row), flush=True)
                Path(args.out).write_text(json.dumps({"args": vars(args), "rows": rows}, indent=1))
    print(table(rows, args.fleets))
    if args.profile:
        print(profile(args.task, args.epochs))
    return 0


def table(rows: list[dict], fleets: list[int]) -> str:
    head = "| difficulty | model | budget | one run (s/run) | " + " | ".join(f"K={k} s/run (x)" for k in fleets) + " |"
    lines = [head, "|" + "---|" * (4 + len(fleets))]
    for r in rows:
        cells = " | ".join(f"{r[f'fleet{k}_s']:.3f} ({r[f'speedup{k}']:.1f}x)" for k in fleets)
        lines.append(f"| {r['difficulty']} | {r['model']} | {r['budget'] // 1000}k | {r['one_run_s']:.3f} | {cells} |")
    return "\n".join(lines)


def profile(task: str, epochs: int, model: str = "gru", budget: int = 1000, k: int = 50) -> str:
    """Top operators (self CPU time) of a K-member fleet fit of ``epochs`` epochs on the small task."""
    import torch
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    from rote_hf.cogscale import build_task
    from rote_hf.protocols.cogscale import CogScaleData, CogScaleProtocol
    from rote_hf.protocols.fleet import CogScaleMember, fit_cogscale_fleet
    from rote_hf.suites.execution import model_builder

    datas = [CogScaleData.from_build(build_task(task, "small", seed=s)) for s in range(10)]
    build = model_builder({"name": model, "preset": "cogscale-paper", "budget": budget}, datas[0].input_size,
                          datas[0].output_size)
    members = [CogScaleMember(datas[i % 10], CogScaleProtocol(learning_rate=LRS[i % 5], max_epochs=epochs, patience=0),
                              i % 10) for i in range(k)]
    with torch_profile(activities=[ProfilerActivity.CPU]) as prof:
        fit_cogscale_fleet(build, members)
    return prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=15)


if __name__ == "__main__":
    sys.exit(main())
