"""``rote-hf llm-serve`` as a real subprocess, fed malformed requests over raw HTTP (issue 12, item 10):
every one gets a JSON 400 (never a dropped connection), and no traceback reaches the log."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys

import pytest

from rote_hf.llm import build_messages
from tests.helpers import REPO_ROOT

GOOD_MESSAGES = build_messages([3 * n + 1 for n in range(20)])

BAD_BODIES = {
    "invalid JSON": b'{"messages": [',
    "not UTF-8": b'\xff\xfe{"messages": []}',
    "body a list": b"[1, 2]",
    "body a string": b'"hello"',
    "missing messages": b'{"model": "x"}',
    "messages not a list": json.dumps({"messages": "hi"}).encode(),
    "messages empty": json.dumps({"messages": []}).encode(),
    "message not an object": json.dumps({"messages": [1]}).encode(),
    "content a number": json.dumps({"messages": [{"role": "user", "content": 5}]}).encode(),
    "content a list": json.dumps({"messages": [{"role": "user", "content": ["a"]}]}).encode(),
    "missing role": json.dumps({"messages": [{"content": "x"}]}).encode(),
    "role a number": json.dumps({"messages": [{"role": 1, "content": "x"}]}).encode(),
    "missing content": json.dumps({"messages": [{"role": "user"}]}).encode(),
    "model not a string": json.dumps({"model": 3, "messages": GOOD_MESSAGES}).encode(),
}


@pytest.fixture
def served():  # one server per test: each test ends by stopping it and reading its log
    proc = subprocess.Popen([sys.executable, "-m", "rote_hf.cli", "llm-serve", "--port", "0"], cwd=REPO_ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    line = proc.stdout.readline()
    assert line.startswith("serving baseline:differences at http://127.0.0.1:"), line
    port = int(line.split()[3].rsplit(":", 1)[1].split("/")[0])
    yield proc, port
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)  # generous: a loaded machine may take long to stop


def _post(port: int, body: bytes, headers: dict | None = None) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", "/v1/chat/completions", body=body,
                 headers={"Content-Type": "application/json", **(headers or {})})
    resp = conn.getresponse()
    status, payload = resp.status, json.loads(resp.read())
    conn.close()
    return status, payload


def test_malformed_bodies_get_a_json_400_and_no_traceback(served):
    proc, port = served
    for name, body in BAD_BODIES.items():
        status, payload = _post(port, body)
        assert status == 400, name
        assert isinstance(payload["error"]["message"], str) and payload["error"]["message"], name
    for length in ("abc", "-5"):
        status, payload = _post(port, b"{}", {"Content-Length": length})
        assert status == 400 and "Content-Length" in payload["error"]["message"]
    # content null is allowed (OpenAI: an assistant message may carry none); the server still answers
    msgs = [{"role": "assistant", "content": None}, *GOOD_MESSAGES]
    status, payload = _post(port, json.dumps({"model": "x", "messages": msgs}).encode())
    assert status == 200 and "[61, 64, 67]" in payload["choices"][0]["message"]["content"]
    # a message the baseline cannot read is the responder's failure: a JSON 500, no traceback
    status, payload = _post(port, json.dumps({"messages": [{"role": "user", "content": "hello"}]}).encode())
    assert status == 500 and "Terms" in payload["error"]["message"]
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert proc.returncode in (0, 130)


def test_deep_nesting_and_huge_bodies_get_a_json_answer_not_a_dropped_connection(served):
    """Issue 31: JSON nested 5,000 deep made json.loads raise RecursionError (connection closed
    without an answer); a body over the 1 MiB cap got its 413 before the client had sent it, so the
    client saw a broken pipe. Now: a JSON 400 naming the depth limit, and a 413 the client reads."""
    proc, port = served
    for body in (b"[" * 5000 + b"]" * 5000, b'{"messages": ' + b"[" * 5000 + b"]" * 5000 + b"}",
                 b"{" * 600_000):
        status, payload = _post(port, body)
        assert status == 400, body[:20]
        assert payload["error"]["message"] == "body must be JSON nested at most 64 arrays/objects deep"
    status, payload = _post(port, b" " * (8 << 20))  # 8 MiB
    assert status == 413 and payload["error"]["message"] == "request body over 1048576 bytes"
    # brackets inside strings are text, not nesting; the server still answers normally after all this
    msgs = [{"role": "system", "content": "[" * 200 + '\\"{' * 100}, *GOOD_MESSAGES]
    status, payload = _post(port, json.dumps({"messages": msgs}).encode())
    assert status == 200 and "[61, 64, 67]" in payload["choices"][0]["message"]["content"]
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err and "RecursionError" not in err and "failed" not in err, err
