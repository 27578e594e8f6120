"""A fair queue of queries per user: one visitor's slow endpoint never holds up another's query.

:class:`FairQueue` hands out ``max_running`` slots. A user holds at most ``per_user`` of them at
once and may have at most ``max_waiting`` more queries waiting (beyond that, :class:`QueueFull`:
a one-line refusal). When a slot frees, it goes to the waiting user served least recently (round
robin over users, first come first served within a user), not to whoever queued first -- so a
user who queued ten queries does not make the next visitor wait for all ten.

Queries are network-bound (threads waiting on sockets), so ``max_running`` can be generous: a
slot costs a thread and a socket, and each query ends at its deadline. The user key is whatever
names a user to the caller (the Space passes the signed-in user name, else the session hash).

>>> q = FairQueue(max_running=2)
>>> with q.slot("alice"):
...     q.running("alice")
1
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager


class QueueFull(RuntimeError):
    """A user with too many queries waiting, or a wait past ``wait_s`` (one-line message)."""


class FairQueue:
    """Slots for queries, granted round robin over users (see the module docstring)."""

    def __init__(self, max_running: int = 8, *, per_user: int = 1, max_waiting: int = 2,
                 wait_s: float | None = 600.0) -> None:
        for name, value, low in (("max_running", max_running, 1), ("per_user", per_user, 1),
                                 ("max_waiting", max_waiting, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
        if wait_s is not None and not wait_s > 0:
            raise ValueError(f"wait_s must be a positive number of seconds or None, got {wait_s!r}")
        self.max_running, self.per_user, self.max_waiting, self.wait_s = max_running, per_user, max_waiting, wait_s
        self._cond = threading.Condition()
        self._running: dict[str, int] = {}
        self._waiting: dict[str, deque[object]] = {}
        self._served: dict[str, int] = {}  # user -> tick of the last grant (round robin)
        self._tick = 0
        self._granted: set[object] = set()

    def running(self, user: str) -> int:
        """Slots ``user`` holds now."""
        with self._cond:
            return self._running.get(user, 0)

    def waiting(self, user: str) -> int:
        """Queries of ``user`` waiting for a slot."""
        with self._cond:
            return len(self._waiting.get(user, ()))

    def _grant(self) -> None:
        """Give free slots to the heads of the users' queues, least recently served user first."""
        while sum(self._running.values()) < self.max_running:
            ready = [u for u, q in self._waiting.items() if q and self._running.get(u, 0) < self.per_user]
            if not ready:
                break
            user = min(ready, key=lambda u: (self._served.get(u, -1), u))
            ticket = self._waiting[user].popleft()
            if not self._waiting[user]:
                del self._waiting[user]
            self._running[user] = self._running.get(user, 0) + 1
            self._tick += 1
            self._served[user] = self._tick
            self._granted.add(ticket)
        self._cond.notify_all()

    @contextmanager
    def slot(self, user: str) -> Iterator[None]:
        """Wait for a slot for ``user``, hold it for the block. ``QueueFull`` when ``user`` already
        has ``max_waiting`` queries waiting, or when no slot came within ``wait_s``."""
        if not isinstance(user, str) or not user:
            raise ValueError("user must be a non-empty string (a user name or session key)")
        ticket = object()
        with self._cond:
            if len(self._waiting.get(user, ())) >= self.max_waiting and (
                    self._running.get(user, 0) >= self.per_user or sum(self._running.values()) >= self.max_running):
                raise QueueFull(f"{len(self._waiting[user])} queries of yours are already waiting; "
                                "try again when one has finished")
            self._waiting.setdefault(user, deque()).append(ticket)
            self._grant()
            end = None if self.wait_s is None else time.monotonic() + self.wait_s
            while ticket not in self._granted:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    self._waiting[user].remove(ticket)
                    if not self._waiting[user]:
                        del self._waiting[user]
                    raise QueueFull(f"no query slot became free within {self.wait_s:g} s; try again later")
                self._cond.wait(left)
            self._granted.discard(ticket)
        try:
            yield
        finally:
            with self._cond:
                self._running[user] -= 1
                if not self._running[user]:
                    del self._running[user]
                self._grant()
