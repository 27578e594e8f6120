"""One leaderboard app per test module (modules stay independent): a subprocess serving a temporary
results store on a free 127.0.0.1 port, polled until it answers (the first 200 can take ~15 s)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT
from tests.space.rows import make_store

STARTUP_TIMEOUT_S = 180


@dataclass(frozen=True)
class App:
    url: str
    results: Path
    log: Path


def llm_sample_rows() -> list[dict]:
    """Two polynomial sequences per stratum (23 terms: 20 shown, 3 to predict), which a
    finite-difference responder continues exactly."""
    rows = []
    for stratum, polys in (("clean", ((1, 0, 0), (0, 2, 1))), ("revising", ((1, 1, 0), (0, 0, 3))),
                           ("wilderness", ((2, 0, 1), (0, 5, 0)))):
        for k, (a, b, c) in enumerate(polys):
            terms = [a * n * n + b * n + c for n in range(23)]
            rows.append({"anum": f"A9{len(rows):05d}", "stratum": stratum, "shown": terms[:20], "answer": terms[20:]})
    return rows


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Iterator[App]:
    base = tmp_path_factory.mktemp("leaderboard")
    results = base / "results"
    make_store(results)
    with serve_app(base, results) as running:
        yield running


@contextlib.contextmanager
def serve_app(base: Path, results: Path, *, shipped: bool = False) -> Iterator[App]:
    """``space/app.py`` over the store ``results`` (logs and samples in ``base``) until the block ends.
    The reproduction rows shipped with the package are left out unless ``shipped`` (they grow as the
    grid runs; the tests' counts are over their own store)."""
    port = free_port()
    log = base / "app.log"
    sample = base / "llm_sample.json"
    sample.write_text(json.dumps(llm_sample_rows()))
    # the LLM-query tab talks to a loopback server in the tests, which HF_HUB_OFFLINE would block;
    # HF_ENDPOINT still points at a closed port, so nothing reaches the Hub. The tab reaches public
    # addresses only: the tests' servers are allowed by name (`localhost`), as an operator allows
    # their own inference server; 127.0.0.1, [::1] and the rest stay refused (issue 26)
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONPATH": str(REPO_ROOT), "HF_HUB_OFFLINE": "0",
           "ROTE_LLM_SAMPLE": str(sample), "ROTE_LLM_ALLOWED_HOSTS": "localhost"}
    env.pop("ROTE_RESULTS_REPO", None)
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, str(REPO_ROOT / "space" / "app.py"), "--results", str(results),
                                 "--host", "127.0.0.1", "--port", str(port)]
                                + ([] if shipped else ["--no-shipped"]), stdout=out, stderr=subprocess.STDOUT,
                                env=env, cwd=base)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the app exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(url, timeout=5) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the app did not answer within {STARTUP_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield App(url=url, results=results, log=log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
