"""The LLM client, cache and CLI under careless or hostile servers (issue 12, items 5-9).

Every server here is real: the stub on 127.0.0.1, or a raw socket server that drips bytes.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from rote_hf.llm import (
    OpenAICompatibleResponder, ReplyCache, ResponderError, RetryPolicy, SampleItem, build_messages, evaluate_llm,
)
from tests.helpers import REPO_ROOT
from tests.llm.stub_server import StubServer

GOOD = json.dumps({"next_three": [21, 22, 23], "formula": "a(n) = n + 1", "confidence": 5, "recognized": True,
                   "name_if_recognized": ""})
ITEMS = [SampleItem(f"A00000{i}", "clean", tuple(range(i, i + 20)), tuple(range(i + 20, i + 23)))
         for i in range(1, 4)]


@pytest.fixture()
def online(monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.delenv("ROTE_LLM_API_KEY", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)


def _resp(url, model="victim", **kw):
    kw.setdefault("retry", RetryPolicy(max_retries=0, backoff_s=0))
    return OpenAICompatibleResponder(url, model, **kw)


# ---- item 5: the cache is keyed by endpoint, model, prompt and sampling parameters ---------------------------

def test_cache_is_keyed_by_endpoint_and_sampling_not_model_name(online, tmp_path):
    with StubServer(lambda body: (200, GOOD)) as a, StubServer(lambda body: (200, GOOD)) as b:
        first = evaluate_llm(ITEMS, _resp(a.base_url, api_key="token-A"), cache_dir=tmp_path / "c")
        assert (first.n_asked, len(a.requests)) == (3, 3)
        # same model name, another server (and token): B must be asked, A's replies must not come back
        other = evaluate_llm(ITEMS, _resp(b.base_url, api_key="token-B"), cache_dir=tmp_path / "c")
        assert (other.n_asked, other.n_cached, len(b.requests)) == (3, 0, 3)
        # same endpoint, other sampling parameters: asked again
        for kw in ({"temperature": 0.7}, {"seed": 1}, {"max_tokens": 7}, {"json_mode": True}):
            again = evaluate_llm(ITEMS, _resp(a.base_url, **kw), cache_dir=tmp_path / "c")
            assert again.n_asked == 3, kw
        # the very same settings and token are served from the cache; another token is asked again
        # (issue 26: the cache is scoped to the caller's credentials, by a keyed hash of the token)
        n = len(a.requests)
        same = evaluate_llm(ITEMS, _resp(a.base_url, api_key="token-A"), cache_dir=tmp_path / "c")
        assert (same.n_cached, len(a.requests)) == (3, n)
        other_token = evaluate_llm(ITEMS, _resp(a.base_url, api_key="token-C"), cache_dir=tmp_path / "c")
        assert (other_token.n_cached, len(a.requests)) == (0, n + 3)
    text = (tmp_path / "c" / "replies.jsonl").read_text()
    assert "token-" not in text
    assert all(json.loads(line)["endpoint"].startswith("http://127.0.0.1:") for line in text.splitlines())


def test_cache_key_distinguishes_identities():
    from rote_hf.llm.cache import cache_key

    msgs = build_messages(range(20))
    base = {"endpoint": "http://127.0.0.1:1/v1", "model": "m", "temperature": 0.0}
    assert cache_key(base, msgs) == cache_key(dict(reversed(list(base.items()))), msgs)  # order-free
    assert cache_key(base, msgs) != cache_key({**base, "endpoint": "http://127.0.0.1:2/v1"}, msgs)
    assert cache_key(base, msgs) != cache_key({**base, "temperature": 0.5}, msgs)
    assert cache_key(base, msgs) != cache_key(base, build_messages(range(1, 21)))


def test_endpoint_identity_is_the_origin_with_explicit_port_and_no_token(online):
    r = _resp("HTTPS://Example.org/v1", api_key="sk-secret")
    ident = r.cache_identity()
    assert ident["endpoint"] == "https://example.org:443/v1"
    assert "sk-secret" not in json.dumps(ident)
    assert {"model", "temperature", "seed", "max_tokens", "json_mode", "max_reply_chars"} <= set(ident)


# ---- item 6: a 200 without usable content is a protocol error, retried, never cached -------------------------

@pytest.mark.parametrize("payload", [{"foo": 1}, {"choices": []}, {"choices": [{"message": {"content": None}}]},
                                     {"choices": [{"message": {"role": "assistant"}}]}, [1, 2]])
def test_200_without_content_is_api_error_retried_and_not_cached(online, tmp_path, payload):
    calls = []

    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            calls.append(1)
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        r = _resp(url, retry=RetryPolicy(max_retries=2, backoff_s=0))
        with pytest.raises(ResponderError, match="no usable content.*3 attempts"):
            r.respond(build_messages(range(20)))
        assert len(calls) == 3  # retried by the policy
        rep = evaluate_llm(ITEMS[:1], _resp(url), cache_dir=tmp_path / "c")
        assert rep.records[0].parsed.status == "api_error"
        assert len(ReplyCache(tmp_path / "c")) == 0  # never cached as the model's answer
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_empty_string_content_is_the_models_answer(online, tmp_path):
    with StubServer(lambda body: (200, "")) as s:
        rep = evaluate_llm(ITEMS[:1], _resp(s.base_url), cache_dir=tmp_path / "c")
    assert rep.records[0].parsed.status == "no_json" and len(ReplyCache(tmp_path / "c")) == 1


# ---- item 7: --timeout bounds the whole request ----------------------------------------------------------------

class DripServer:
    """A raw TCP server on 127.0.0.1 that reads a request, then drips its answer one byte per ``every`` s.
    ``phase="body"``: headers at once, then the body dripped; ``phase="headers"``: the headers dripped."""

    def __init__(self, phase: str = "body", every: float = 0.5) -> None:
        self.phase, self.every = phase, every
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        body = json.dumps({"choices": [{"message": {"role": "assistant", "content": GOOD}}]}).encode()
        head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                "X-Pad: " + "x" * 400 + "\r\n\r\n").encode()
        try:
            conn.recv(65536)
            if self.phase == "body":
                conn.sendall(head)
            for byte in (head + body if self.phase == "headers" else body):
                if self.stop.wait(self.every):
                    break
                conn.sendall(bytes([byte]))
        except OSError:
            pass
        finally:
            conn.close()

    def __enter__(self) -> "DripServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()


@pytest.mark.parametrize("phase", ["body", "headers"])
def test_timeout_bounds_the_whole_request(online, phase):
    with DripServer(phase) as s:
        r = _resp(s.base_url, timeout_s=1.5)
        t0 = time.monotonic()
        with pytest.raises(ResponderError, match="timed out after 1.5 s"):
            r.respond(build_messages(range(20)))
        elapsed = time.monotonic() - t0
    assert 1.4 <= elapsed < 2.5, elapsed  # a 0.5 s drip would otherwise run for minutes


def test_timeout_is_retried_and_each_try_is_bounded(online):
    with DripServer("body") as s:
        r = _resp(s.base_url, timeout_s=0.6, retry=RetryPolicy(max_retries=1, backoff_s=0))
        t0 = time.monotonic()
        with pytest.raises(ResponderError, match="2 attempts"):
            r.respond(build_messages(range(20)))
        assert time.monotonic() - t0 < 2.5


# ---- item 8: a torn last line is skipped and later appends start on their own line -----------------------------

def test_cache_survives_a_torn_last_line(tmp_path):
    msgs = [build_messages(range(i, i + 20)) for i in range(3)]
    ident = {"endpoint": "http://127.0.0.1:1/v1", "model": "m"}
    c = ReplyCache(tmp_path)
    c.put(ident, msgs[0], "first")
    path = tmp_path / "replies.jsonl"
    whole = path.read_bytes()
    with open(path, "ab") as fh:  # a crash mid-append: half a record, no newline
        fh.write(b'{"key": "abc", "reply": "to')
    c2 = ReplyCache(tmp_path)
    assert len(c2) == 1 and c2.torn_lines == 1
    c2.put(ident, msgs[1], "second")
    c2.put(ident, msgs[2], "third")
    lines = path.read_bytes().split(b"\n")
    assert lines[0] + b"\n" == whole and lines[1] == b'{"key": "abc", "reply": "to'  # kept for inspection
    c3 = ReplyCache(tmp_path)
    assert [c3.get(ident, m) for m in msgs] == ["first", "second", "third"]
    assert c3.torn_lines == 1


def test_cache_with_a_torn_only_line_and_garbage(tmp_path):
    path = tmp_path / "replies.jsonl"
    path.write_bytes(b'\x00\xff{"ke')
    c = ReplyCache(tmp_path)
    assert len(c) == 0 and c.torn_lines == 1
    ident = {"model": "m"}
    c.put(ident, build_messages(range(20)), "ok")
    assert ReplyCache(tmp_path).get(ident, build_messages(range(20))) == "ok"


# ---- item 9: llm-query exits nonzero when every call failed, failures counted by reason -----------------------

def _rows_file(tmp_path):
    f = tmp_path / "rows.json"
    f.write_text(json.dumps([{"anum": it.anum, "stratum": it.stratum, "shown": [str(t) for t in it.shown],
                              "answer": [str(t) for t in it.answer]} for it in ITEMS]))
    return f


def _query(tmp_path, url, *extra):
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HF_HUB_OFFLINE": "0"}
    env.pop("ROTE_LLM_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "rote_hf.cli", "llm-query", "--base-url", url, "--model", "m",
                           "--dataset", str(_rows_file(tmp_path)), "--results", str(tmp_path / "res"),
                           "--retries", "0", "--timeout", "5", "--no-progress", *extra],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_llm_query_exits_nonzero_when_every_call_failed(tmp_path):
    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    out = _query(tmp_path, f"http://127.0.0.1:{port}/v1")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    assert "every call failed" in out.stderr
    assert "failures: 3 api_error (ConnectError: 3)" in out.stdout


def test_llm_query_counts_failures_by_reason_and_exits_0_when_some_replied(tmp_path):
    def route(body):
        first = body["messages"][-1]["content"].splitlines()[0]
        return {"1": (503, "busy"), "2": (200, "no json here")}.get(first.split(": ")[1].split(",")[0], (200, GOOD))

    with StubServer(route) as s:
        out = _query(tmp_path, s.base_url)
    assert out.returncode == 0, out.stderr
    assert "failures: 1 api_error (HTTP 503: 1), 1 no_json" in out.stdout
