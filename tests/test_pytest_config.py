"""The per-test timeout of pyproject.toml covers test functions, not fixtures (issue 31): a slow
session fixture (the docs' mirror build) must not use up the time of the first test that needs it."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.helpers import REPO_ROOT

SLOW_FIXTURE = """
import time

import pytest


@pytest.fixture(scope="session")
def built():
    time.sleep(4)
    return 1


def test_uses_it(built):
    assert built == 1


def test_a_slow_test_still_times_out():
    time.sleep(30)
"""


def test_fixtures_build_outside_the_per_test_timeout(tmp_path):
    (tmp_path / "test_slow_fixture.py").write_text(SLOW_FIXTURE)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-c", str(REPO_ROOT / "pyproject.toml"), "--rootdir",
                           str(tmp_path), "-p", "no:xdist", "-p", "no:randomly", "-q", "--timeout=2",
                           str(tmp_path / "test_slow_fixture.py")],
                          cwd=tmp_path, env={**os.environ}, capture_output=True, text=True, timeout=120)
    assert "1 failed, 1 passed" in proc.stdout, proc.stdout[-3000:]
    assert "test_a_slow_test_still_times_out" in proc.stdout and "Timeout" in proc.stdout, proc.stdout[-3000:]
