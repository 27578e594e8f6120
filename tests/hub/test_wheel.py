"""Installed from its wheel (not editable), rote-hf builds the metric repos and the leaderboard
Space, and publishes a dry run, from a folder outside the checkout (issue 14 item 8)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT


def _run(cmd: list[str], cwd: Path, env: dict, timeout: int = 600) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd}: {proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.mark.slow
def test_wheel_install_builds_and_publishes_outside_the_checkout(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(HF_HOME=str(tmp_path / "hf"), HF_HUB_OFFLINE="1", HF_ENDPOINT="http://127.0.0.1:9",
               GRADIO_ANALYTICS_ENABLED="False", PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    src = tmp_path / "src"  # a clean copy of the tracked tree: no build/ leftovers, no _bundled
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO_ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    for rel in files:
        if (REPO_ROOT / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            (src / rel).write_bytes((REPO_ROOT / rel).read_bytes())
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(src)], tmp_path, env)
    (wheel,) = wheels.glob("rote_hf-*.whl")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path, env)
    py = venv / "bin" / "python"
    # reuse the shared venv's packages (torch & co.) without reinstalling them: a plain path line
    # adds its site-packages after the new venv's own, and does not run its .pth files, so the
    # shared editable install of rote_hf stays out of sight
    import sysconfig

    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path, env).stdout.strip())
    site.mkdir(parents=True, exist_ok=True)
    (site / "shared_venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", str(wheel)], tmp_path, env)
    # the shared venv's editable finder must not shadow the wheel
    where = _run([str(py), "-c", "import rote_hf, sys; print(rote_hf.__file__)"], tmp_path, env).stdout.strip()
    assert where.startswith(str(venv)), where
    # the wheel bundles eval_suite/metrics and space at build time: equal to the sources, file for file
    bundled = Path(where).parent / "_bundled"
    for kind, folder in (("metrics", "eval_suite/metrics"), ("space", "space")):
        tracked = [rel for rel in files if rel.startswith(folder + "/") and "__pycache__" not in rel]
        shipped = [p.relative_to(bundled / kind).as_posix() for p in (bundled / kind).rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts]  # pip compiles .pyc on install
        assert tracked and sorted(shipped) == sorted(rel.removeprefix(folder + "/") for rel in tracked)
        for rel in tracked:
            assert (bundled / kind / rel.removeprefix(folder + "/")).read_bytes() == (REPO_ROOT / rel).read_bytes(), rel
    work = tmp_path / "elsewhere"
    work.mkdir()
    cli = [str(py), "-m", "rote_hf.cli"]
    _run(cli + ["build", "metrics", "--root", ".", "--quiet"], work, env)
    _run(cli + ["build", "rote-seeds", "--root", ".", "--quiet"], work, env)
    _run(cli + ["build", "cogscale", "--config", "simple_copy-small", "--root", ".", "--quiet"], work, env)
    (work / "no-results").mkdir()  # --results is required: an empty store publishes the shipped rows only
    out = _run(cli + ["publish", "--root", ".", "--results", "no-results", "--quiet"], work, env).stdout
    assert out.splitlines()[-1] == "dry run: 10 repos assembled and validated for rote; upload with --push"
    assert (work / "rote" / "leaderboard" / "rote_hf" / "boards" / "tables.py").is_file()
    check = ("import evaluate; m = evaluate.load('rote/dl_distance'); "
             "print(m.compute(predictions=['ABBA'], references=['ABAB']))")
    assert _run([str(py), "-c", check], work, env).stdout.strip().splitlines()[-1] == "{'dl_distance': 0.25}"
