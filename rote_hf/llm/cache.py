"""A resumable cache of raw replies, keyed by everything that determines a reply.

One JSON line per answered call in ``<dir>/replies.jsonl``: ``key`` (SHA-256 of the responder's
*identity* and the canonical JSON of the messages), ``model``, ``endpoint`` (the server's origin
and path, never a token; empty for local responders), ``reply`` (the raw text, already free of
any token), ``time`` (UTC). The identity is what the responder's ``cache_identity()`` returns:
for an HTTP responder the endpoint (``scheme://host:port/path``), the model and every sampling
parameter (temperature, seed, max_tokens, json mode, reply cap) -- so the same model name on
another server, or with another temperature, is asked again rather than answered from here.

Only replies that came back are cached; failed calls (``api_error``, including a 200 answer
without content) are asked again on the next run. Each record is appended with one write and
flushed; a torn line (a crash mid-append) is skipped on load and counted in ``torn_lines``, and
the next append starts on a line of its own, so nothing valid is lost.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rote_hf.results.provenance import utc_timestamp

CACHE_FILE = "replies.jsonl"

Identity = Mapping[str, Any]


def cache_key(identity: Identity | str, messages: Sequence[Mapping[str, str]]) -> str:
    """SHA-256 hex of the responder identity (a mapping, order-free; a bare string is read as
    ``{"model": s}``) and the canonical JSON of ``messages``."""
    ident = {"model": identity} if isinstance(identity, str) else dict(identity)
    blob = json.dumps([ident, [dict(m) for m in messages]], sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class ReplyCache:
    """Raw replies on disk under ``root`` (a folder); thread-safe ``get``/``put``."""

    def __init__(self, root: str | os.PathLike) -> None:
        if not isinstance(root, (str, os.PathLike)):
            raise TypeError(f"root must be a path, got {type(root).__name__}")
        self.root = Path(root)
        self.path = self.root / CACHE_FILE
        self._lock = threading.Lock()
        self._replies: dict[str, str] = {}
        self.torn_lines = 0  # lines skipped on load (a crash mid-append, or garbage)
        self._starts_clean = True  # False when the file does not end with a newline
        if self.path.is_file():
            data = self.path.read_bytes()
            self._starts_clean = not data or data.endswith(b"\n")
            for raw in data.split(b"\n"):
                if not raw.strip():
                    continue
                try:
                    rec = json.loads(raw.decode("utf-8"))
                    key, reply = rec["key"], rec["reply"]
                    if not isinstance(key, str) or not isinstance(reply, str):
                        raise TypeError
                except (ValueError, KeyError, TypeError):
                    self.torn_lines += 1
                    continue
                self._replies.setdefault(key, reply)

    def __len__(self) -> int:
        return len(self._replies)

    def get(self, identity: Identity | str, messages: Sequence[Mapping[str, str]]) -> str | None:
        """The cached reply, or None."""
        return self._replies.get(cache_key(identity, messages))

    def put(self, identity: Identity | str, messages: Sequence[Mapping[str, str]], reply: str) -> None:
        """Store one reply (appends one line; the first reply for a key wins)."""
        if not isinstance(reply, str):
            raise TypeError(f"reply must be a str, got {type(reply).__name__}")

        ident = {"model": identity} if isinstance(identity, str) else dict(identity)
        key = cache_key(ident, messages)
        with self._lock:
            if key in self._replies:
                return
            self.root.mkdir(parents=True, exist_ok=True)
            line = json.dumps({"key": key, "model": str(ident.get("model", "")),
                               "endpoint": str(ident.get("endpoint", "")), "reply": reply, "time": utc_timestamp()},
                              ensure_ascii=True) + "\n"
            if not self._starts_clean:  # the last line is torn: start a line of our own
                line = "\n" + line
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(line)
                fh.flush()
            self._starts_clean = True
            self._replies[key] = reply
