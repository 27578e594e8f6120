"""`space/app.py` refuses a bad --port before serving (issue 31): argparse's one error line naming
--port and 0..65535, exit 2, no traceback (a port past 65535 used to reach the server start)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.helpers import REPO_ROOT


@pytest.mark.parametrize("port", ["99999", "-1", "1_0"])
def test_bad_port_is_one_error_line(tmp_path, port):
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    env.pop("GRADIO_SERVER_PORT", None)
    out = subprocess.run([sys.executable, str(REPO_ROOT / "space" / "app.py"), f"--port={port}", "--results",
                          str(tmp_path / "res")], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr[-2000:]
    assert "Traceback" not in out.stderr and "Running on" not in out.stdout, out.stderr[-2000:]
    last = out.stderr.strip().splitlines()[-1]  # argparse's usage line comes first, as for train.py
    assert last.startswith("space/app.py: error: argument --port: "), out.stderr
    assert ("port must be in 0..65535" in last) or ("invalid int value" in last), last
    assert not (tmp_path / "res").exists()
