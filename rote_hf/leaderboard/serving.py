"""The leaderboard as a service: rows read once, every board computed once per version of its rows.

A :class:`BoardService` keeps the frame the boards are computed from and reads again only what
changed:

- the published and shipped rows are read once per process (they ship with the package);
- the local store's run files are read when the store's ``runs/`` folder changes (its
  modification time changes whenever the store writes or replaces a run file, since every write
  is a rename into that folder): only the new files are read, decoded and validated, as one more
  part; a changed or removed file makes the store be read again whole. A file that cannot be
  read is named in a notice once per version of the folder, never re-read per request. Run
  files read one by one are also written back as a compacted copy (:mod:`rote_hf.results.compact`),
  so that the next start reads a few files instead of one per run;
- a results repo (``$ROTE_RESULTS_REPO``) is checked every ``repo_every_s`` seconds, never per
  request, and its rows are read again only when its revision changed
  (:func:`rote_hf.leaderboard.source.repo_revision`); the rows bundled with the package are
  dropped unread from it (they are shown once). If it cannot be reached, the service starts
  without it (or keeps the rows read before) and says so in a notice.

:meth:`BoardService.snapshot` returns the current :class:`Snapshot`, and :meth:`Snapshot.memo`
computes a board (or anything derived from the rows) once per snapshot: a request only filters
what was computed for the first visitor. Thread-safe: Gradio serves requests from worker threads,
and two requests for the same uncomputed board compute it once.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, MutableMapping

from rote_hf.boards.tables import filter_choices
from rote_hf.leaderboard.reproduction import reproduction_configs
from rote_hf.leaderboard.source import (
    REPO_NOTICE, RESULTS_CONFIG, RESULTS_REPO_ENV, bundled_run_ids, merge_rows, paper_frame, ranked_rows, read_files,
    read_stored, repo_revision, shown_rows, store_files,
)
from rote_hf.results import ResultStore
from rote_hf.results.compact import read_compacted, run_stats, write_part

LOG = logging.getLogger("rote_hf.leaderboard")
#: Boards kept per snapshot (one per filter combination asked for; the oldest goes first).
MEMO_SIZE = 512
#: Seconds after a change of the store's folder during which its listing is compared on every request.
RECENT_S = 2.0
#: Bounds on Gradio's request log (read from the environment when a queue is made). Gradio's queue
#: records every event it serves (``Queue.event_analytics``, up to 10,000 by default) and, after
#: every event, builds a pandas frame of all of them for its ``/monitoring/summary`` (success rate
#: and time percentiles per endpoint): a cost that grows with the number of requests served, from
#: about 2.5 ms a request to 9 ms after 10,000 (gradio 6.31). Kept to the last 1,000 events and
#: summarised every 100, it is bounded and about 0.03 ms a request. An operator's own values win.
QUEUE_ANALYTICS_ENV = {"GRADIO_ANALYTICS_MAX_EVENTS": "1000", "GRADIO_ANALYTICS_CACHE_FREQUENCY": "100"}


def bound_queue_analytics(environ: MutableMapping[str, str] = os.environ) -> dict[str, str]:
    """Set :data:`QUEUE_ANALYTICS_ENV` in ``environ`` where it is not set already (before the app's
    ``gr.Blocks`` and ``queue()`` are made); returns the values in effect."""
    return {name: environ.setdefault(name, value) for name, value in QUEUE_ANALYTICS_ENV.items()}


@dataclass
class Snapshot:
    """One version of the leaderboard's rows: the frame (JSON columns decoded), the notices of
    what was left out, the filter choices, and the boards computed from them so far.
    ``computed`` counts the computations per memo key (each is logged at DEBUG on
    ``rote_hf.leaderboard``): a page visit computes each board at most once per version."""

    version: tuple
    rows: Any
    notices: list[str]
    choices: dict[str, list[str]]
    _memo: OrderedDict = field(default_factory=OrderedDict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _pending: dict = field(default_factory=dict, repr=False)
    computed: Counter = field(default_factory=Counter, repr=False)

    def ranked(self, show_unverified: bool = False) -> "Snapshot":
        """The snapshot the boards rank: without self-reported rows unless ``show_unverified``
        (:func:`rote_hf.leaderboard.source.ranked_rows`); derived once per snapshot, with its own
        memo, and the same filter choices (a filter value never vanishes with the toggle)."""
        if show_unverified:
            return self
        return self.memo(("ranked",), lambda: Snapshot((*self.version, "ranked"), ranked_rows(self.rows),
                                                       self.notices, self.choices))

    def memo(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per snapshot and ``key`` (later calls return the same object; treat it
        as read-only). Concurrent callers of one key wait for the first instead of computing too."""
        with self._lock:
            if key in self._memo:
                self._memo.move_to_end(key)
                return self._memo[key]
            event = self._pending.get(key)
            owner = event is None
            if owner:
                event = self._pending[key] = threading.Event()
        if not owner:
            event.wait()
            with self._lock:
                if key in self._memo:
                    return self._memo[key]
            return self._compute(key, compute)  # the first caller failed: compute (and raise) on our own
        try:
            value = self._compute(key, compute)
            with self._lock:
                self._memo[key] = value
                while len(self._memo) > MEMO_SIZE:
                    self._memo.popitem(last=False)
            return value
        finally:
            with self._lock:
                self._pending.pop(key, None)
            event.set()

    def _compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        value = compute()
        with self._lock:
            self.computed[key] += 1
        LOG.debug("computed %r for rows %r in %.3f s", key, self.version, time.perf_counter() - started)
        return value


@dataclass
class _StoredPart:
    frame: Any
    notices: list[str]


class BoardService:
    """The rows of the local store at ``results`` (may not exist yet), of a results repo (``repo``,
    default ``$ROTE_RESULTS_REPO``) and the published (and, with ``shipped``, our shipped) rows,
    kept in memory and read again only when they change (see the module docstring)."""

    def __init__(self, results: str | os.PathLike | None = "results", *, shipped: bool = True,
                 repo: str | None = None, repo_every_s: float = 300.0, compact_min: int = 256,
                 clock: Callable[[], float] = time.monotonic):
        if not isinstance(repo_every_s, (int, float)) or isinstance(repo_every_s, bool) or repo_every_s <= 0:
            raise ValueError(f"repo_every_s must be a number of seconds > 0, got {repo_every_s!r}")
        self.results = None if results is None else Path(results)
        self.shipped = shipped
        self.repo = repo if repo is not None else os.environ.get(RESULTS_REPO_ENV) or None
        self.repo_every_s = float(repo_every_s)
        self.compact_min = compact_min
        self._clock = clock
        self._lock = threading.Lock()
        self._paper = None
        self._files: dict[str, tuple[int, int]] = {}
        self._parts: list[_StoredPart] = []
        self._store_mtime: int | None = None
        self._repo_part = _StoredPart(None, [])
        self._repo_read_at: float | None = None
        self._repo_revision: str | None = None
        self._snapshot: Snapshot | None = None
        #: Times the results repo's revision was checked (on its schedule), and its rows read.
        self.repo_checks = self.repo_reads = 0
        #: Store files read so far (each new file once; all again after a file changed or went away).
        self.files_read = 0

    # -- versions ---------------------------------------------------------------------------------
    def _runs_dir(self) -> Path | None:
        return None if self.results is None else ResultStore(self.results).runs_dir

    def _store_version(self) -> int | None:
        runs = self._runs_dir()
        try:
            return runs.stat().st_mtime_ns if runs is not None else None
        except OSError:  # not created yet
            return None

    def _repo_due(self) -> bool:
        return bool(self.repo) and (self._repo_read_at is None
                                    or self._clock() - self._repo_read_at >= self.repo_every_s)

    # -- reading ----------------------------------------------------------------------------------
    def _read_store(self) -> None:
        """Bring the store's parts up to date: the new files as one more part (taking what the
        compacted copies of them hold, :mod:`rote_hf.results.compact`); everything again when a
        known file changed or went away. At least ``compact_min`` files read from ``runs/`` are
        written back as one compacted part, so the next start reads them as one file."""
        if self.results is None:
            return
        store = ResultStore(self.results)
        stats = run_stats(store_files(self.results))
        known = self._files
        if any(name not in stats or stats[name] != known[name] for name in known):
            self._parts, known = [], {}
        new = [name for name in stats if name not in known]
        covered: set[str] = set()
        if new:  # the compacted copies of new files too: a 5,000-row submission is one part
            table, covered = read_compacted(store, {name: stats[name] for name in new})
            if covered:
                self._parts.append(_StoredPart(*shown_rows(table)))
        rest = [store.runs_dir / name for name in new if name not in covered]
        if rest:
            table, notices, read = read_files(rest)
            frame, more = shown_rows(table)
            self._parts.append(_StoredPart(frame, notices + more))
            self.files_read += len(rest)
            if len(read) >= self.compact_min:
                try:
                    write_part(store, table, {f.name: stats[f.name] for f in read})
                except OSError as exc:  # a read-only store is served as it is
                    LOG.warning("results store %s: not compacted (%s)", self.results, exc)
        self._files = {name: stats[name] for name in [*known, *new]}

    def _read_repo(self) -> bool:
        """Check the repo's revision and read its rows if it changed; whether the rows changed."""
        self._repo_read_at = self._clock()
        self.repo_checks += 1
        try:
            folder, revision = repo_revision(self.repo)
            if revision == self._repo_revision:
                return False
            files = sorted((folder / "data" / RESULTS_CONFIG).glob("*.parquet"))
            frame, notices = read_stored(files, skip=bundled_run_ids(self._paper))
        except Exception as exc:  # noqa: BLE001 -- an unreachable repo must not stop the Space
            kept = self._repo_part.frame
            note = (f"{REPO_NOTICE}{self.repo}: not read ({type(exc).__name__}: {' '.join(str(exc).split())[:200]}); "
                    + ("showing the rows read before" if kept is not None else "showing the bundled rows"))
            if self._repo_part.notices == [note]:
                return False
            self._repo_part = _StoredPart(kept, [note])
            return True
        self._repo_revision = revision
        self._repo_part = _StoredPart(frame, notices)
        self.repo_reads += 1
        return True

    def snapshot(self) -> Snapshot:
        """The current rows and their memo; re-read only what changed since the last call. While
        one request reads what changed, the others are served the last version at once (so a
        large upload or a new batch of runs slows only the request that notices it)."""
        if not self._lock.acquire(blocking=self._snapshot is None):
            return self._snapshot
        try:
            return self._refresh()
        finally:
            self._lock.release()

    def _refresh(self) -> Snapshot:
        store_version = self._store_version()
        # a write in the same tick of the folder's clock as the last read leaves its mtime as
        # it was: while the folder changed within the last RECENT_S, its listing is compared too
        recent = store_version is not None and time.time_ns() - store_version < RECENT_S * 1e9
        changed = self._snapshot is None or store_version != self._store_mtime
        if not (changed or recent or self._repo_due()):
            return self._snapshot
        started = time.perf_counter()
        if self._paper is None:
            self._paper = paper_frame(self.shipped)
        before = (dict(self._files), len(self._parts))
        if changed or recent:
            self._read_store()
            self._store_mtime = store_version
        repo_changed = self._repo_due() and self._read_repo()
        if self._snapshot is not None and not repo_changed and before == (self._files, len(self._parts)):
            return self._snapshot
        parts = [*self._parts, self._repo_part]
        frame, claimed = merge_rows([p.frame for p in parts if p.frame is not None], self._paper)
        notices = [n for p in parts for n in p.notices] + claimed
        version = (store_version, len(self._files), self._repo_read_at)
        choices = {**filter_choices(frame), "repro_config": reproduction_configs(frame)}
        self._snapshot = Snapshot(version, frame, notices, choices)
        LOG.info("leaderboard rows: %d (%d notices), read in %.2f s", len(frame), len(notices),
                 time.perf_counter() - started)
        return self._snapshot


__all__ = ["BoardService", "MEMO_SIZE", "RECENT_S", "Snapshot"]
