"""Generation time and peak memory per task and difficulty, ours vs the reference cogscale 0.1.1.

    PYTHONPATH=. python benchmarks/cogscale_speed_memory.py --reference-path /tmp/cs011/x \
        [--difficulties small,medium,large] [--no-reference-large] [--skip-reference cross_situation-medium] \
        > benchmarks/cogscale_speed_memory.md
    python benchmarks/cogscale_speed_memory.py --summarise benchmarks/cogscale_speed_memory.md

``--summarise`` recomputes the closing totals from a written table (no measuring). The totals
compare like with like: only tasks measured on both sides count, and each difficulty's total is
also given without cross_situation, whose reference implementation is pathologically slow at
medium (> 4 GB, 70 s) and would otherwise decide the whole ratio alone.

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


def summarise(rows: list[tuple[str, str, float, float]]) -> list[str]:
    """Closing lines from ``(task, difficulty, ours_s, ref_s)`` rows (``ref_s`` NaN when not run):
    per difficulty, the summed seconds of the tasks measured on both sides and their ratio, with
    and without cross_situation, and the median of the per-task ratios."""
    lines = []
    for difficulty in dict.fromkeys(d for _, d, _, _ in rows):
        both = [(t, o, r) for t, d, o, r in rows if d == difficulty and r == r]
        for label, chosen in (("", both), (" without cross_situation", [x for x in both if x[0] != "cross_situation"])):
            if not chosen or (label and len(chosen) == len(both)):
                continue
            ours_s, ref_s = sum(o for _, o, _ in chosen), sum(r for _, _, r in chosen)
            lines.append(f"- total over the {len(chosen)} tasks measured on both at {difficulty}{label}: ours {ours_s:.2f} s, "
                         f"reference {ref_s:.2f} s ({ref_s / max(ours_s, 1e-4):.1f}x)")
        ratios = sorted(r / max(o, 1e-4) for _, o, r in both)
        if ratios:
            mid = len(ratios) // 2
            median = ratios[mid] if len(ratios) % 2 else (ratios[mid - 1] + ratios[mid]) / 2
            lines.append(f"- median per-task speed-up at {difficulty}: {median:.1f}x")
    return lines


def read_table(path: str) -> list[tuple[str, str, float, float]]:
    """The ``(task, difficulty, ours_s, ref_s)`` rows of the first table written by this script in
    ``path`` (a page may hold later reruns below it)."""
    rows = []
    for line in Path(path).read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and cells[0] in TASKS:
            ref = float("nan") if cells[7] in ("not run", "error") else float(cells[7])
            rows.append((cells[0], cells[1], float(cells[3]), ref))
        elif rows and not line.startswith("|"):
            break
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reference-path", default=None, help="folder holding the cogscale 0.1.x package")
    ap.add_argument("--difficulties", default="small,medium,large")
    ap.add_argument("--no-reference-large", action="store_true")
    ap.add_argument("--skip-reference", default="", help="comma-separated task-difficulty cells not run on the reference")
    ap.add_argument("--summarise", metavar="TABLE_MD", default=None, help="only recompute the totals of a written table")
    args = ap.parse_args()
    if args.summarise:
        print("\n".join(summarise(read_table(args.summarise))))
        return
    skipped = set(filter(None, args.skip_reference.split(",")))
    print("| task | difficulty | arrays MB | ours s | ours peak MB | bound MB | ok | ref s | ref peak MB | speed-up |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows: list[tuple[str, str, float, float]] = []
    for difficulty in args.difficulties.split(","):
        for task in TASKS:
            ours = measure("ours", task, difficulty, None)
            bound = 1.5 * ours["arrays_mb"] + 300
            ok = "yes" if ours["peak_mb"] <= bound else "NO"
            skip_ref = args.reference_path is None or (difficulty == "large" and (args.no_reference_large or task == "cross_situation")) \
                or f"{task}-{difficulty}" in skipped
            ref = {"seconds": float("nan"), "peak_mb": float("nan")} if skip_ref else measure("reference", task, difficulty, args.reference_path)
            if "error" in ref:
                ref = {"seconds": float("nan"), "peak_mb": float("nan")}
            speed = ref["seconds"] / max(ours["seconds"], 1e-4)
            rows.append((task, difficulty, ours["seconds"], ref["seconds"]))
            ref_s = "not run" if skip_ref else f"{ref['seconds']:.3f}"
            ref_m = "not run" if skip_ref else f"{ref['peak_mb']:.0f}"
            print(f"| {task} | {difficulty} | {ours['arrays_mb']:.1f} | {ours['seconds']:.3f} | {ours['peak_mb']:.0f} | "
                  f"{bound:.0f} | {ok} | {ref_s} | {ref_m} | {'' if skip_ref else f'{speed:.1f}x'} |", flush=True)
    print()
    print("\n".join(summarise(rows)))


if __name__ == "__main__":
    main()
