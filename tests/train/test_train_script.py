"""`eval_suite/train.py` config resolution: no `--config` runs the CogScale smoke sweep and says so,
a bare shipped name works, and an unknown name gives one line listing the shipped configs that is
the script's last line under a real `accelerate launch` (only the launcher's traceback follows)."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from tests.helpers import REPO_ROOT

SHIPPED = ["cogscale_paper", "cogscale_smoke", "hf_zoo", "rote_matched", "rote_paper", "rote_smoke"]
CONFIGS = REPO_ROOT / "eval_suite" / "configs"


def _train_module():
    spec = importlib.util.spec_from_file_location("eval_suite_train", REPO_ROOT / "eval_suite" / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "OMP_NUM_THREADS": "1"}
    env.pop("MASTER_ADDR", None)
    return env


def test_resolve_config_names_paths_and_default(tmp_path, monkeypatch):
    train = _train_module()
    monkeypatch.chdir(REPO_ROOT)
    assert train.shipped_configs() == SHIPPED
    assert train.resolve_config(None) == CONFIGS / "cogscale_smoke.yaml"
    assert train.resolve_config("rote_smoke") == CONFIGS / "rote_smoke.yaml"
    assert train.resolve_config("rote_paper.yaml") == CONFIGS / "rote_paper.yaml"
    assert train.resolve_config("eval_suite/configs/rote_smoke.yaml").resolve() == CONFIGS / "rote_smoke.yaml"
    own = tmp_path / "mine.yaml"
    own.write_text("name: x\n")
    assert train.resolve_config(str(own)) == own
    with pytest.raises(ValueError) as err:
        train.resolve_config("rote_smok")
    assert str(err.value) == ("--config: no such file or shipped config 'rote_smok'; shipped configs: "
                              f"{', '.join(SHIPPED)} (or a path to a sweep YAML)")
    with pytest.raises(ValueError, match="shipped configs: cogscale_paper"):
        train.resolve_config("somewhere/rote_smoke")  # a path that does not exist is not a name


def _accelerate(*args: str) -> list[str]:
    """`accelerate launch ARGS` exactly as typed (one process, accelerate's defaults)."""
    return [sys.executable, "-m", "accelerate.commands.launch", *args]


def test_unknown_config_under_accelerate_launch_is_the_scripts_last_line(tmp_path):
    proc = subprocess.run(_accelerate("eval_suite/train.py", "--config", "nope"), cwd=REPO_ROOT, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    expected = (f"train.py: error: --config: no such file or shipped config 'nope'; shipped configs: "
                f"{', '.join(SHIPPED)} (or a path to a sweep YAML)")
    lines = proc.stderr.splitlines()
    assert expected in lines, proc.stderr[-3000:]
    after = lines[lines.index(expected) + 1:]
    # only accelerate's own CalledProcessError traceback (about the exit status) may follow
    assert not after or (after[0] == "Traceback (most recent call last):"
                         and after[-1].startswith("subprocess.CalledProcessError:")
                         and "returned non-zero exit status 2" in after[-1]), after
    assert "Traceback" not in "\n".join(lines[:lines.index(expected)])  # the script itself raised nothing
    quiet = subprocess.run(_accelerate("-q", "eval_suite/train.py", "--config", "nope"), cwd=REPO_ROOT, env=_env(),
                           capture_output=True, text=True, timeout=300)
    assert quiet.returncode != 0 and quiet.stderr.splitlines()[-1] == expected, quiet.stderr[-3000:]


def test_no_config_under_accelerate_launch_runs_the_cogscale_smoke_sweep(tmp_path):
    """The exact user command, stopped once it has said what it runs and started the 12 runs."""
    proc = subprocess.Popen(_accelerate("eval_suite/train.py", "--results", str(tmp_path / "results")), cwd=REPO_ROOT,
                            env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    killer = threading.Timer(240, os.killpg, (proc.pid, signal.SIGKILL))
    killer.start()
    seen: list[str] = []
    try:
        start = time.monotonic()
        for line in proc.stdout:
            seen.append(line.rstrip("\n"))
            if "rote_hf.train: 12 runs" in line or time.monotonic() - start > 240:
                break
    finally:
        killer.cancel()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
    text = "\n".join(seen)
    default = f"train.py: no --config given: running the default, the CogScale smoke sweep ({CONFIGS / 'cogscale_smoke.yaml'})"
    assert default in seen, text[-3000:]
    assert any("rote_hf.train: 12 runs" in line and "0 already stored; 1 process(es)" in line for line in seen), text[-3000:]


def test_several_configs_run_in_one_launch(tmp_path, capsys):
    """`--config A --config B` trains both sweeps (one worker start) and prints each suite's table;
    a bad second config stops before the first one trains anything."""
    rote = tmp_path / "rote_tiny.yaml"
    rote.write_text("name: rote_tiny\nsuite: rote\n"
                    "data: {seeds: {source: paper, track: main, symbols: [2], complexities: [10], seed_count: 1}, "
                    "sequence_length: 120, window: 8, horizon: 4}\n"
                    "models: [{name: 'tests.train.tiny:tiny_gru', units: 4}]\nprotocol: {max_epochs: 2}\nruns: 1\n")
    cog = tmp_path / "cog_tiny.yaml"
    cog.write_text("name: cog_tiny\nsuite: cogscale\n"
                   "data: {tasks: [adding_problem], difficulties: [small], seeds: [0]}\n"
                   "models: [{name: 'tests.train.tiny:tiny_gru', units: 4}]\n"
                   "learning_rates: [1.0e-2]\nprotocol: {max_epochs: 2, patience: 1}\n")
    train = _train_module()
    results = tmp_path / "results"
    bad = train.main(["--config", str(rote), "--config", "nope", "--results", str(results), "--no-progress"])
    assert bad == 2 and not results.exists()
    assert train.main(["--config", str(rote), "--config", str(cog), "--results", str(results), "--no-progress"]) == 0
    from rote_hf.results import load

    frame = load(results)
    assert sorted(frame["config_name"]) == ["cog_tiny", "rote_tiny"] and set(frame["status"]) == {"ok"}
    heads = [line.split()[:2] for line in capsys.readouterr().out.splitlines() if line.startswith(("model ", "task "))]
    assert heads == [["model", "fits"], ["task", "difficulty"]]  # the ROTE table, then the CogScale one
