"""The test environment of conftest.py leaves nothing behind: each test process's private HF home
(``rote-hf-test-home-*`` in the temp dir) is removed when that process exits."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.helpers import REPO_ROOT


def test_a_test_run_leaves_no_hf_home_in_the_temp_dir(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0",
                           "tests/test_registry.py"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert " passed" in proc.stdout
    assert sorted(p.name for p in tmp.iterdir() if p.name.startswith("rote-hf-test-home-")) == []
