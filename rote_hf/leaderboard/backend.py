"""The backend that verifies architecture requests by re-running them (``rote-hf backend``).

For each pending ``architecture`` request of a desk (:mod:`rote_hf.leaderboard.requests`), in
queue order:

1. claim it (``<desk>/claims/request-<id>.claim``, :mod:`rote_hf.results.claims`): any number of
   backends sharing the desk folder take different requests;
2. build the sweep config of its track with the visitor's model entry
   (:func:`rote_hf.leaderboard.tracks.sweep_config`); a request whose entry or track no longer
   passes is marked ``rejected``;
3. mark it ``running`` and train every run through the normal sweep runner
   (:func:`rote_hf.train.loop.run_specs`: the suite's official protocol, one row per run, run
   claims, resumable); each row is stored in ``--results`` as ``source="submitted"``,
   ``verified=True`` (``False`` for a failed run), with ``settings["request"] = {"id", "user",
   "track"}``;
4. mark it ``verified`` when every run is stored ``ok``, else ``failed`` with the first error.

With a Hub desk (``--requests ORG/requests``) the records are downloaded before each pass and
every status change is uploaded at once (``CommitScheduler.trigger``).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from rote_hf.leaderboard.requests import REQUESTS_DIR, RequestDesk, RequestRecord, one_line, open_desk
from rote_hf.leaderboard.tracks import EntryError, sweep_config
from rote_hf.results.claims import ClaimBook
from rote_hf.results.schema import ResultRow
from rote_hf.results.store import ResultStore

LOG = logging.getLogger("rote_hf.leaderboard")


@dataclass
class BackendReport:
    """What one backend did: request ids by the status it gave them."""

    verified: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)

    @property
    def handled(self) -> int:
        return len(self.verified) + len(self.failed) + len(self.rejected)


def verified_row(row: ResultRow, record: RequestRecord) -> ResultRow:
    """``row`` as the backend stores it: the visitor's (``source="submitted"``), verified when it ran
    ``ok``, with the request in its provenance (``settings["request"]``)."""
    request = {"id": record.id, "user": record.user, "track": record.detail.get("track")}
    return dataclasses.replace(row, source="submitted", verified=row.status == "ok",
                               settings={**dict(row.settings), "request": request})


def _push(desk: RequestDesk) -> None:
    if desk.scheduler is not None:
        desk.scheduler.trigger().result()


def run_request(desk: RequestDesk, record: RequestRecord, results: str | Path, *, accelerator: Any = None,
                device: Any = None) -> str:
    """Train request ``record`` and set its status; returns the status it got."""
    from rote_hf.train.config import SweepConfig, expand  # lazy: the sweep runner imports torch
    from rote_hf.train.loop import run_specs  # lazy: imports torch
    from rote_hf.train.suites import execute  # lazy: imports torch

    try:
        config = SweepConfig.from_dict(sweep_config(record.id, record.detail.get("model"), record.detail.get("track")))
        specs = expand(config)
    except (EntryError, ValueError, TypeError) as exc:
        desk.update(record.id, "rejected", f"not run: {one_line(exc, 400)}")
        _push(desk)
        return "rejected"
    desk.update(record.id, "running", f"training {len(specs)} run(s) on track {record.detail.get('track')}",
                runs=len(specs))
    _push(desk)

    def executor(spec: Any, dev: Any) -> ResultRow:
        return verified_row(execute(spec, dev), record)

    try:
        run_specs(specs, results, accelerator=accelerator, device=device, executor=executor, progress=False,
                  end_with_parent=False, poll_s=1.0)
    except Exception as exc:  # noqa: BLE001 -- the request records why; the backend goes on
        desk.update(record.id, "failed", f"the sweep stopped: {type(exc).__name__}: {one_line(exc, 300)}")
        _push(desk)
        return "failed"
    rows = _rows(results, [s.run_id for s in specs])
    bad = [r for r in rows if r.get("status") != "ok"]
    missing = len(specs) - len(rows)
    if bad or missing:
        first = one_line(str(bad[0].get("error") or "").splitlines()[0] if bad else "", 300)
        reason = (f"{len(bad)} of {len(specs)} run(s) failed" + (f", {missing} not stored" if missing else "")
                  + (f"; first: {first}" if first else ""))
        desk.update(record.id, "failed", reason, run_ids=[s.run_id for s in specs][:50])
        _push(desk)
        return "failed"
    desk.update(record.id, "verified", f"{len(specs)} run(s) re-run and stored as verified rows",
                run_ids=[s.run_id for s in specs][:50])
    _push(desk)
    return "verified"


def _rows(results: str | Path, run_ids: list[str]) -> list[dict[str, Any]]:
    """The stored rows (status, error) of ``run_ids`` in the store at ``results``."""
    import pyarrow.parquet as pq

    store = ResultStore(results)
    out = []
    for rid in run_ids:
        path = store.path_of(rid)
        if path.is_file():
            out.extend(pq.read_table(path, columns=["run_id", "status", "error"]).to_pylist())
    return out


def run_backend(requests: str, results: str | Path, *, once: bool = False, max_requests: int | None = None,
                poll_s: float = 60.0, api: Any = None, local_dir: str | Path | None = None,
                device: Any = None, sleep: Callable[[float], None] = time.sleep) -> BackendReport:
    """Work through the pending architecture requests of ``requests`` (a desk folder or the Hub repo
    ``ORG/requests``), storing rows in ``results``. ``once``: one pass over the queue, then return;
    otherwise poll every ``poll_s`` seconds. ``max_requests``: return after handling that many."""
    from rote_hf.train.loop import make_accelerator  # lazy: imports torch and accelerate

    if max_requests is not None and (isinstance(max_requests, bool) or not isinstance(max_requests, int)
                                     or max_requests < 1):
        raise ValueError(f"--max-requests must be an integer >= 1, got {max_requests!r}")
    desk = open_desk(requests, api=api, local_dir=local_dir, patterns=(f"{REQUESTS_DIR}/*.json",),
                     pull_every_s=0.0)
    claims = ClaimBook(desk.root)
    accelerator = make_accelerator()
    report = BackendReport()
    try:
        while True:
            desk.refresh()
            took = False
            for record in desk.records(kind="architecture", status="pending"):
                if max_requests is not None and report.handled >= max_requests:
                    break
                key = f"request-{record.id}"
                if not claims.try_claim(key):
                    continue
                try:
                    current = desk.get(record.id)
                    if current.status != "pending":  # another backend finished it meanwhile
                        continue
                    LOG.info("request %s: %s on %s", record.id, record.detail.get("model"), record.detail.get("track"))
                    status = run_request(desk, current, results, accelerator=accelerator, device=device)
                    getattr(report, status).append(record.id)
                    took = True
                finally:
                    claims.release(key)
            if once or (max_requests is not None and report.handled >= max_requests):
                return report
            if not took:
                sleep(poll_s)
    finally:
        claims.release_all()
        if desk.scheduler is not None:
            desk.scheduler.stop()


__all__ = ["BackendReport", "run_backend", "run_request", "verified_row"]
