"""Agreement of fleet training with the one-run path over many CogScale runs.

For every (task, model) cell, all (seed, learning rate) runs are fitted once by
``fit_cogscale`` (one at a time) and once as fleets of ``--fleet`` members
(``fit_cogscale_fleet``); a run agrees when its stopping epoch and best epoch are equal and its
test and best validation scores differ by at most 1e-5. Writes a JSON of every run and prints
a Markdown table (the content of benchmarks/fleet_equality.md).

    OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 nice -n 5 python benchmarks/fleet_equality.py \
        --out benchmarks/fleet_equality.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TOL = 1e-5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", nargs="+", default=["adding_problem", "discrete_postcasting", "cross_situation",
                                                       "continuous_postcasting"])
    parser.add_argument("--models", nargs="+", default=["gru", "lstm", "transformer"])
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--difficulty", default="small")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0..n-1")
    parser.add_argument("--lrs", type=float, nargs="+", default=[1e-2, 3e-3, 1e-3, 3e-4, 1e-4])
    parser.add_argument("--max-epochs", type=int, default=30)
    parser.add_argument("--patience", type=int, default=10)
    parser.add_argument("--fleet", type=int, default=25)
    parser.add_argument("--out", default="benchmarks/fleet_equality.json")
    args = parser.parse_args(argv)

    import torch

    from rote_hf.cogscale import build_task
    from rote_hf.protocols.cogscale import CogScaleData, CogScaleProtocol, fit_cogscale
    from rote_hf.protocols.fleet import CogScaleMember, fit_cogscale_fleet
    from rote_hf.suites.execution import model_builder

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    records = []
    for task in args.tasks:
        datas = {s: CogScaleData.from_build(build_task(task, args.difficulty, seed=s)) for s in range(args.seeds)}
        d0 = datas[0]
        for model in args.models:
            build = model_builder({"name": model, "preset": "cogscale-paper", "budget": args.budget}, d0.input_size,
                                  d0.output_size)
            members = [CogScaleMember(datas[s], CogScaleProtocol(learning_rate=lr, max_epochs=args.max_epochs,
                                                                 patience=args.patience), s)
                       for s in range(args.seeds) for lr in args.lrs]
            t0 = time.perf_counter()
            fleet = []
            for i in range(0, len(members), args.fleet):
                fleet += fit_cogscale_fleet(build, members[i:i + args.fleet])
            t_fleet = time.perf_counter() - t0
            t0 = time.perf_counter()
            for m, f in zip(members, fleet):
                try:
                    _, one = fit_cogscale(build, m.data, m.protocol, seed=m.seed)
                except ValueError as exc:
                    one = exc
                rec = {"task": task, "model": model, "seed": m.seed, "lr": m.protocol.learning_rate,
                       "category": d0.category}
                if isinstance(one, Exception) or isinstance(f, Exception):
                    rec.update(failed_one=isinstance(one, Exception), failed_fleet=isinstance(f, Exception),
                               agree=isinstance(one, Exception) and isinstance(f, Exception) and str(one) == str(f))
                else:
                    fit = f[1]
                    d_test = abs(fit.metrics["test_score"] - one.metrics["test_score"])
                    d_val = abs(fit.metrics["best_val_score"] - one.metrics["best_val_score"])
                    rec.update(epochs_one=one.epochs, epochs_fleet=fit.epochs, best_one=one.best_epoch,
                               best_fleet=fit.best_epoch, test_one=one.metrics["test_score"],
                               test_fleet=fit.metrics["test_score"], d_test=d_test, d_val=d_val,
                               agree=one.epochs == fit.epochs and one.best_epoch == fit.best_epoch
                               and d_test <= TOL and d_val <= TOL)
                records.append(rec)
            t_one = time.perf_counter() - t0
            cell = [r for r in records if r["task"] == task and r["model"] == model]
            print(f"{task} {model}: {sum(r['agree'] for r in cell)}/{len(cell)} agree; one-run {t_one:.1f} s, "
                  f"fleet {t_fleet:.1f} s", flush=True)
            for r in cell:
                r.update(cell_time_one_s=t_one, cell_time_fleet_s=t_fleet)
            Path(args.out).write_text(json.dumps({"args": vars(args), "runs": records}, indent=1))
    print(table(records))
    return 0


def table(records: list[dict]) -> str:
    """Markdown: one line per (task, model) and the total."""
    lines = ["| task | model | runs | agree | same epochs | max abs. test diff | one-run s | fleet s |",
             "|---|---|---|---|---|---|---|---|"]
    cells: dict[tuple, list[dict]] = {}
    for r in records:
        cells.setdefault((r["task"], r["model"]), []).append(r)
    for (task, model), rs in cells.items():
        same = sum(r.get("epochs_one") == r.get("epochs_fleet") for r in rs)
        dmax = max((r.get("d_test", 0.0) for r in rs), default=0.0)
        lines.append(f"| {task} | {model} | {len(rs)} | {sum(r['agree'] for r in rs)} | {same} | {dmax:.2g} | "
                     f"{rs[0]['cell_time_one_s']:.1f} | {rs[0]['cell_time_fleet_s']:.1f} |")
    n, agree = len(records), sum(r["agree"] for r in records)
    t1 = sum(rs[0]["cell_time_one_s"] for rs in cells.values())
    tf = sum(rs[0]["cell_time_fleet_s"] for rs in cells.values())
    lines.append(f"| **all** | | {n} | {agree} ({100 * agree / max(1, n):.1f} %) | | | {t1:.0f} | {tf:.0f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
