"""ROTE fleet speed: does ``fit_rote_fleet`` pay on this CPU at the sizes of ``rote_paper``?

The members are fits of the ROTE reproduction slice's kind: one model (``rote-paper`` preset), one
alphabet size (n = 4 by default), seed 0, complexities 10..90 and runs 0, 1 cycled (all of one n
share the window shapes: 3,500 symbols cut into windows of 100, so a fleet may mix complexities).
Each member trains a fixed number of epochs (no early stopping: ``patience`` and
``stopping_loss`` off, so every fit does the same work), first one at a time with ``fit_rote``,
then as fleets of K with ``fit_rote_fleet``. Times are process CPU seconds per fit (a fleet's
time / K) on one thread, after one untimed warm-up fit per model; they include building the
model, the per-epoch validation, the test split and the 100-symbol rollout. The machine is shared,
so wall time would measure the neighbours; CPU time of a one-thread process does not (caches are
still shared).

    OMP_NUM_THREADS=1 python benchmarks/rote_fleet_speed.py --out benchmarks/rote_fleet_speed.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["gru", "lstm", "transformer-ed"],
                        help="zoo names with a fleet path (default: the three of the ROTE slice)")
    parser.add_argument("--symbols", type=int, default=4, help="alphabet size n of the seeds (2, 4, 6 or 8)")
    parser.add_argument("--fleets", type=int, nargs="+", default=[2, 5, 10], help="fleet sizes K")
    parser.add_argument("--epochs", type=int, default=1, help="epochs per fit (fixed: no early stopping)")
    parser.add_argument("--baseline-runs", type=int, default=2, help="fits timed one at a time")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "rote_fleet_speed.json"))
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.baseline_runs < 1 or min(args.fleets) < 1:
        parser.error("--epochs, --baseline-runs and every --fleets value must be >= 1")

    import torch

    from rote_hf.files import write_atomic
    from rote_hf.protocols.fleet import RoteMember, fit_rote_fleet
    from rote_hf.protocols.rote import fit_rote
    from rote_hf.suites import get_suite
    from rote_hf.suites.execution import model_builder
    from rote_hf.train.config import SweepConfig, expand
    from rote_hf.zoo.fleet import FLEET_FAMILIES

    unknown = [m for m in args.models if m not in FLEET_FAMILIES]
    if unknown:
        parser.error(f"--models: {', '.join(unknown)} have no fleet path; choose from {', '.join(FLEET_FAMILIES)}")
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    suite = get_suite("rote")
    specs = [s for s in expand(SweepConfig.from_yaml(ROOT / "eval_suite" / "configs" / "rote_paper.yaml"))
             if s.task.startswith(f"n{args.symbols}-") and s.task_params.get("seed_index") == 0]
    if not specs:
        parser.error(f"--symbols must be one of 2, 4, 6, 8, got {args.symbols}")
    rows = []
    for model in args.models:
        mine = [s for s in specs if s.model["name"] == model]
        datas = {s.task: suite.load_data(s) for s in mine}
        protocol = dataclasses.replace(suite.protocol_of(mine[0]), max_epochs=args.epochs, patience=args.epochs + 1,
                                       stopping_loss=0.0)
        n = len(next(iter(datas.values())).alphabet)
        build = model_builder(mine[0].model, n, n)
        need = max(args.fleets + [args.baseline_runs])
        members = [RoteMember(datas[mine[i % len(mine)].task], protocol, mine[i % len(mine)].run) for i in range(need)]
        fit_rote(build, members[0].data, dataclasses.replace(protocol, max_epochs=1), run=0)  # warm-up
        t0 = time.process_time()
        for m in members[:args.baseline_runs]:
            fit_rote(build, m.data, m.protocol, run=m.run)
        one = (time.process_time() - t0) / args.baseline_runs
        row = {"model": model, "symbols": args.symbols, "params": sum(p.numel() for p in build().parameters()),
               "one_run_s": one}
        rows.append(row)
        for k in args.fleets:  # written after each fleet: a larger K may not fit in memory
            t0 = time.process_time()
            fit_rote_fleet(build, members[:k])
            row[f"fleet{k}_s"] = (time.process_time() - t0) / k
            row[f"speedup{k}"] = one / row[f"fleet{k}_s"]
            row["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # so far, Linux: KiB
            print(json.dumps(row), flush=True)
            write_atomic(Path(args.out), (json.dumps({"args": vars(args), "torch": torch.__version__,
                                                      "cpu_capability": torch.backends.cpu.get_cpu_capability(),
                                                      "rows": rows}, indent=1) + "\n").encode())
    print(table(rows, args.fleets))
    return 0


def table(rows: list[dict], fleets: list[int]) -> str:
    """The Markdown table of ``rows``: CPU s per fit one at a time and per fleet size (speed-up)."""
    head = "| model | n | parameters | one at a time (s/fit) | " + " | ".join(f"K={k} s/fit (x)" for k in fleets) + " |"
    lines = [head, "|" + "---|" * (4 + len(fleets))]
    for r in rows:
        cells = " | ".join(f"{r[f'fleet{k}_s']:.1f} ({r[f'speedup{k}']:.2f}x)" if f"fleet{k}_s" in r else "–"
                           for k in fleets)
        lines.append(f"| {r['model']} | {r['symbols']} | {r['params']:,} | {r['one_run_s']:.1f} | {cells} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
