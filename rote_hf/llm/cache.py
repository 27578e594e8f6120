"""A resumable cache of raw replies, keyed by (model, prompt).

One JSON line per answered call in ``<dir>/replies.jsonl``: ``key`` (SHA-256 of the model id
and the canonical JSON of the messages), ``model``, ``reply`` (the raw text, already free of any
token), ``time`` (UTC). Only replies that came back are cached; failed calls (``api_error``) are
asked again on the next run. Appends are flushed line by line, so an interrupted run loses at
most the line being written; a torn last line is ignored on load.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

CACHE_FILE = "replies.jsonl"


def cache_key(model_id: str, messages: Sequence[Mapping[str, str]]) -> str:
    """SHA-256 hex of ``model_id`` and the canonical JSON of ``messages``."""
    blob = json.dumps([model_id, [dict(m) for m in messages]], sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True)
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
        if self.path.is_file():
            with open(self.path, encoding="utf-8") as fh:
                for line in fh:
                    try:
                        rec = json.loads(line)
                        self._replies[rec["key"]] = rec["reply"]
                    except (ValueError, KeyError, TypeError):
                        continue  # a torn line from an interrupted run

    def __len__(self) -> int:
        return len(self._replies)

    def get(self, model_id: str, messages: Sequence[Mapping[str, str]]) -> str | None:
        """The cached reply, or None."""
        return self._replies.get(cache_key(model_id, messages))

    def put(self, model_id: str, messages: Sequence[Mapping[str, str]], reply: str) -> None:
        """Store one reply (appends one line; the first reply for a key wins)."""
        if not isinstance(reply, str):
            raise TypeError(f"reply must be a str, got {type(reply).__name__}")
        from rote_hf.results.provenance import utc_timestamp

        key = cache_key(model_id, messages)
        with self._lock:
            if key in self._replies:
                return
            self.root.mkdir(parents=True, exist_ok=True)
            line = json.dumps({"key": key, "model": model_id, "reply": reply, "time": utc_timestamp()},
                              ensure_ascii=True)
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")
                fh.flush()
            self._replies[key] = reply
