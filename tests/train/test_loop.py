"""The Accelerate loop: a real 2-process CPU world shards runs; resume after a kill; failures recorded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rote_hf.results import ResultStore, load
from rote_hf.train import RunSpec, run_rote, run_specs, shard
from tests.helpers import REPO_ROOT
from tests.train.tiny import TinyGRU, diverging, windows_data

SEEDS = ("ABACBBCA", "AABBAB", "ABCABD", "BAAB")


def tiny_specs(n_fail: int = 0, max_epochs: int = 3) -> list[RunSpec]:
    specs = []
    for i, seed in enumerate(SEEDS):
        model = {"name": "tests.train.tiny:diverging"} if i < n_fail else {"name": "tests.train.tiny:tiny_gru", "units": 6}
        specs.append(RunSpec("rote", "tiny", i, f"seed{i}",
                             {"seed": seed, "seed_index": i, "symbols": len(set(seed)), "sequence_length": 70,
                              "window": 6, "horizon": 6},
                             model, {"max_epochs": max_epochs, "batch_size": 16, "rollout_metrics": {}}, 0))
    return specs


def tiny_executor(spec, device):
    """The real ROTE executor on windows built in the test (no dependency on rote_hf.symbolic)."""
    p = spec.task_params
    return run_rote(spec, device, data=windows_data(p["seed"], p["sequence_length"], p["window"], p["horizon"]))


def _launched(results: str, out: str, retry: bool = False) -> None:
    from rote_hf.train import make_accelerator

    acc = make_accelerator(cpu=True)
    report = run_specs(tiny_specs(n_fail=1), results, accelerator=acc, requested_processes=2, progress=False,
                       executor=tiny_executor, retry_failed=retry)
    Path(out, f"rank{acc.process_index}.json").write_text(json.dumps(report.__dict__))


def test_two_processes_shard_runs_and_record_failures(tmp_path):
    from accelerate import debug_launcher

    results, out = tmp_path / "results", tmp_path / "reports"
    out.mkdir()
    debug_launcher(_launched, args=(str(results), str(out)), num_processes=2)
    reports = [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert [r["world"] for r in reports] == [2, 2] and [r["rank"] for r in reports] == [0, 1]
    assigned = [set(r["assigned"]) for r in reports]
    all_ids = {s.run_id for s in tiny_specs(n_fail=1)}
    assert assigned[0].isdisjoint(assigned[1]) and assigned[0] | assigned[1] == all_ids
    # both processes did work; the split is dynamic (claims: a free rank takes the next run), so not 2 + 2
    assert len(assigned[0]) >= 1 and len(assigned[1]) >= 1
    frame = load(results)
    assert len(frame) == 4 and frame["run_id"].is_unique
    failed = frame[frame["status"] == "failed"]
    assert list(failed["model"]) == ["tests.train.tiny:diverging"]
    assert failed["error"].iloc[0].startswith("ValueError: training loss is not finite")
    ok = frame[frame["status"] == "ok"]
    assert (ok["epochs"] == 3).all() and (ok["param_count"] > 0).all() and (ok["peak_cpu_mb"] > 0).all()
    assert all(len(o["forecast"]) == 6 for o in ok["outputs"])
    # a second launch finds everything stored: nothing re-run, still 4 rows
    mtimes = {p.name: p.stat().st_mtime_ns for p in (results / "runs").iterdir()}
    debug_launcher(_launched, args=(str(results), str(out)), num_processes=2)
    reports = [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert [r["assigned"] for r in reports] == [[], []] and reports[0]["skipped"] == 4
    assert mtimes == {p.name: p.stat().st_mtime_ns for p in (results / "runs").iterdir()}


def _launched_apart(results: str, out: str) -> None:
    from rote_hf.train import make_accelerator

    acc = make_accelerator(cpu=True)
    try:  # each rank gets its own folder, as two machines with node-local --results folders would
        run_specs(tiny_specs(), Path(results, f"node{acc.process_index}"), accelerator=acc, progress=False,
                  executor=tiny_executor)
    except RuntimeError as exc:
        Path(out, f"rank{acc.process_index}.txt").write_text(str(exc))


def test_a_results_folder_not_shared_by_all_processes_is_refused(tmp_path):
    """Issue 16.12: several machines need one shared --results folder; a node-local one is refused."""
    from accelerate import debug_launcher

    out = tmp_path / "out"
    out.mkdir()
    debug_launcher(_launched_apart, args=(str(tmp_path / "res"), str(out)), num_processes=2)
    errors = [(out / f"rank{r}.txt").read_text() for r in (0, 1)]
    assert all("is not shared by the 2 processes of this launch (this process sees 1)" in e for e in errors)
    assert not list((tmp_path / "res").glob("node*/runs"))  # refused before any work


def test_world_check_refuses_a_wrong_launch(tmp_path):
    from rote_hf.train import make_accelerator

    with pytest.raises(RuntimeError, match="launched 1 process\\(es\\) but 2 were requested"):
        run_specs(tiny_specs(), tmp_path, accelerator=make_accelerator(cpu=True), requested_processes=2,
                  progress=False, executor=tiny_executor)


def test_shard_is_disjoint_and_balanced():
    specs = tiny_specs()
    done = {specs[0].run_id}
    parts = [shard(specs, done, r, 2) for r in (0, 1)]
    assert [len(p[0]) for p in parts] == [2, 1] and parts[0][1] == 1
    assert {s.index for p in parts for s in p[0]} == {1, 2, 3}


_KILL_SCRIPT = """
import sys, time
from rote_hf.train import make_accelerator, run_specs
from tests.train.test_loop import tiny_specs, tiny_executor
def slow(spec, device):
    row = tiny_executor(spec, device)
    time.sleep(0.5)  # leave time to be killed between runs
    return row
run_specs(tiny_specs(max_epochs=2), sys.argv[1], accelerator=make_accelerator(cpu=True), progress=False, executor=slow)
"""


def test_kill_then_resume(tmp_path):
    results = tmp_path / "results"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", _KILL_SCRIPT, str(results)], cwd=REPO_ROOT, env=env)
    store = ResultStore(results)
    deadline = time.time() + 120
    while len(store) < 1 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = {p.name: p.stat().st_mtime_ns for p in (results / "runs").glob("*.parquet")}
    assert 1 <= len(before) < 4  # killed part-way
    report = run_specs(tiny_specs(max_epochs=2), results, progress=False, executor=tiny_executor)
    assert report.skipped == len(before) and len(report.ok) == 4 - len(before)
    after = {p.name: p.stat().st_mtime_ns for p in (results / "runs").glob("*.parquet")}
    assert len(after) == 4 and all(after[name] == t for name, t in before.items())  # finished runs untouched
    frame = load(results)
    assert frame["run_id"].is_unique and (frame["status"] == "ok").all()


def test_retry_failed_replaces_the_failed_row(tmp_path):
    specs = tiny_specs(max_epochs=1)[:1]

    def flaky(spec, device):
        raise RuntimeError("out of memory")

    first = run_specs(specs, tmp_path, progress=False, executor=flaky)
    assert first.failed == [specs[0].run_id]
    assert "RuntimeError: out of memory" in load(tmp_path)["error"][0]
    again = run_specs(specs, tmp_path, progress=False, executor=tiny_executor)
    assert again.skipped == 1 and again.ok == []  # failures are finished unless retried
    retried = run_specs(specs, tmp_path, progress=False, executor=tiny_executor, retry_failed=True)
    assert retried.ok == [specs[0].run_id] and list(load(tmp_path)["status"]) == ["ok"]


def test_cpu_run_is_deterministic(tmp_path):
    a = run_specs(tiny_specs()[1:2], tmp_path / "a", progress=False, executor=tiny_executor)
    b = run_specs(tiny_specs()[1:2], tmp_path / "b", progress=False, executor=tiny_executor)
    assert a.ok == b.ok
    fa, fb = load(tmp_path / "a"), load(tmp_path / "b")
    assert fa["metrics"][0] == fb["metrics"][0] and fa["outputs"][0] == fb["outputs"][0]
