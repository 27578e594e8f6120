"""A resumable cache of raw replies, keyed by everything that determines a reply -- and by whose
credentials paid for it.

One JSON line per answered call in ``<dir>/replies.jsonl``: ``key`` (SHA-256 of the responder's
*identity* and the canonical JSON of the messages), ``model``, ``endpoint`` (the server's origin
and path, never a token; empty for local responders), ``reply`` (the raw text, already free of
any token), ``time`` (UTC). The identity is what the responder's ``cache_identity()`` returns:
for an HTTP responder the endpoint (``scheme://host:port/path``), the model and every sampling
parameter (temperature, seed, max_tokens, json mode, reply cap) -- so the same model name on
another server, or with another temperature, is asked again rather than answered from here.

**Credentials.** When the call carried a token, the identity also holds ``credential``: an
HMAC-SHA256 of the token under the cache's secret (:func:`credential_scope`), never the token. A
caller with another token (or none) computes another key, so it is never served replies that
someone else's key paid for, nor learns what they asked. The secret is ``$ROTE_LLM_CACHE_SECRET``
when set (one per deployment), else 32 random bytes kept in ``<dir>/secret.key`` (mode 0600,
created on first need), so the keys stay valid across restarts of the same folder.

**Quota.** ``max_bytes`` bounds the file: after an append that passes it, the oldest records are
dropped (the file is rewritten atomically with the newest records that fit in 3/4 of the quota).

Only replies that came back are cached; failed calls (``api_error``, including a 200 answer
without content) are asked again on the next run. Each record is appended with one write and
flushed; a torn line (a crash mid-append) is skipped on load and counted in ``torn_lines``, and
the next append starts on a line of its own, so nothing valid is lost.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rote_hf.files import create_once, write_atomic
from rote_hf.results.provenance import utc_timestamp

CACHE_FILE = "replies.jsonl"
SECRET_FILE = "secret.key"
SECRET_ENV = "ROTE_LLM_CACHE_SECRET"
"""The cache's HMAC secret for a deployment (any non-empty string); else ``<dir>/secret.key``."""

Identity = Mapping[str, Any]


def cache_key(identity: Identity | str, messages: Sequence[Mapping[str, str]]) -> str:
    """SHA-256 hex of the responder identity (a mapping, order-free; a bare string is read as
    ``{"model": s}``) and the canonical JSON of ``messages``."""
    ident = {"model": identity} if isinstance(identity, str) else dict(identity)
    blob = json.dumps([ident, [dict(m) for m in messages]], sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def credential_scope(secret: bytes, token: str | None) -> str:
    """``""`` without a token, else ``"hmac-sha256:"`` + the hex HMAC-SHA256 of ``token`` under ``secret``."""
    if not token:
        return ""
    return "hmac-sha256:" + hmac.new(secret, token.encode("utf-8"), hashlib.sha256).hexdigest()


def _check_quota(max_bytes: int | None, name: str) -> None:
    if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1):
        raise ValueError(f"{name} must be a positive number of bytes or None, got {max_bytes!r}")


def prune_oldest(folder: str | os.PathLike, max_bytes: int, *, keep: str | os.PathLike | None = None,
                 pattern: str = "*") -> list[Path]:
    """Delete the oldest files (by modification time, then name) of ``folder`` matching ``pattern``
    until their total size is at most ``max_bytes``; ``keep`` (the file just written) is never
    deleted. Returns the deleted paths."""
    _check_quota(max_bytes, "max_bytes")
    root = Path(folder)
    if not root.is_dir():
        return []
    files = []
    for f in root.glob(pattern):
        try:
            st = f.stat()
        except OSError:  # deleted meanwhile
            continue
        if f.is_file():
            files.append((st.st_mtime_ns, f.name, st.st_size, f))
    files.sort()
    total = sum(size for _, _, size, _ in files)
    kept = Path(keep).resolve() if keep is not None else None
    deleted = []
    for _, _, size, f in files:
        if total <= max_bytes:
            break
        if kept is not None and f.resolve() == kept:
            continue
        try:
            f.unlink()
        except FileNotFoundError:
            pass
        total -= size
        deleted.append(f)
    return deleted


class ReplyCache:
    """Raw replies on disk under ``root`` (a folder); thread-safe ``get``/``put``. ``max_bytes``
    (None = unbounded) is the file's quota; ``secret`` keys the credential scope (default: see the
    module docstring)."""

    def __init__(self, root: str | os.PathLike, *, max_bytes: int | None = None, secret: bytes | None = None) -> None:
        if not isinstance(root, (str, os.PathLike)):
            raise TypeError(f"root must be a path, got {type(root).__name__}")
        _check_quota(max_bytes, "max_bytes")
        if secret is not None and (not isinstance(secret, bytes) or not secret):
            raise ValueError("secret must be non-empty bytes or None")
        self.root = Path(root)
        self.path = self.root / CACHE_FILE
        self.max_bytes = max_bytes
        self._secret = secret
        self._lock = threading.Lock()
        self._replies: dict[str, str] = {}
        self._sizes: OrderedDict[str, int] = OrderedDict()  # key -> bytes of its line, oldest first
        self.evicted = 0  # records dropped to keep within max_bytes
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
                if key not in self._replies:
                    self._replies[key] = reply
                    self._sizes[key] = len(raw) + 1

    def __len__(self) -> int:
        return len(self._replies)

    @property
    def secret(self) -> bytes:
        """The HMAC secret of the credential scope (created in ``<root>/secret.key`` on first need)."""
        if self._secret is None:
            with self._lock:
                if self._secret is None:
                    env = os.environ.get(SECRET_ENV, "")
                    self._secret = env.encode("utf-8") if env else self._secret_file()
        return self._secret

    def _secret_file(self) -> bytes:
        # created whole or read whole: visitors' threads and processes may race to make it
        path = self.root / SECRET_FILE
        data = create_once(path, os.urandom(32), mode=0o600)
        if len(data) < 16:
            raise ValueError(f"{path} holds {len(data)} bytes; delete it (a new secret is made) or set "
                             f"${SECRET_ENV}")
        return data

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
            self._sizes[key] = len(line.lstrip("\n").encode("utf-8"))
            if self.max_bytes is not None and self.path.stat().st_size > self.max_bytes:
                self._evict()

    def _evict(self) -> None:
        """Rewrite the file with the newest records that fit in 3/4 of the quota (lock held)."""
        budget, keep = self.max_bytes * 3 // 4, []
        for key in reversed(self._sizes):
            if budget - self._sizes[key] < 0:
                break
            budget -= self._sizes[key]
            keep.append(key)
        keep.reverse()
        kept = set(keep)
        lines = []
        for raw in self.path.read_bytes().split(b"\n"):
            try:
                rec = json.loads(raw.decode("utf-8"))
                if rec.get("key") in kept:
                    lines.append(raw)
                    kept.discard(rec["key"])  # the first line of a key is the one in use
            except (ValueError, AttributeError):
                continue
        write_atomic(self.path, b"".join(line + b"\n" for line in lines))
        dropped = [k for k in self._sizes if k not in set(keep)]
        for key in dropped:
            del self._replies[key]
            del self._sizes[key]
        self.evicted += len(dropped)
