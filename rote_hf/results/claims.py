"""Run claims: any number of processes sharing a results folder split the work, each fit runs once.

Layout::

    <root>/claims/<run_id>.claim     JSON {"host", "pid", "start", "time", "token"}

Before a process starts a run it *claims* it: ``os.open(O_CREAT | O_EXCL)`` of the claim file is
atomic (on local file systems and on NFSv3+), so of any number of processes exactly one gets it.
The claim names the host, the process id, the process's start time (``/proc/<pid>/stat`` field 22,
so a recycled pid is not mistaken for the owner) and the wall-clock time. It is released (deleted)
once the run's row is stored, or when the run is given back unrun.

A claim is *stale*, and is taken over, when

- its host is this host and its process is gone (or is another process with the same pid), or
- it is older than the lease (``lease_s``, default 15 min): the owner's heartbeat thread touches
  the claim files it holds every ``lease_s / 4`` seconds, so only a dead or unreachable owner on
  another machine lets a claim age past the lease. Clocks of machines sharing a folder must agree
  to well within the lease (the file's mtime is set by the file server).

Taking over goes through a short-lived ``<run_id>.break`` file (also ``O_EXCL``), so two processes
that both judge a claim stale cannot both delete it and then each delete the other's new claim.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

LOG = logging.getLogger("rote_hf.results")

CLAIMS_DIR = "claims"
DEFAULT_LEASE_S = 900.0
_SUFFIX = ".claim"
_EMPTY_GRACE_S = 30.0  # a claim file being written (still empty) is live this long
_BREAK_GRACE_S = 60.0  # a break file older than this belongs to a process that died mid-takeover


def _proc_start(pid: int) -> str | None:
    """The start time of process ``pid`` in clock ticks since boot (Linux), ``None`` if unknown/gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()  # after "pid (comm) "; comm may hold spaces
    if fields and fields[0] == "Z":  # a zombie has ended; only its exit status remains
        return None
    return fields[19] if len(fields) > 19 else None


def pid_alive(pid: int, start: str | None = None) -> bool:
    """Whether process ``pid`` (started at ``start``, when given) is running on this host."""
    if pid <= 0:
        return False
    if Path("/proc").is_dir():
        now = _proc_start(pid)
        return now is not None and (start is None or now == start)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


@dataclass(frozen=True)
class Claim:
    """Who holds a run: host name, process id and start time, wall time of the claim (s), a token."""

    run_id: str
    host: str
    pid: int
    start: str | None
    time: float
    token: str


class ClaimBook:
    """The claims of one results folder, as seen by this process.

    ``lease_s``: age (seconds since the last heartbeat) after which another host's claim is stale.
    """

    def __init__(self, root: str | os.PathLike, *, lease_s: float = DEFAULT_LEASE_S) -> None:
        if not isinstance(lease_s, (int, float)) or isinstance(lease_s, bool) or not lease_s > 0:
            raise ValueError(f"lease_s must be a number > 0 (seconds), got {lease_s!r}")
        self.dir = Path(root) / CLAIMS_DIR
        self.lease_s = float(lease_s)
        self.host = socket.gethostname()
        self._held: dict[str, str] = {}  # run id -> token
        self._lock = threading.Lock()
        self._beat: threading.Thread | None = None
        self._stop = threading.Event()

    def path_of(self, run_id: str) -> Path:
        return self.dir / f"{run_id}{_SUFFIX}"

    @property
    def held(self) -> set[str]:
        with self._lock:
            return set(self._held)

    # -- reading -----------------------------------------------------------------------------
    def read(self, run_id: str) -> Claim | None:
        """The current claim of ``run_id``; ``None`` when unclaimed or not (yet) readable."""
        try:
            raw = json.loads(self.path_of(run_id).read_text() or "null")
            return Claim(run_id, str(raw["host"]), int(raw["pid"]), raw.get("start"), float(raw["time"]),
                         str(raw["token"]))
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def _age(self, path: Path) -> float | None:
        try:
            return time.time() - path.stat().st_mtime
        except OSError:
            return None

    def is_live(self, claim: Claim) -> bool:
        """Whether ``claim``'s owner still holds it (see the module docstring)."""
        if claim.host == self.host:
            return pid_alive(claim.pid, claim.start)
        age = self._age(self.path_of(claim.run_id))
        return age is not None and age <= self.lease_s

    def live_holder(self, run_id: str) -> Claim | None:
        """The live claim of ``run_id`` (``None`` when unclaimed or stale)."""
        claim = self.read(run_id)
        if claim is not None:
            return claim if self.is_live(claim) else None
        age = self._age(self.path_of(run_id))  # an empty file: its writer is between open and write
        if age is not None and age <= _EMPTY_GRACE_S:
            return Claim(run_id, "?", -1, None, time.time() - age, "")
        return None

    # -- claiming ----------------------------------------------------------------------------
    def try_claim(self, run_id: str) -> bool:
        """Claim ``run_id`` for this process; ``False`` when a live process holds it."""
        path = self.path_of(run_id)
        self.dir.mkdir(parents=True, exist_ok=True)
        token = uuid.uuid4().hex
        pid = os.getpid()
        body = json.dumps({"host": self.host, "pid": pid, "start": _proc_start(pid), "time": time.time(),
                           "token": token}).encode()
        for _ in range(3):
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
            except FileExistsError:
                if self.live_holder(run_id) is not None or not self._break(run_id):
                    return False
                continue
            try:
                os.write(fd, body)
            finally:
                os.close(fd)
            with self._lock:
                self._held[run_id] = token
            self._ensure_heartbeat()
            return True
        return False

    def _break(self, run_id: str) -> bool:
        """Delete the stale claim of ``run_id`` (one process at a time); ``True`` when it is gone."""
        path = self.path_of(run_id)
        breaker = path.with_suffix(".break")
        try:
            os.close(os.open(breaker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        except FileExistsError:
            age = self._age(breaker)
            if age is not None and age > _BREAK_GRACE_S:
                breaker.unlink(missing_ok=True)
            return False
        try:
            if self.live_holder(run_id) is not None:  # re-checked under the break file
                return False
            old = self.read(run_id)
            who = f"host {old.host} pid {old.pid}" if old else "an unreadable claim"
            LOG.warning("run %s: taking over the stale claim of %s", run_id, who)
            path.unlink(missing_ok=True)
            return True
        finally:
            breaker.unlink(missing_ok=True)

    def release(self, run_id: str) -> None:
        """Give ``run_id`` back (its row is stored, or it will not be run here)."""
        with self._lock:
            token = self._held.pop(run_id, None)
        claim = self.read(run_id)
        if token is not None and claim is not None and claim.token == token:
            self.path_of(run_id).unlink(missing_ok=True)

    def release_all(self) -> None:
        for run_id in self.held:
            self.release(run_id)

    # -- heartbeat ---------------------------------------------------------------------------
    def _ensure_heartbeat(self) -> None:
        if self._beat is not None and self._beat.is_alive():
            return
        self._stop.clear()
        self._beat = threading.Thread(target=self._heartbeat, name="rote-hf-claims", daemon=True)
        self._beat.start()

    def _heartbeat(self) -> None:
        interval = max(0.5, self.lease_s / 4)
        while not self._stop.wait(interval):
            for run_id in self.held:
                try:
                    os.utime(self.path_of(run_id))
                except OSError:
                    pass
