"""`eval_suite/train.py` under careless use (issue 31): real subprocesses, no training.

A YAML syntax error names the file, line and column; an unknown model, task or difficulty is
refused before any work with the allowed values (exit 2) and nothing is written to the results
folder; a read-only results folder or one under a regular file is one line, exit 1. The script
uses the error handling of ``rote-hf`` (:func:`rote_hf.cli.run_command`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT

SCRIPT = REPO_ROOT / "eval_suite" / "train.py"
COGSCALE = """name: t
suite: cogscale
data: {{tasks: [{task}], difficulties: [{difficulty}], seeds: [0]}}
models: [{{name: {model}, budget: 1000}}]
learning_rates: [1.0e-2]
protocol: {{max_epochs: 1}}
"""
ROTE = """name: t
suite: rote
data: {{seeds: {{source: paper, symbols: [2], complexities: [10], seed_count: 1}}, sequence_length: 200,
       window: 10, horizon: 10}}
models: [{{name: {model}, hidden_size: 4}}]
protocol: {{max_epochs: 1}}
"""


def _train(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, str(SCRIPT), "--no-progress", "--no-table", *args], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)


def _one_line_error(out: subprocess.CompletedProcess, code: int, *needles: str) -> str:
    """The error line of ``out``, after checking the exit status, no traceback, exactly one
    ``train.py: error:`` line, last on stderr, holding every needle."""
    assert out.returncode == code, (out.returncode, out.stderr[-3000:])
    assert "Traceback" not in out.stderr, out.stderr[-3000:]
    errors = [line for line in out.stderr.splitlines() if line.startswith("train.py: error: ")]
    assert len(errors) == 1 and out.stderr.splitlines()[-1] == errors[0], out.stderr[-3000:]
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(text)
    return path


def test_yaml_syntax_error_names_file_line_and_column(tmp_path):
    config = _config(tmp_path, "name: t\nsuite: cogscale\ndata:\n  tasks: [adding_problem\n  difficulties: [small]\n")
    out = _train(tmp_path, "--config", str(config), "--results", str(tmp_path / "res"))
    line = _one_line_error(out, 2, f"{config}:5:15:", "--config")
    assert out.stderr.strip() == line  # nothing else on stderr either
    assert sorted(os.listdir(tmp_path)) == ["sweep.yaml"]


@pytest.mark.parametrize("text, needles", [
    (COGSCALE.format(task="adding_problem", difficulty="small", model="grux"),
     ("models[0].name", "'grux'", "esn, gru, linear-attention, lstm")),
    (COGSCALE.format(task="adding_problem", difficulty="small", model="no_such_module_xyz:factory"),
     ("models[0].name", "'no_such_module_xyz:factory'", "module:factory", "No module named 'no_such_module_xyz'")),
    (COGSCALE.format(task="adding_problem", difficulty="small", model="tests.train.tiny:no_such_factory"),
     ("models[0].name", "has no attribute 'no_such_factory'")),
    (COGSCALE.format(task="adding_problm", difficulty="small", model="gru"),
     ("data.tasks", "'adding_problm'", "sinus_forecasting, chaotic_forecasting")),
    (COGSCALE.format(task="adding_problem", difficulty="tiny", model="gru"),
     ("data.difficulties", "'tiny'", "small, medium, large")),
    (ROTE.format(model="lstmm"), ("models[0].name", "'lstmm'", "esn, gru, linear-attention, lstm")),
], ids=["zoo-name", "module", "factory", "task", "difficulty", "rote-model"])
def test_unknown_model_or_task_is_refused_before_any_work(tmp_path, text, needles):
    config = _config(tmp_path, text)
    out = _train(tmp_path, "--config", str(config), "--results", str(tmp_path / "res"))
    line = _one_line_error(out, 2, *needles)
    assert out.stderr.strip() == line
    assert sorted(os.listdir(tmp_path)) == ["sweep.yaml"]  # no results folder, no failed rows


def test_read_only_results_is_one_line_exit_1(tmp_path):
    # /sys refuses new entries even to root (tests run as root, so chmod would not do)
    out = _train(tmp_path, "--config", "cogscale_smoke", "--results", "/sys/rote-hf-test")
    _one_line_error(out, 1, "/sys/rote-hf-test", "not permitted")
    assert not os.path.exists("/sys/rote-hf-test")


@pytest.mark.parametrize("under", [True, False], ids=["under-a-file", "a-file"])
def test_results_under_or_at_a_regular_file_is_one_line_exit_1(tmp_path, under):
    afile = tmp_path / "afile"
    afile.write_text("keep me")
    results = afile / "res" if under else afile
    out = _train(tmp_path, "--config", "cogscale_smoke", "--results", str(results))
    _one_line_error(out, 1, str(results), "ot a directory")
    assert afile.read_text() == "keep me" and sorted(os.listdir(tmp_path)) == ["afile"]


def _normalised(lines: list[str]) -> list[str]:
    """Non-empty lines with runs of whitespace as one space (the README shows accelerate's tabs as
    they are, an editor may not) and the process count of the machine as ``N``."""
    out = [" ".join(line.split()) for line in lines if line.strip()]
    return [re.sub(r"(`--num_processes` was set to a value of )`\d+`", r"\1`N`", line) for line in out]


def test_readme_shows_the_accelerate_q_output_as_it_is(tmp_path):
    """README.md shows what `accelerate launch -q eval_suite/train.py --config nope` prints and that
    accelerate turns the script's exit status 2 into 1; both checked against the real commands."""
    command = '$ accelerate launch -q eval_suite/train.py --config nope; echo "exit $?"\n'
    shown = (REPO_ROOT / "README.md").read_text(encoding="utf-8").split(command, 1)[1].split("```", 1)[0]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "OMP_NUM_THREADS": "1"}
    env.pop("MASTER_ADDR", None)
    launched = subprocess.run([sys.executable, "-m", "accelerate.commands.launch", "-q", "eval_suite/train.py",
                               "--config", "nope"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert launched.returncode == 1 and "Traceback" not in launched.stderr, launched.stderr[-3000:]
    assert _normalised([*launched.stdout.splitlines(), *launched.stderr.splitlines(), "exit 1"]) == \
        _normalised(shown.splitlines())
    plain = _train(tmp_path, "--config", "nope")
    _one_line_error(plain, 2, "--config: no such file or shipped config 'nope'")
