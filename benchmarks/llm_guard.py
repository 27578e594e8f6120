"""What the guards of the LLM-query client cost and bound (issue 26, item 6).

    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python benchmarks/llm_guard.py

Prints, against real servers on 127.0.0.1 (allowed by name, as an operator would):
1. the wall time of one call through the guarded client (a lookup and an address check per new
   connection) next to huggingface_hub's InferenceClient, the client it replaced;
2. a server dripping one byte a second under a 3 s whole-query deadline: when the query returns,
   and when the server sees its connection shut;
3. a quick query while two visitors' queries wait on 5-second answers (VisitorQueries);
4. the reply cache under a 1 MiB quota: mean time per put over 5,000 puts, and the file size.
"""

from __future__ import annotations

import json
import select
import socket
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rote_hf.llm import (  # noqa: E402
    NetworkPolicy, OpenAICompatibleResponder, QueryLimits, ReplyCache, RetryPolicy, SampleItem, VisitorQueries,
    build_messages, run_queries,
)

GOOD = json.dumps({"next_three": [21, 22, 23], "formula": "a(n) = n + 1", "confidence": 5, "recognized": True})
LOOPBACK = NetworkPolicy.public_only(allowed_hosts="127.0.0.1")
ITEMS = [SampleItem(f"A{i:06d}", "clean", tuple(range(i, i + 20)), tuple(range(i + 20, i + 23))) for i in range(3)]


def serve(delay_s: float = 0.0) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def setup(self) -> None:
            super().setup()
            # headers and body go out in two writes: without this, Nagle waits for the client's
            # delayed ACK (40 ms) and every client looks 40 ms slow
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            time.sleep(delay_s)
            data = json.dumps({"choices": [{"message": {"role": "assistant", "content": GOOD}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def url(httpd: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}/v1"


def call_latency(n: int = 300) -> tuple[float, float]:
    from huggingface_hub import InferenceClient, constants

    constants.HF_HUB_OFFLINE = False
    httpd = serve()
    msgs = build_messages(range(20))
    guarded = OpenAICompatibleResponder(url(httpd), "m", network=LOOPBACK)
    plain = InferenceClient(base_url=url(httpd), api_key="EMPTY", timeout=60)
    times = {"guarded": [], "plain": []}
    for _ in range(n):
        t0 = time.perf_counter()
        guarded.respond(msgs)
        times["guarded"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        plain.chat_completion(msgs, model="m", temperature=0, max_tokens=1024, seed=0)
        times["plain"].append(time.perf_counter() - t0)
    httpd.shutdown()
    return statistics.median(times["guarded"]) * 1e3, statistics.median(times["plain"]) * 1e3


def drip(deadline_s: float = 3.0) -> tuple[float, float]:
    sock = socket.create_server(("127.0.0.1", 0))
    shut: dict[str, float] = {}

    def one() -> None:
        conn, _ = sock.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
        try:
            while True:
                ready, _, _ = select.select([conn], [], [], 1.0)  # a byte a second, or the client's FIN
                if ready and conn.recv(1) == b"":
                    break
                conn.sendall(b" ")
        except OSError:
            pass
        shut["t"] = time.monotonic()

    threading.Thread(target=one, daemon=True).start()
    r = OpenAICompatibleResponder(f"http://127.0.0.1:{sock.getsockname()[1]}/v1", "m", network=LOOPBACK,
                                  timeout_s=3600, retry=RetryPolicy(max_retries=3))
    t0 = time.monotonic()
    run_queries(ITEMS[:1], r, deadline_s=deadline_s)
    returned = time.monotonic() - t0
    while "t" not in shut and time.monotonic() - t0 < deadline_s + 5:
        time.sleep(0.05)
    return returned, shut.get("t", float("nan")) - t0


def fairness(slow_s: float = 5.0) -> float:
    from huggingface_hub import constants

    constants.HF_HUB_OFFLINE = False
    slow_a, slow_b, quick = serve(slow_s), serve(slow_s), serve()
    with tempfile.TemporaryDirectory() as tmp:
        service = VisitorQueries(tmp, network=LOOPBACK, limits=QueryLimits(concurrency=1))
        threads = [threading.Thread(target=service.run, args=(u, url(s), "m", "", ITEMS[:1]))
                   for u, s in (("a", slow_a), ("b", slow_b))]
        for t in threads:
            t.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        service.run("c", url(quick), "m", "", ITEMS[:1])
        quick_s = time.monotonic() - t0
        for t in threads:
            t.join()
    return quick_s


def cache_quota(n: int = 5000, quota: int = 2**20) -> tuple[float, int, int]:
    ident = {"endpoint": "http://127.0.0.1:1/v1", "model": "m"}
    reply = GOOD + " " + "x" * 600
    with tempfile.TemporaryDirectory() as tmp:
        cache = ReplyCache(tmp, max_bytes=quota)
        msgs = [build_messages(range(i, i + 20)) for i in range(n)]
        t0 = time.perf_counter()
        for m in msgs:
            cache.put(ident, m, reply)
        per_put = (time.perf_counter() - t0) / n
        return per_put * 1e6, (Path(tmp) / "replies.jsonl").stat().st_size, cache.evicted


if __name__ == "__main__":
    g, p = call_latency()
    print(f"1. one call on loopback (median of 300): guarded client {g:.2f} ms, InferenceClient {p:.2f} ms")
    returned, shut = drip()
    print(f"2. 1 byte/s server, 3 s deadline: query returned after {returned:.2f} s, server saw the socket shut "
          f"after {shut:.2f} s")
    print(f"3. quick query while two 5 s queries run: {fairness():.3f} s")
    per_put, size, evicted = cache_quota()
    print(f"4. 5,000 puts under a 1 MiB quota: {per_put:.0f} us per put, file {size:,} bytes, {evicted:,} evicted")
