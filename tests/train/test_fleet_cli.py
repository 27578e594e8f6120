"""`eval_suite/train.py --fleet K`: rows and run ids do not depend on K; a sweep resumes with another K; bad K refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rote_hf.results import load
from tests.helpers import REPO_ROOT

CONFIG = """
name: cogscale_fleet_tiny
suite: cogscale
data: {tasks: [adding_problem], difficulties: [small], seeds: [0, 1]}
models:
  - {name: gru, hidden_size: 4, num_layers: 1}
  - {name: transformer, d_model: 4, nhead: 2, num_layers: 1, dropout: 0.1}
learning_rates: [1.0e-2, 1.0e-3]
protocol: {max_epochs: 3, patience: 1}
"""


def _train(config: Path, results: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, str(REPO_ROOT / "eval_suite" / "train.py"), "--config", str(config), "--results",
           str(results), "--no-progress", "--no-table", *extra]
    return subprocess.run(cmd, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_rows_do_not_depend_on_fleet_size_and_resume_with_another(tmp_path):
    config = tmp_path / "tiny.yaml"
    config.write_text(CONFIG)
    fleet, alone = tmp_path / "fleet", tmp_path / "alone"
    # half of the sweep with --fleet 1 first, then the whole sweep with --fleet 8 resumes it
    first = _train(config, fleet, "--fleet", "1")
    assert first.returncode == 0, first.stderr[-3000:]
    stored = sorted(fleet.rglob("*.parquet"))
    assert len(stored) == 8
    for path in stored[::2]:
        path.unlink()  # as if the first sweep had been stopped half-way
    resumed = _train(config, fleet, "--fleet", "8")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "4 already stored" in resumed.stderr and "one by one" not in resumed.stderr  # no fallback
    assert _train(config, alone, "--fleet", "1").returncode == 0
    a, b = load(fleet).set_index("run_id"), load(alone).set_index("run_id")
    assert len(a) == len(b) == 8 and set(a.index) == set(b.index)
    assert (a["status"] == "ok").all()
    for run_id in b.index:
        assert a.loc[run_id, "epochs"] == b.loc[run_id, "epochs"]
        assert a.loc[run_id, "settings"] == b.loc[run_id, "settings"]
        for key, value in b.loc[run_id, "metrics"].items():
            assert a.loc[run_id, "metrics"][key] == pytest.approx(value, abs=1e-5)
    again = _train(config, fleet, "--fleet", "3")
    assert again.returncode == 0 and "8 already stored" in again.stderr


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_bad_fleet_size_is_one_line_naming_the_option(tmp_path, value):
    config = tmp_path / "tiny.yaml"
    config.write_text(CONFIG)
    proc = _train(config, tmp_path / "r", "--fleet", value)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "--fleet" in proc.stderr and "Traceback" not in proc.stderr
