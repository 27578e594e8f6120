"""Real processes sharing one results folder (issue 12.12, issue 16.1): work is split through run
claims so each fit runs exactly once, workers end with their launcher, and an imbalanced 2-process
launch finishes although one rank waits far longer than the collective timeout."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from rote_hf.results import load
from rote_hf.results.claims import pid_alive
from tests.helpers import REPO_ROOT
from tests.train.test_e2e_launch import LAUNCH

TRAIN = str(REPO_ROOT / "eval_suite" / "train.py")


def _config(path: Path, models: list[dict], strings=("ABAABB",), runs: int = 1) -> Path:
    import yaml

    path.write_text(yaml.safe_dump({
        "name": path.stem, "suite": "rote", "runs": runs,
        "data": {"seeds": {"source": "list", "strings": list(strings)}, "sequence_length": 60, "window": 5,
                 "horizon": 5},
        "models": models, "protocol": {"max_epochs": 1, "rollout_metrics": {}}}))
    return path


def _env(log: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "OMP_NUM_THREADS": "1", "MASTER_PORT": "0",
           "ROTE_TEST_BUILD_LOG": str(log)}
    env.pop("MASTER_ADDR", None)
    return env


def test_two_concurrent_sweeps_on_one_folder_run_each_fit_once(tmp_path):
    config = _config(tmp_path / "shared.yaml", [{"name": "tests.train.tiny:logged_gru", "units": 4, "sleep": 1.5}],
                     strings=("ABAABB", "AABBBA", "ABBABA", "BAABAB"), runs=2)
    log, results = tmp_path / "builds.log", tmp_path / "results"
    cmd = [sys.executable, TRAIN, "--config", str(config), "--results", str(results), "--no-progress", "--no-table"]
    procs = [subprocess.Popen(cmd, cwd=REPO_ROOT, env=_env(log), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-2000:] for o in outs]
    builds = log.read_text().split()
    assert len(builds) == 8  # 8 fits, each trained exactly once across both sweeps
    assert set(builds) == {str(p.pid) for p in procs}  # and both sweeps did some of them
    frame = load(results)
    assert len(frame) == 8 and frame["run_id"].is_unique and (frame["status"] == "ok").all()
    assert not list((results / "claims").glob("*.claim"))  # every claim released


def test_workers_end_when_their_launcher_is_killed(tmp_path):
    config = _config(tmp_path / "slow.yaml", [{"name": "tests.train.tiny:logged_gru", "units": 4, "sleep": 120}],
                     strings=("ABAABB", "AABBBA"))
    results = tmp_path / "results"
    cmd = LAUNCH + ["--main_process_port", "0", TRAIN, "--config", str(config), "--results", str(results),
                    "--processes", "2", "--no-progress"]
    launcher = subprocess.Popen(cmd, cwd=REPO_ROOT, env=_env(tmp_path / "builds.log"), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    try:
        deadline = time.time() + 180
        while len(workers) < 2 and time.time() < deadline and launcher.poll() is None:
            time.sleep(0.2)
            for claim in (results / "claims").glob("*.claim"):
                try:
                    workers.add(int(json.loads(claim.read_text())["pid"]))
                except (ValueError, KeyError, OSError):
                    pass
        assert len(workers) == 2, "both workers should be training (each holds a claim)"
        assert all(pid_alive(p) for p in workers)
        launcher.send_signal(signal.SIGKILL)
        launcher.wait()
        deadline = time.time() + 30
        while any(pid_alive(p) for p in workers) and time.time() < deadline:
            time.sleep(0.2)
        assert not any(pid_alive(p) for p in workers), "workers outlived their launcher"
    finally:
        for pid in workers:  # only the two workers this test started
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()
    assert len(load(results)) == 0  # killed mid-fit: nothing half-stored; a resume takes the stale claims over


def test_imbalanced_two_process_launch_outlives_the_collective_timeout(tmp_path):
    """One rank's fit sleeps 45 s, the other's finishes at once; with --collective-timeout 10 the
    old final barrier timed out and the launcher killed the slow rank mid-fit."""
    config = _config(tmp_path / "imbalanced.yaml", [{"name": "tests.train.tiny:logged_gru", "units": 4, "sleep": 45},
                                                    {"name": "tests.train.tiny:logged_gru", "units": 5}])
    results = tmp_path / "results"
    cmd = LAUNCH + ["--main_process_port", "0", TRAIN, "--config", str(config), "--results", str(results),
                    "--processes", "2", "--no-progress", "--collective-timeout", "10"]
    start = time.time()
    proc = subprocess.run(cmd, cwd=REPO_ROOT, env=_env(tmp_path / "builds.log"), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert time.time() - start > 45
    assert "rank 0/2" in proc.stderr and "rank 1/2" in proc.stderr
    assert proc.stderr.count("1 ok, 0 failed") == 2  # each rank trained one of the two runs
    frame = load(results)
    assert len(frame) == 2 and (frame["status"] == "ok").all()
    assert len(set((tmp_path / "builds.log").read_text().split())) == 2
