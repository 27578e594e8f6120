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
TEST_USER = "tester"


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
def serve_app(base: Path, results: Path, *, shipped: bool = False, user: str | None = TEST_USER,
              limits: tuple[int, int] = (1000, 1000)) -> Iterator[App]:
    """``space/app.py`` over the store ``results`` (logs and samples in ``base``) until the block ends.
    The reproduction rows shipped with the package are left out unless ``shipped`` (they grow as the
    grid runs; the tests' counts are over their own store). ``user``: the app runs through
    ``tests/space/signed_in_app.py``, whose sign-in button signs that user in (:func:`signed_in`);
    ``None``: ``space/app.py`` itself, where nobody can sign in. ``limits``: submissions and LLM
    queries per user per day."""
    port = free_port()
    log = base / "app.log"
    sample = base / "llm_sample.json"
    sample.write_text(json.dumps(llm_sample_rows()))
    # the LLM-query tab talks to a loopback server in the tests, which HF_HUB_OFFLINE would block;
    # HF_ENDPOINT still points at a closed port, so nothing reaches the Hub. The tab reaches public
    # addresses only: the tests' servers are allowed by name (`localhost`), as an operator allows
    # their own inference server; 127.0.0.1, [::1] and the rest stay refused (issue 26)
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONPATH": str(REPO_ROOT), "HF_HUB_OFFLINE": "0",
           "ROTE_LLM_SAMPLE": str(sample), "ROTE_LLM_ALLOWED_HOSTS": "localhost",
           "ROTE_SUBMISSIONS_PER_DAY": str(limits[0]), "ROTE_LLM_QUERIES_PER_DAY": str(limits[1])}
    for name in ("ROTE_RESULTS_REPO", "ROTE_REQUESTS_REPO", "SPACE_ID", "ROTE_TEST_USER"):
        env.pop(name, None)
    script = REPO_ROOT / "space" / "app.py"
    if user is not None:
        env["ROTE_TEST_USER"] = user
        script = REPO_ROOT / "tests" / "space" / "signed_in_app.py"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, str(script), "--results", str(results),
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


def session_cookie(url: str, user: str | None = None) -> str:
    """Sign in through the app's sign-in route (what the "Sign in with Hugging Face" button opens;
    the stand-in of ``tests/space/signed_in_app.py``) as ``user`` (default: the app's test user)
    and return the ``Cookie`` header it set."""
    import httpx

    with httpx.Client(base_url=url, timeout=30) as http:
        response = http.get("login/huggingface", params={"test_user": user} if user else None,
                            follow_redirects=False)
    if not response.cookies:
        raise RuntimeError(f"signing in set no cookie ({response.status_code})")
    return "; ".join(f"{k}={v}" for k, v in response.cookies.items())


def signed_in(url: str, user: str | None = None):
    """A ``gradio_client.Client`` of the app at ``url`` with a signed-in session (see :func:`serve_app`)."""
    import gradio_client

    return gradio_client.Client(url, verbose=False, headers={"Cookie": session_cookie(url, user)})
