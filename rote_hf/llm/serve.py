"""A small OpenAI-compatible server over any responder, and a non-LLM baseline to serve.

``rote-hf llm-serve --port 8000`` serves :class:`DifferenceResponder` (or
``--local PATH``: a local transformers model) at ``http://127.0.0.1:8000/v1/chat/completions``,
so the whole HTTP path of ``eval_suite/llm_query.py`` can be tried without an API account, and a
local model can be shared by several runs. Only ``POST /v1/chat/completions`` is answered;
request bodies are capped at 1 MiB (a longer one is answered with a JSON 413), parsed with a
nesting limit (:func:`loads_limited`) and validated (:func:`check_request`: a malformed or too deeply
nested body is answered with a JSON 400 naming the field); it binds to 127.0.0.1 unless told otherwise.

:class:`DifferenceResponder` (registered as ``"difference"``) is a transparent baseline: it
finds the smallest order ``d <= 4`` at which the shown terms have constant ``d``-th differences
(polynomial sequences), extrapolates and answers with confidence 5; otherwise it abstains
(``NO_FORMULA_FOUND``), continues the last first difference and states confidence 1. It never
claims to recognise a sequence.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rote_hf.llm.prompt import ABSTAIN, next_key
from rote_hf.llm.responders import Responder, ResponderError, register_responder

MAX_BODY_BYTES = 1 << 20
#: Deepest nesting of arrays/objects a request body may have (a chat request needs about 5);
#: deeper bodies are answered with 400 before ``json.loads`` could hit Python's recursion limit.
MAX_JSON_DEPTH = 64
#: Most bytes of an over-long body read (and dropped) before its 413 answer, so that the client,
#: still sending, receives the answer instead of a reset connection; past this the server hangs up.
MAX_DRAIN_BYTES = 64 << 20
_JSON_NESTING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')  # a string (skipped) or a bracket
_TERMS = re.compile(r"Terms a\(1\)\.\.a\(\d+\):\s*([-\d,\s]+)")
_KEY = re.compile(r'"next_(three|\d+)"')


def _differences(terms: list[int]) -> list[int]:
    return [b - a for a, b in zip(terms, terms[1:])]


def extrapolate(terms: Sequence[int], k: int, max_order: int = 4) -> tuple[list[int], int | None]:
    """Next ``k`` terms by constant differences of the smallest order ``d <= max_order`` (and ``d``),
    or by the last first difference and ``None`` when no order fits (needs ``d + 2`` terms)."""
    rows = [list(terms)]
    for d in range(max_order + 1):
        row = rows[-1]
        if len(row) >= 2 and len(set(row)) == 1:
            break
        if len(row) < 3:
            d = None
            break
        rows.append(_differences(row))
    else:
        d = None
    if d is None:
        step = terms[-1] - terms[-2] if len(terms) > 1 else 0
        return [terms[-1] + step * (i + 1) for i in range(k)], None
    lasts = [r[-1] for r in rows]  # last entry of each difference row; the deepest is constant
    out = []
    for _ in range(k):
        for i in range(len(lasts) - 2, -1, -1):
            lasts[i] += lasts[i + 1]
        out.append(lasts[0])
    return out, d


@register_responder("difference")
class DifferenceResponder:
    """The finite-difference baseline (see the module docstring). Deterministic, instant."""

    model_id = "baseline:differences"

    def __init__(self, max_order: int = 4) -> None:
        if not isinstance(max_order, int) or not 0 <= max_order <= 10:
            raise ValueError(f"max_order must be an int in 0..10, got {max_order!r}")
        self.max_order = max_order

    def settings(self) -> dict[str, Any]:
        return {"responder": "difference", "model": self.model_id, "max_order": self.max_order}

    def respond(self, messages: Sequence[Mapping[str, str]]) -> str:
        user = "\n".join(m.get("content") or "" for m in messages if m.get("role") == "user")
        found = _TERMS.search(user)
        if not found:
            raise ResponderError("no 'Terms a(1)..a(N): ...' line in the user message")
        terms = [int(t) for t in re.split(r"[,\s]+", found.group(1).strip()) if t]
        key = _KEY.search(user)
        k = 3 if key is None or key.group(1) == "three" else int(key.group(1))
        nxt, d = extrapolate(terms, k, self.max_order)
        formula = ABSTAIN if d is None else f"constant differences of order {d}"
        return json.dumps({next_key(k): nxt, "formula": formula, "confidence": 1 if d is None else 5,
                           "recognized": False, "name_if_recognized": ""})


class RequestError(ValueError):
    """A chat-completions request body that does not follow the OpenAI schema (answered with 400)."""


def check_request(body: Any) -> list[dict[str, str | None]]:
    """The messages of a chat-completions request body, validated: a JSON object with ``messages``,
    a non-empty list of objects, each with a string ``role`` and a ``content`` that is a string or
    null; ``model``, when present, a string. :class:`RequestError` names the offending field."""
    if not isinstance(body, dict):
        raise RequestError(f"body must be a JSON object, got {type(body).__name__}")
    if "model" in body and not isinstance(body["model"], str):
        raise RequestError("model must be a string")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("messages must be a non-empty list of {role, content} objects")
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise RequestError(f"messages[{i}] must be an object, got {type(m).__name__}")
        if not isinstance(m.get("role"), str):
            raise RequestError(f"messages[{i}].role must be a string")
        if "content" not in m or not (m["content"] is None or isinstance(m["content"], str)):
            raise RequestError(f"messages[{i}].content must be a string or null")
    return [{"role": m["role"], "content": m["content"]} for m in messages]


def loads_limited(text: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads(text)`` for a body nested at most ``max_depth`` arrays/objects deep; deeper
    text raises :class:`RequestError` naming the limit (checked first, in time linear in the text,
    so ``json.loads`` never recurses past it)."""
    depth = 0
    for match in _JSON_NESTING.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > max_depth:
                raise RequestError(f"body must be JSON nested at most {max_depth} arrays/objects deep")
        elif token in ("]", "}"):
            depth -= 1
    return json.loads(text)


def make_server(responder: Responder, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """An HTTP server answering OpenAI chat completions with ``responder`` (call ``serve_forever``)."""
    lock = threading.Lock()  # one generation at a time: local models are not thread-safe

    class Handler(BaseHTTPRequestHandler):
        timeout = 30  # seconds per socket read: a client that stops mid-body does not hold a thread forever

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _drain(self, length: int) -> None:
            """Read and drop up to :data:`MAX_DRAIN_BYTES` of a body that will not be parsed."""
            left = min(length, MAX_DRAIN_BYTES)
            while left > 0:
                chunk = self.rfile.read(min(left, 1 << 16))
                if not chunk:
                    break
                left -= len(chunk)
            self.close_connection = True

        def do_POST(self) -> None:  # noqa: N802
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self._send(404, {"error": {"message": "only POST /v1/chat/completions is served"}})
            try:
                length = int(self.headers.get("Content-Length", 0) or 0)
                if length < 0:
                    raise ValueError
            except ValueError:
                return self._send(400, {"error": {"message": "Content-Length must be a non-negative integer"}})
            if length > MAX_BODY_BYTES:
                self._drain(length)
                return self._send(413, {"error": {"message": f"request body over {MAX_BODY_BYTES} bytes",
                                                  "type": "invalid_request_error"}})
            try:
                body = loads_limited((self.rfile.read(length) or b"{}").decode("utf-8"))
                messages = check_request(body)
            except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError included
                msg = str(exc) if isinstance(exc, RequestError) else "body must be UTF-8 JSON"
                return self._send(400, {"error": {"message": msg, "type": "invalid_request_error"}})
            try:
                with lock:
                    content = responder.respond(messages)
            except ResponderError as exc:
                return self._send(500, {"error": {"message": str(exc)[:500]}})
            except Exception as exc:  # noqa: BLE001 - a responder bug is a 500 answer, not a dropped connection
                return self._send(500, {"error": {"message": f"responder failed: {type(exc).__name__}"}})
            self._send(200, {
                "id": "chatcmpl-rote-hf", "object": "chat.completion", "created": 0,
                "model": body.get("model", responder.model_id),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            })

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: Any, client_address: Any) -> None:
            # a client that hangs up mid-answer (or any other socket error) is not worth a traceback
            import sys

            print(f"llm-serve: request from {client_address[0]} failed: {sys.exc_info()[0].__name__}",
                  file=sys.stderr)

    return Server((host, port), Handler)
