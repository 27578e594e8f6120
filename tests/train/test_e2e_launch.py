"""End to end: `accelerate launch` with 2 CPU processes runs a tiny ROTE and a tiny CogScale sweep.

Real launches (about 6 s of start-up each): `accelerate launch --multi_gpu --num_processes 2`
with `Accelerator(cpu=True)` inside eval_suite/train.py, which must report a world of 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rote_hf.results import load
from tests.helpers import REPO_ROOT

LAUNCH = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
          "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no"]


def _launch(config: Path, results: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "OMP_NUM_THREADS": "1", "MASTER_PORT": "0"}
    env.pop("MASTER_ADDR", None)
    cmd = LAUNCH + ["--main_process_port", "0", str(REPO_ROOT / "eval_suite" / "train.py"), "--config", str(config),
                    "--results", str(results), "--processes", "2", "--no-progress"]
    return subprocess.run(cmd, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)


ROTE_TINY = """
name: rote_tiny
suite: rote
data:
  seeds: {source: paper, track: main, symbols: [2, 4], complexities: [10], seed_count: 1}
  sequence_length: 160
  window: 10
  horizon: 10
models:
  - {name: "tests.train.tiny:tiny_gru", units: 8}
protocol: {max_epochs: 3, rollout_metrics: {}}
runs: 2
"""


def test_rote_two_process_launch_and_resume(tmp_path):
    config, results = tmp_path / "rote_tiny.yaml", tmp_path / "results"
    config.write_text(ROTE_TINY)
    proc = _launch(config, results)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "rank 0/2" in proc.stderr and "rank 1/2" in proc.stderr  # a real world of two
    frame = load(results)
    assert len(frame) == 4 and (frame["status"] == "ok").all() and frame["run_id"].is_unique
    assert sorted(frame["task"]) == ["n2-c10", "n2-c10", "n4-c10", "n4-c10"]
    assert sorted(frame["init_seed"]) == [3407, 3407, 3408, 3408]
    assert all(len(o["forecast"]) == 10 for o in frame["outputs"]) and (frame["epochs"] == 3).all()
    assert frame["dataset_fingerprint"].str.len().eq(16).all() and frame["git_commit"].str.len().ge(40).all()
    assert "exact_rate" in proc.stdout  # the summary table
    again = _launch(config, results)
    assert again.returncode == 0 and again.stderr.count("4 skipped as already stored") == 2
    assert len(load(results)) == 4


COGSCALE_TINY = """
name: cogscale_tiny
suite: cogscale
data: {tasks: [discrete_postcasting], difficulties: [small], seeds: [0, 1]}
models:
  - {name: "tests.train.tiny:tiny_gru", units: 6}
learning_rates: [1.0e-2]
protocol: {max_epochs: 2}
"""


def test_cogscale_two_process_launch(tmp_path):
    """Needs rote_hf.cogscale.build_task (branch feat-cogscale)."""
    config, results = tmp_path / "cogscale_tiny.yaml", tmp_path / "results"
    config.write_text(COGSCALE_TINY)
    proc = _launch(config, results)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "rank 0/2" in proc.stderr and "rank 1/2" in proc.stderr
    frame = load(results)
    assert len(frame) == 2 and (frame["status"] == "ok").all(), frame["error"].tolist()
    assert sorted(frame["data_seed"]) == [0, 1] and (frame["learning_rate"] == 1e-2).all()
    assert all(0.0 <= m["test_score"] <= 1.0 for m in frame["metrics"]) and (frame["epochs"] == 2).all()
    assert frame["dataset_fingerprint"].nunique() == 2  # the seed changes the data
