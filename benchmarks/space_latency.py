"""The leaderboard Space at full scale: launch time, app CPU and wall time per request, a page visit,
8 visitors at once, peak memory, and what a 5,000-row upload does to every board.

    PYTHONPATH=. OMP_NUM_THREADS=1 python benchmarks/space_latency.py [--work DIR] [--repeats 4] [--out benchmarks/space_latency.md]

The store it serves holds the full ``cogscale_paper`` grid: the rows shipped with the package
plus, for every run not shipped yet, a synthetic row (a shipped run of the same model, task and
budget with its test score jittered, under the missing run's id, difficulty, seed and learning
rate). The app is the real ``space/app.py`` on 127.0.0.1 (a subprocess); requests go through
``gradio_client``; "app CPU" is the user + system time of the app's process across one request
(read from /proc), so the client's own work is not counted. A page visit is headless Chromium
loading the page until no panel says "processing". Then a visitor uploads 5,000 valid ROTE rows
through ``/submit`` and every board is measured again. ``--work`` keeps the synthetic store
(re-used when present). Not a test: the numbers go to the Markdown file.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ENDPOINTS = {  # api_name -> arguments of a first click and of a filter-only click
    "/rote_board": (("all", "all", "all", "all", "all", "runs"), ("4", "all", "all", "all", "all", "runs")),
    "/cogscale_board": (("validation", "all", "all", "all", "all", "ours", "ours"),
                        ("validation", "simple_copy", "medium", "all", "all", "ours", "ours")),
    "/reproduction": (("by model", "all", "all", "cogscale_paper"), ("worst groups", "LSTM", "medium", "cogscale_paper")),
    "/llm_board": (("all", "all", "all", "accuracy"), ("clean", "all", "all", "accuracy")),
}
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]


def fill_grid(store_dir: Path) -> int:
    """Synthetic rows for every run of cogscale_paper that is not shipped (returns how many)."""
    from rote_hf.results import ResultRow, ResultStore
    from rote_hf.results.schema import JSON_COLUMNS, budget_label
    from rote_hf.results.shipped import shipped_table
    from rote_hf.train.config import SweepConfig, expand

    store = ResultStore(store_dir)
    done = store.run_ids()
    shipped = shipped_table("cogscale_paper").to_pylist()  # Python values with their types (ints stay ints)
    templates = {}
    for rec in shipped:
        templates.setdefault((rec["model"], rec["task"], rec["budget"]), rec)
    skip = done | {rec["run_id"] for rec in shipped}
    rng = random.Random(0)
    specs = [s for s in expand(SweepConfig.from_yaml(ROOT / "eval_suite" / "configs" / "cogscale_paper.yaml"))
             if s.run_id not in skip]
    fields = set(ResultRow.__dataclass_fields__)
    for spec in specs:
        t = templates[(spec.model["name"], spec.task, budget_label(spec.model))]
        row = {k: (json.loads(v) if k in JSON_COLUMNS and isinstance(v, str) else v) for k, v in t.items() if k in fields and k != "schema_version"}
        metrics = dict(row["metrics"])
        if metrics.get("test_score") is not None:
            metrics["test_score"] = max(0.0, metrics["test_score"] * (1 + rng.uniform(-0.1, 0.1)))
        row.update(run_id=spec.run_id, config=spec.task_params["difficulty"], task_params=dict(spec.task_params),
                   learning_rate=spec.protocol.get("learning_rate"), metrics=metrics, verified=False)
        store.append(ResultRow(**row))
    return len(specs)


def rote_upload(path: Path, n: int = 5000) -> Path:
    """A visitor's file of ``n`` valid ROTE rows (matched-size track)."""
    rng = random.Random(1)
    rows = [{"run_id": f"bench-{i}", "suite": "rote_matched", "task": f"n{2 + i % 3}-c{10 + 20 * (i % 5)}",
             "model": f"Net{i % 7}", "task_params": {"symbols": 2 + i % 3, "complexity": 10 + 20 * (i % 5)},
             "metrics": {"DL": round(rng.random(), 3), "exact": 0.0}, "param_count": 1000 + i % 10, "device": "cpu"}
            for i in range(n)]
    path.write_text(json.dumps({"rows": rows}))
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(pid: int, call) -> tuple[float, float]:
    c0, w0 = cpu_seconds(pid), time.perf_counter()
    call()
    return cpu_seconds(pid) - c0, time.perf_counter() - w0


def page_visit(url: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium") or shutil.which("chromium-browser"),
                                    args=CHROMIUM_FLAGS)
        page = browser.new_page()
        page.goto(url)
        page.wait_for_selector('#rote-table [data-testid="cell-0-0"]', timeout=600_000)
        page.wait_for_function("() => !document.body.innerText.includes('processing')", timeout=600_000)
        browser.close()


def endpoint_table(pid: int, client, repeats: int) -> dict[str, dict[str, float]]:
    out = {}
    for name, (first, filtered) in ENDPOINTS.items():
        for label, args in (("first", first), ("filter", filtered)):
            runs = [measure(pid, lambda: client.predict(*args, api_name=name)) for _ in range(repeats)]
            out[f"{name} ({label})"] = {"cpu_first": runs[0][0], "cpu_median": statistics.median(r[0] for r in runs),
                                        "wall_median": statistics.median(r[1] for r in runs)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", default="/tmp/rote-space-latency", help="folder of the synthetic store (kept)")
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "space_latency.md"))
    args = parser.parse_args(argv)
    from gradio_client import Client, handle_file

    work = Path(args.work)
    store = work / "results"
    t0 = time.perf_counter()
    added = fill_grid(store)
    print(f"store: {added} synthetic rows added in {time.perf_counter() - t0:.0f} s", flush=True)
    port = free_port()
    env = {**os.environ, "OMP_NUM_THREADS": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(ROOT / "space" / "app.py"), "--results", str(store), "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.perf_counter() - start > 600:
                    raise SystemExit("space/app.py did not start")
                time.sleep(0.2)
        launch_s = time.perf_counter() - start
        print(f"launch to HTTP 200: {launch_s:.1f} s", flush=True)
        client = Client(url, verbose=False)
        time.sleep(1.0)
        idle = measure(proc.pid, lambda: time.sleep(10.0))[0]  # the start-up warm-up, then nothing
        print(f"app CPU in the 10 s after the start: {idle:.2f} s", flush=True)
        visit_cold = measure(proc.pid, lambda: page_visit(url))
        visits = [measure(proc.pid, lambda: page_visit(url)) for _ in range(args.repeats)]
        print(f"page visits: {visit_cold[0]:.2f} CPU-s first, then {[round(v[0], 2) for v in visits]}", flush=True)
        before = endpoint_table(proc.pid, client, args.repeats)
        print(json.dumps(before), flush=True)
        errors: list[str] = []

        def visitor(k: int) -> None:
            try:
                name, (first, filtered) = list(ENDPOINTS.items())[k % len(ENDPOINTS)]
                Client(url, verbose=False).predict(*filtered, api_name=name)
            except Exception as exc:  # noqa: BLE001 -- counted and reported
                errors.append(f"{type(exc).__name__}: {exc}")

        w0 = time.perf_counter()
        threads = [threading.Thread(target=visitor, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        burst_s = time.perf_counter() - w0
        upload = rote_upload(work / "upload.json")
        upload_cpu, upload_wall = measure(proc.pid, lambda: client.predict(handle_file(str(upload)), api_name="/submit"))
        after = endpoint_table(proc.pid, client, args.repeats)
        visit_after = statistics.median(measure(proc.pid, lambda: page_visit(url))[0] for _ in range(2))
        peak = peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(30)
    n_rows = len(list((store / "runs").glob("*.parquet")))
    lines = [
        "# Leaderboard Space latency at full scale",
        "",
        f"Command: `PYTHONPATH=. OMP_NUM_THREADS=1 python benchmarks/space_latency.py --repeats {args.repeats}`",
        f"(2-core machine; a one-thread training sweep ran beside it). The store: {n_rows:,} run files (the full "
        "`cogscale_paper` grid with the shipped rows: synthetic rows fill what is not shipped), beside the papers' "
        "published rows; then a visitor uploads 5,000 valid ROTE rows (the store then holds their files too).",
        "",
        f"- launch to HTTP 200: **{launch_s:.1f} s** (the store's compacted copy already written: see "
        f"docs/space.md, Serving); app CPU in the 10 s after: {idle:.1f} s (the boards a page visit shows, "
        "computed in the background)",
        f"- page visit (headless Chromium, until no panel says processing): first {visit_cold[0]:.2f} app CPU-s "
        f"({visit_cold[1]:.1f} s wall, the boards being computed for the first time); then median "
        f"**{statistics.median(v[0] for v in visits):.2f} app CPU-s**, {statistics.median(v[1] for v in visits):.1f} s wall "
        "(the browser's own start included)",
        f"- 8 visitors clicking at once (one filter click each, over the four boards): all answered in "
        f"**{burst_s:.2f} s**, errors: {len(errors)}" + (f" ({errors[0]})" if errors else ""),
        f"- the 5,000-row upload: {upload_cpu:.2f} app CPU-s, {upload_wall:.1f} s wall; a page visit after it: "
        f"{visit_after:.2f} app CPU-s",
        f"- peak memory of the app (VmHWM): **{peak:.0f} MiB**",
        "",
        "Per request (app CPU-s; `first`: the first call after the rows changed, `median` of "
        f"{args.repeats} calls; wall in s):",
        "",
        "| endpoint | CPU first | CPU median | wall median | after the upload: CPU first | CPU median | wall median |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for key, b in before.items():
        a = after[key]
        lines.append(f"| `{key}` | {b['cpu_first']:.2f} | {b['cpu_median']:.3f} | {b['wall_median']:.3f} | "
                     f"{a['cpu_first']:.2f} | {a['cpu_median']:.3f} | {a['wall_median']:.3f} |")
    lines += ["", "A board is computed once per version of the rows (the first call after a change pays it, or the "
              "start-up warm-up does); every later request with any filter only selects from it. The upload is a "
              "new version: its first calls recompute, the later ones filter again."]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
