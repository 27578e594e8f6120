"""The Makefile's optional TORCH_INDEX (issue 31): a URL reaches the one pip install as an extra
index, a folder as a wheel folder, and nothing changes without it (``make -n``: nothing runs)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.helpers import REPO_ROOT


def _pip_line(*args: str) -> str:
    """The pip command `make install ARGS` would run (-B: as on a fresh checkout, -n: not run)."""
    out = subprocess.run(["make", "-n", "-B", "install", *args], cwd=REPO_ROOT, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return next(line for line in out.stdout.splitlines() if "pip install" in line)


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_torch_index_reaches_the_pip_install():
    plain = _pip_line()
    assert plain.split() == [".venv/bin/python", "-m", "pip", "install", "--progress-bar", "on", "-e", '".[test]"']
    url = "https://download.pytorch.org/whl/cpu"
    assert f"--extra-index-url {url} -e" in _pip_line(f"TORCH_INDEX={url}")
    assert "--find-links /opt/wheels -e" in _pip_line("TORCH_INDEX=/opt/wheels")
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert f"make demo TORCH_INDEX={url}" in readme and "TORCH_INDEX=/path/to/wheels" in readme
