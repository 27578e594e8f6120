"""Time of one architecture request per menu track through ``rote-hf backend`` (issue 26 item 4).

    PYTHONPATH=. OMP_NUM_THREADS=2 python benchmarks/backend_tracks.py [--track rote-smoke] \
        [--entry '{"name": "gru", "hidden_size": 32, "num_layers": 2}'] [--out benchmarks/backend_tracks.md]

Queues one request on a fresh requests folder, runs the backend once (``run_backend(once=True)``:
the track's sweep through the normal trainer) and writes the wall time, the process CPU time
and each fit's ``train_time_s`` to a Markdown file. Only the smallest track is cheap enough to
measure on a 2-core CPU; docs/space.md estimates the others from measured per-run times.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--track", default="rote-smoke")
    ap.add_argument("--entry", default='{"name": "gru", "hidden_size": 32, "num_layers": 2}')
    ap.add_argument("--out", default=str(Path(__file__).with_suffix(".md")))
    args = ap.parse_args()

    import gradio as gr
    import pyarrow.parquet as pq
    from rote_hf.leaderboard.backend import run_backend
    from rote_hf.leaderboard.requests import RequestDesk
    from rote_hf.leaderboard.visitor import submit_architecture

    root = Path(tempfile.mkdtemp(prefix="backend-bench-"))
    desk = RequestDesk(root / "desk")
    who = gr.OAuthProfile({"preferred_username": "bench", "name": "Bench", "profile": "", "picture": ""})
    queued = submit_architecture(desk, args.entry, args.track, who)
    assert queued.startswith("Queued"), queued
    load = os.getloadavg()
    wall0, cpu0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    report = run_backend(str(desk.root), root / "results", once=True)
    wall = time.perf_counter() - wall0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    fits = [pq.read_table(p, columns=["task", "status", "train_time_s", "epochs", "device"]).to_pylist()[0]
            for p in sorted((root / "results" / "runs").glob("*.parquet"))]
    record = desk.records()[0]
    lines = [
        "# `rote-hf backend`: one architecture request per track",
        "",
        f"Command: `PYTHONPATH=. OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '?')} python "
        f"benchmarks/backend_tracks.py --track {args.track} --entry '{args.entry}'`",
        "",
        f"Machine: {os.cpu_count()} CPU cores ({platform.processor() or platform.machine()}), no GPU; load average "
        f"at start {load[0]:.1f} (the development VM is shared with a training sweep and other engineers).",
        "",
        f"| track | entry | fits | status | wall | process CPU |",
        "|---|---|---|---|---|---|",
        f"| `{args.track}` | `{args.entry}` | {len(fits)} | {record.status} | {wall:.0f} s | {cpu:.0f} s |",
        "",
        "| fit | status | epochs | train_time_s | device |",
        "|---|---|---|---|---|",
        *[f"| {f['task']} | {f['status']} | {f['epochs']} | {f['train_time_s']:.1f} | {f['device']} |" for f in fits],
        "",
        f"Request: {json.dumps(record.detail.get('model'))} -> `{record.status}` ({record.reason}); "
        f"backend report: {len(report.verified)} verified, {len(report.failed)} failed, {len(report.rejected)} rejected.",
        "",
    ]
    Path(args.out).write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
