"""A real OpenAI-compatible chat-completions server on 127.0.0.1 (stdlib, a thread, port 0).

Replies are scripted per request: ``route(body) -> (status, content)``. Every request's JSON body
and headers are recorded. Used by the tests and by ``python tests/llm/stub_server.py`` (docs).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Route = Callable[[dict], tuple[int, str | None]]


class StubServer:
    """``with StubServer(route) as s: s.base_url`` -> ``http://127.0.0.1:PORT/v1``."""

    def __init__(self, route: Route) -> None:
        self.route = route
        self.requests: list[dict] = []  # {"path", "body", "headers"}
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append({"path": self.path, "body": body,
                                          "headers": {k.lower(): v for k, v in self.headers.items()}})
                if self.path != "/v1/chat/completions":
                    status, payload = 404, {"error": {"message": f"no route {self.path}"}}
                else:
                    status, content = stub.route(body)
                    if status == 200:
                        payload = {"id": "chatcmpl-stub", "object": "chat.completion", "created": 0,
                                   "model": body.get("model"),
                                   "choices": [{"index": 0, "finish_reason": "stop",
                                                "message": {"role": "assistant", "content": content}}],
                                   "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                    else:
                        payload = {"error": {"message": content or "server error"}}
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "StubServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


def scripted(replies: dict[str, list[tuple[int, str | None]]], default: tuple[int, str | None] = (200, "")) -> Route:
    """Route by the first line of the user message: each key's replies are served in order, the
    last one repeating. Keys are the exact text ``Terms a(1)..a(N): ...``."""
    lock = threading.Lock()
    served: dict[str, int] = {}

    def route(body: dict) -> tuple[int, str | None]:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        key = user.splitlines()[0]
        if key not in replies:
            return default
        with lock:
            i = served.get(key, 0)
            served[key] = i + 1
        seq = replies[key]
        return seq[min(i, len(seq) - 1)]

    return route
