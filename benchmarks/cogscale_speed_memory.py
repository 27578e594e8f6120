"""Generation time and peak memory per task and difficulty, ours vs the reference cogscale 0.1.1.

    PYTHONPATH=. python benchmarks/cogscale_speed_memory.py --reference-path /tmp/cs011/x \
        [--difficulties small,medium,large] [--no-reference-large] > benchmarks/cogscale_speed_memory.md

Every measurement runs in its own process (benchmarks/cogscale_measure.py). The reference's
cross_situation at large is not run: it materialises 7.2 million dense sentences (> 50 GB).
The bound checked for ours: peak <= 1.5 x returned arrays + 300 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from rote_hf.cogscale import TASKS  # noqa: E402


def measure(impl: str, task: str, difficulty: str, reference_path: str | None) -> dict:
    env = dict(os.environ)
    if impl == "reference":
        env["PYTHONPATH"] = f"{reference_path}{os.pathsep}{env.get('PYTHONPATH', '')}"
    else:
        env["PYTHONPATH"] = f"{HERE.parent}{os.pathsep}{env.get('PYTHONPATH', '')}"
    out = subprocess.run([sys.executable, str(HERE / "cogscale_measure.py"), impl, task, difficulty],
                         env=env, capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reference-path", default=None, help="folder holding the cogscale 0.1.x package")
    ap.add_argument("--difficulties", default="small,medium,large")
    ap.add_argument("--no-reference-large", action="store_true")
    args = ap.parse_args()
    print("| task | difficulty | arrays MB | ours s | ours peak MB | bound MB | ok | ref s | ref peak MB | speed-up |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    totals: dict[str, list[float]] = {}
    for difficulty in args.difficulties.split(","):
        for task in TASKS:
            ours = measure("ours", task, difficulty, None)
            bound = 1.5 * ours["arrays_mb"] + 300
            ok = "yes" if ours["peak_mb"] <= bound else "NO"
            skip_ref = args.reference_path is None or (difficulty == "large" and (args.no_reference_large or task == "cross_situation"))
            ref = {"seconds": float("nan"), "peak_mb": float("nan")} if skip_ref else measure("reference", task, difficulty, args.reference_path)
            if "error" in ref:
                ref = {"seconds": float("nan"), "peak_mb": float("nan")}
            speed = ref["seconds"] / max(ours["seconds"], 1e-4)
            t = totals.setdefault(difficulty, [0.0, 0.0])
            if ref["seconds"] == ref["seconds"]:
                t[0] += ours["seconds"]
                t[1] += ref["seconds"]
            ref_s = "not run" if skip_ref else f"{ref['seconds']:.3f}"
            ref_m = "not run" if skip_ref else f"{ref['peak_mb']:.0f}"
            print(f"| {task} | {difficulty} | {ours['arrays_mb']:.1f} | {ours['seconds']:.3f} | {ours['peak_mb']:.0f} | "
                  f"{bound:.0f} | {ok} | {ref_s} | {ref_m} | {'' if skip_ref else f'{speed:.1f}x'} |", flush=True)
    print()
    for difficulty, (ours_s, ref_s) in totals.items():
        if ref_s:
            print(f"- total over tasks measured on both at {difficulty}: ours {ours_s:.2f} s, reference {ref_s:.2f} s "
                  f"({ref_s / max(ours_s, 1e-4):.1f}x)")


if __name__ == "__main__":
    main()
