"""The requests queue: every submission is a request record, kept on disk (and on the Hub).

A :class:`RequestDesk` is a folder laid out as a results store plus the queue::

    <root>/requests/<id>.json          one request record (format below, docs/schemas/request.schema.json)
    <root>/usage/<user>.jsonl          one line per counted action of a user: {"time", "action"}
    <root>/runs/<run_id>.parquet       rows submitted by visitors (rote_hf.results store layout)
    <root>/claims/request-<id>.claim   a backend working on a request (rote_hf.results.claims)

A record is one JSON object: ``id``, ``user`` (Hugging Face user name), ``time`` (UTC, ISO 8601),
``kind`` (``rows`` or ``architecture``), ``status`` (:data:`STATUSES`), ``reason`` (one line, why
the status; empty while pending), ``updated`` (UTC) and ``detail`` (what was asked: the file, its
SHA-256 and run ids for ``rows``; the model entry and the track for ``architecture``).

Every write replaces a whole file atomically (a temporary file renamed into place) under the
desk's lock, which is the :class:`~huggingface_hub.CommitScheduler`'s lock when the desk is
kept on the Hub (:func:`open_desk` with ``ORG/requests``): the scheduler never uploads half a
file, and a restart downloads the repo first, so it loses nothing.

Rate limits (:class:`RateLimits`, default 5 submissions and 20 LLM queries per user per rolling
24 hours) count the lines of ``usage/<user>.jsonl``, which live with the requests and so survive
restarts; a refusal (:class:`RateLimited`) names the UTC time at which the next action is allowed.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import re
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from rote_hf.files import write_atomic

KINDS = ("rows", "architecture")
STATUSES = ("pending", "running", "verified", "failed", "rejected")
"""``pending``: queued; ``running``: a backend trains it; ``verified``: its rows were re-run and
stored; ``failed``: a run failed (the reason says which and why); ``rejected``: the backend
refused it before training (e.g. a budget no width of the model meets). Self-reported ``rows``
requests are stored at once and stay ``pending`` (they are not re-run)."""
ACTIONS = ("submission", "llm_query")
REQUESTS_DIR = "requests"
USAGE_DIR = "usage"
REQUESTS_REPO_ENV = "ROTE_REQUESTS_REPO"
USER_FORM = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")
"""A Hugging Face user name (letters, digits, ``-``, ``_``, ``.``), as file names use it."""
ID_FORM = re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{8}")
REASON_MAX = 500
DAY_S = 86_400.0


class RequestError(ValueError):
    """Bad input for the queue (an unknown status, a malformed id or user name); one line."""


class RateLimited(RequestError):
    """A user over their limit; ``next_allowed`` is the UTC time the next action is allowed."""

    def __init__(self, message: str, next_allowed: _dt.datetime) -> None:
        super().__init__(message)
        self.next_allowed = next_allowed


def utc_text(seconds: float) -> str:
    """``seconds`` since the epoch as ISO 8601 UTC (``2026-12-03T16:20:05Z``)."""
    return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_utc(text: str) -> float:
    """ISO 8601 UTC text (as :func:`utc_text` writes it) -> seconds since the epoch."""
    return _dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.timezone.utc).timestamp()


def check_user(user: Any) -> str:
    """``user`` if it is a Hugging Face user name (see :data:`USER_FORM`), else :class:`RequestError`."""
    if not isinstance(user, str) or not USER_FORM.fullmatch(user) or ".." in user:
        raise RequestError(f"user must be a Hugging Face user name (letters, digits, - _ .), got {user!r:.60}")
    return user


@dataclass(frozen=True)
class RequestRecord:
    """One request (see the module docstring for the fields; times are ISO 8601 UTC)."""

    id: str
    user: str
    time: str
    kind: str
    status: str = "pending"
    reason: str = ""
    updated: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not ID_FORM.fullmatch(self.id):
            raise RequestError(f"id must look like '20261203T162005Z-1a2b3c4d', got {self.id!r:.60}")
        check_user(self.user)
        if self.kind not in KINDS:
            raise RequestError(f"kind must be one of {list(KINDS)}, got {self.kind!r:.40}")
        if self.status not in STATUSES:
            raise RequestError(f"status must be one of {list(STATUSES)}, got {self.status!r:.40}")
        if not isinstance(self.reason, str) or len(self.reason) > REASON_MAX or "\n" in self.reason:
            raise RequestError(f"reason must be one line of at most {REASON_MAX} characters")
        parse_utc(self.time)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "detail": dict(self.detail)}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "RequestRecord":
        if not isinstance(raw, Mapping):
            raise RequestError("a request record must be a JSON object")
        known = {"id", "user", "time", "kind", "status", "reason", "updated", "detail"}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise RequestError(f"request record has unknown fields {unknown[:5]}; allowed: {sorted(known)}")
        return cls(**raw)


def one_line(text: Any, limit: int = REASON_MAX) -> str:
    """``text`` on one line (whitespace runs collapsed), cut to ``limit`` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


@dataclass(frozen=True)
class RateLimits:
    """Actions allowed per user per rolling ``window_s`` seconds (default 24 h)."""

    submissions: int = 5
    llm_queries: int = 20
    window_s: float = DAY_S

    def __post_init__(self) -> None:
        for name in ("submissions", "llm_queries"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an integer >= 0 (per day), got {value!r}")
        if isinstance(self.window_s, bool) or not isinstance(self.window_s, (int, float)) or self.window_s <= 0:
            raise ValueError(f"window_s must be a number of seconds > 0, got {self.window_s!r}")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "RateLimits":
        """Limits from ``$ROTE_SUBMISSIONS_PER_DAY`` and ``$ROTE_LLM_QUERIES_PER_DAY`` (defaults 5 and 20)."""
        env = os.environ if env is None else env
        values = {}
        for name, var in (("submissions", "ROTE_SUBMISSIONS_PER_DAY"), ("llm_queries", "ROTE_LLM_QUERIES_PER_DAY")):
            text = env.get(var)
            if text:
                if not text.isdigit():
                    raise ValueError(f"{var} must be an integer >= 0, got {text!r:.40}")
                values[name] = int(text)
        return cls(**values)

    def limit(self, action: str) -> int:
        if action not in ACTIONS:
            raise ValueError(f"action must be one of {list(ACTIONS)}, got {action!r}")
        return self.submissions if action == "submission" else self.llm_queries


class RequestDesk:
    """The request records, usage lines and submitted rows under ``root`` (see the module docstring).

    ``limits``: the per-user :class:`RateLimits`; ``clock``: seconds since the epoch (tests pass
    their own); ``lock``: held around every write (a ``CommitScheduler``'s lock on the Hub);
    ``pull``: called by :meth:`refresh` to fetch what others changed (the Hub copy), at most every
    ``pull_every_s`` seconds."""

    def __init__(self, root: str | os.PathLike, *, limits: RateLimits | None = None,
                 clock: Callable[[], float] = time.time, lock: Any = None,
                 pull: Callable[[], None] | None = None, pull_every_s: float = 60.0) -> None:
        self.root = Path(root)
        self.limits = limits or RateLimits()
        self._clock = clock
        self.lock = lock if lock is not None else threading.Lock()
        self._user_locks: dict[str, threading.Lock] = {}  # check-and-count of one user's action is one step
        self._locks_lock = threading.Lock()
        self._pull = pull
        self._pull_every_s = pull_every_s
        self._pulled_at: float | None = None
        self.scheduler: Any = None

    @property
    def requests_dir(self) -> Path:
        return self.root / REQUESTS_DIR

    def path_of(self, request_id: str) -> Path:
        if not isinstance(request_id, str) or not ID_FORM.fullmatch(request_id):
            raise RequestError(f"request id must look like '20261203T162005Z-1a2b3c4d', got {request_id!r:.60}")
        return self.requests_dir / f"{request_id}.json"

    # -- records -----------------------------------------------------------------------------
    def new_id(self) -> str:
        return f"{utc_text(self._clock()).replace('-', '').replace(':', '')}-{uuid.uuid4().hex[:8]}"

    def create(self, user: str, kind: str, detail: Mapping[str, Any], *, status: str = "pending",
               reason: str = "", request_id: str | None = None) -> RequestRecord:
        """A new record for ``user``, written at once (``request_id``: one from :meth:`new_id` that
        the submitted rows already carry)."""
        now = utc_text(self._clock())
        record = RequestRecord(id=request_id or self.new_id(), user=check_user(user), time=now, kind=kind, status=status,
                               reason=one_line(reason), updated=now, detail=dict(detail))
        self.write(record)
        return record

    def write(self, record: RequestRecord) -> None:
        data = json.dumps(record.to_json(), indent=1, sort_keys=True).encode()
        with self.lock:
            write_atomic(self.path_of(record.id), data, fsync=True)

    def get(self, request_id: str) -> RequestRecord:
        path = self.path_of(request_id)
        try:
            return RequestRecord.from_json(json.loads(path.read_text()))
        except FileNotFoundError:
            raise RequestError(f"no request {request_id!r} in {self.requests_dir}") from None
        except (ValueError, TypeError) as exc:
            raise RequestError(f"request file {path.name} is unreadable: {one_line(exc, 200)}") from None

    def update(self, request_id: str, status: str, reason: str = "", **detail: Any) -> RequestRecord:
        """Set the status (and reason; ``detail`` keys are added) of a stored record."""
        if status not in STATUSES:
            raise RequestError(f"status must be one of {list(STATUSES)}, got {status!r:.40}")
        old = self.get(request_id)
        record = RequestRecord(**{**old.to_json(), "status": status, "reason": one_line(reason),
                                  "updated": utc_text(self._clock()), "detail": {**old.detail, **detail}})
        self.write(record)
        return record

    def records(self, *, user: str | None = None, kind: str | None = None,
                status: str | None = None) -> list[RequestRecord]:
        """Stored records in queue order (time, then id); unreadable files are left out."""
        out = []
        if self.requests_dir.is_dir():
            for path in sorted(self.requests_dir.glob("*.json")):
                if path.name.startswith("."):
                    continue
                try:
                    record = RequestRecord.from_json(json.loads(path.read_text()))
                except (OSError, ValueError, TypeError):
                    continue
                if (user is None or record.user == user) and (kind is None or record.kind == kind) \
                        and (status is None or record.status == status):
                    out.append(record)
        return sorted(out, key=lambda r: (r.time, r.id))

    def refresh(self) -> None:
        """Fetch others' changes (the backend's status updates on the Hub) when due."""
        if self._pull is None:
            return
        now = self._clock()
        if self._pulled_at is None or now - self._pulled_at >= self._pull_every_s:
            self._pulled_at = now
            self._pull()

    # -- rate limits -------------------------------------------------------------------------
    def _usage_path(self, user: str) -> Path:
        return self.root / USAGE_DIR / f"{check_user(user)}.jsonl"

    def _uses(self, user: str, action: str) -> list[float]:
        try:
            lines = self._usage_path(user).read_text().splitlines()
        except FileNotFoundError:
            return []
        times = []
        for line in lines:
            try:
                entry = json.loads(line)
                if entry.get("action") == action:
                    times.append(parse_utc(entry["time"]))
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
        return sorted(times)

    def check_allowed(self, user: str, action: str) -> None:
        """:class:`RateLimited` when ``user`` has used up ``action`` in the current window."""
        limit = self.limits.limit(action)
        now = self._clock()
        recent = [t for t in self._uses(user, action) if now - t < self.limits.window_s]
        if len(recent) >= limit:
            next_at = (recent[len(recent) - limit] if limit else now) + self.limits.window_s
            when = _dt.datetime.fromtimestamp(next_at, _dt.timezone.utc)
            noun = "submissions" if action == "submission" else "LLM queries"
            hours = self.limits.window_s / 3600
            raise RateLimited(f"rate limit: {limit} {noun} per {hours:g} h for {user}; the next is allowed at "
                              f"{when.strftime('%Y-%m-%d %H:%M:%S')} UTC", when)

    @contextlib.contextmanager
    def counted(self, user: str, action: str) -> Iterator[None]:
        """Check ``user``'s limit for ``action``, run the block, and count the action only when the
        block ends without an exception (a refused upload costs nothing). One user's concurrent
        actions are checked and counted one at a time."""
        with self._locks_lock:
            user_lock = self._user_locks.setdefault(check_user(user), threading.Lock())
        with user_lock:
            self.check_allowed(user, action)
            yield
            line = json.dumps({"time": utc_text(self._clock()), "action": action}) + "\n"
            path = self._usage_path(user)
            with self.lock:
                old = path.read_bytes() if path.exists() else b""
                write_atomic(path, old + line.encode(), fsync=True)


# -- the Hub ---------------------------------------------------------------------------------------

REPO_FORM = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")
HUB_PATTERNS = (f"{REQUESTS_DIR}/*.json", f"{USAGE_DIR}/*.jsonl", "runs/*.parquet")
"""What the desk keeps on the Hub: the records, the usage lines and the submitted rows."""


def is_repo_id(target: str) -> bool:
    """Whether ``target`` names a Hub repo (``org/name``) rather than an existing local folder."""
    return bool(REPO_FORM.fullmatch(str(target))) and not Path(target).expanduser().exists()


def open_desk(target: str | os.PathLike, *, local_dir: str | os.PathLike | None = None,
              limits: RateLimits | None = None, api: Any = None, every_min: float = 1.0,
              patterns: tuple[str, ...] = HUB_PATTERNS, clock: Callable[[], float] = time.time,
              pull_every_s: float = 60.0) -> RequestDesk:
    """The desk at ``target``: a local folder, or the Hub dataset repo ``org/requests``.

    For a repo: the repo's files (``patterns``) are downloaded into ``local_dir`` (default
    ``~/.cache/rote-hf/requests/<org>--<name>``) first, so nothing is lost across restarts; then a
    ``huggingface_hub.CommitScheduler`` uploads what changed every ``every_min`` minutes (and at
    exit), and :meth:`RequestDesk.refresh` downloads the records others changed (a backend's status
updates; a process changes only the records it creates or claims, so downloads never clobber). ``api``: the ``HfApi`` to
    use (the token comes from the environment, ``HF_TOKEN``, as ``huggingface_hub`` reads it)."""
    target = str(target)
    if not is_repo_id(target):
        return RequestDesk(Path(target).expanduser(), limits=limits, clock=clock)
    from huggingface_hub import CommitScheduler, HfApi  # lazy: only a Hub-kept desk needs it

    api = api or HfApi()
    folder = Path(local_dir) if local_dir is not None else \
        Path.home() / ".cache" / "rote-hf" / "requests" / target.replace("/", "--")
    folder.mkdir(parents=True, exist_ok=True)
    scheduler = CommitScheduler(repo_id=target, repo_type="dataset", folder_path=folder, every=every_min,
                                allow_patterns=list(patterns), private=True, hf_api=api)

    def download(allow: list[str]) -> None:
        # what the download wrote is what the Hub holds: not uploaded again
        before = {p: p.stat().st_mtime for p in folder.glob("**/*") if p.is_file()}
        api.snapshot_download(repo_id=target, repo_type="dataset", local_dir=str(folder), allow_patterns=allow)
        for path in folder.glob("**/*"):
            if path.is_file() and before.get(path) != path.stat().st_mtime:
                scheduler.last_uploaded[path.resolve()] = path.stat().st_mtime

    def pull() -> None:
        # only the records: the backend changes their status; usage lines and rows are only
        # ever added here, so a download must not replace what was added since the last upload
        with scheduler.lock:
            download([f"{REQUESTS_DIR}/*.json"])

    with scheduler.lock:
        download(list(patterns))  # before anything is written: a restart starts from what the Hub holds
    desk = RequestDesk(folder, limits=limits, clock=clock, lock=scheduler.lock, pull=pull, pull_every_s=pull_every_s)
    desk.scheduler = scheduler
    return desk


__all__ = ["ACTIONS", "HUB_PATTERNS", "KINDS", "REQUESTS_REPO_ENV", "RateLimited", "RateLimits", "RequestDesk",
           "RequestError", "RequestRecord", "STATUSES", "check_user", "is_repo_id", "one_line", "open_desk",
           "parse_utc", "utc_text"]
