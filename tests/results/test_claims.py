"""Results store under careless use (issue 12.11-13): damaged files set aside, run claims, umask."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
import time

import pytest

from rote_hf.results import ResultRow, ResultStore, load
from rote_hf.results.claims import ClaimBook, pid_alive


def _row(run_id: str, **kw) -> ResultRow:
    return ResultRow(run_id=run_id, suite="rote", task="n2-c10", model="GRU", metrics={"DL": 0.25}, **kw)


def test_damaged_run_file_is_set_aside_with_one_warning(tmp_path, caplog):
    store = ResultStore(tmp_path)
    for rid in ("a", "b", "c"):
        store.append(_row(rid))
    b = store.path_of("b")
    b.write_bytes(b.read_bytes()[: b.stat().st_size // 2])  # truncated, as by a full disk or a bad copy
    (tmp_path / "runs" / "c.parquet").write_bytes(b"PAR1 not really")
    with caplog.at_level(logging.WARNING, logger="rote_hf.results"):
        frame = load(tmp_path)  # reading skips it (one notice), never fails
    assert list(frame["run_id"]) == ["a"] and b.exists()
    assert sum("skipping unreadable run file" in r.getMessage() for r in caplog.records) == 2
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="rote_hf.results"):
        found = store.check()
    assert set(found) == {"a"} and found["a"].status == "ok"
    assert not b.exists() and store.finished_ids() == {"a"}
    kept = sorted(p.name for p in (tmp_path / "corrupt").iterdir())
    assert len(kept) == 2 and kept[0].startswith("b.parquet.") and kept[1].startswith("c.parquet.")
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 2 and all("\n" not in w and "will be re-run" in w for w in warnings)
    store.append(_row("b"))  # the re-run stores normally
    assert store.finished_ids() == {"a", "b"}


def test_append_over_a_damaged_file_replaces_it(tmp_path):
    store = ResultStore(tmp_path)
    store.path_of("x").parent.mkdir(parents=True)
    store.path_of("x").write_bytes(b"garbage")
    store.append(_row("x"))
    assert store.status_of("x") == "ok" and len(list((tmp_path / "corrupt").iterdir())) == 1


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_result_files_take_the_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        path = ResultStore(tmp_path).append(_row("a"))
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == mode  # was 0600 whatever the umask (mkstemp)


def test_claims_are_exclusive_and_released(tmp_path):
    one, two = ClaimBook(tmp_path), ClaimBook(tmp_path)
    assert one.try_claim("r1") and not two.try_claim("r1")  # same live process, another book: still held
    held = json.loads((tmp_path / "claims" / "r1.claim").read_text())
    assert held["pid"] == os.getpid() and held["host"] == one.host and held["time"] <= time.time()
    two.release("r1")  # not its claim: nothing happens
    assert (tmp_path / "claims" / "r1.claim").exists()
    one.release("r1")
    assert not (tmp_path / "claims" / "r1.claim").exists() and two.try_claim("r1")


def test_stale_claims_are_taken_over(tmp_path, caplog):
    book = ClaimBook(tmp_path, lease_s=60)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    assert not pid_alive(dead_pid)
    claims = tmp_path / "claims"
    claims.mkdir()

    def write(name, **kw):
        body = {"host": book.host, "pid": os.getpid(), "start": None, "time": time.time(), "token": "t", **kw}
        (claims / f"{name}.claim").write_text(json.dumps(body))

    write("dead", pid=dead_pid)                            # this host, process gone
    write("recycled", start="1")                           # this host, pid alive but another process
    write("far-old", host="elsewhere")                     # another host, no heartbeat for 2 leases
    os.utime(claims / "far-old.claim", (time.time() - 120, time.time() - 120))
    write("far-fresh", host="elsewhere")                   # another host, within its lease
    with caplog.at_level(logging.WARNING, logger="rote_hf.results"):
        taken = {name: book.try_claim(name) for name in ("dead", "recycled", "far-old", "far-fresh")}
    assert taken == {"dead": True, "recycled": True, "far-old": True, "far-fresh": False}
    assert sum("taking over the stale claim" in r.getMessage() for r in caplog.records) == 3
    assert json.loads((claims / "dead.claim").read_text())["pid"] == os.getpid()


_CLAIMER = """
import sys, time
from rote_hf.results.claims import ClaimBook
book = ClaimBook(sys.argv[1])
got = [i for i in range(40) if book.try_claim(f"run{i}")]
print(" ".join(map(str, got)), flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_processes_racing_for_claims_never_share_one(tmp_path):
    """Four real processes claim the same 40 runs at once: every run is claimed exactly once; the
    claims of processes that have ended become free again."""
    from tests.helpers import REPO_ROOT

    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    # each claimer stays alive 5 s after claiming, so that no claim becomes stale (free to take
    # over) while the others are still claiming
    procs = [subprocess.Popen([sys.executable, "-c", _CLAIMER, str(tmp_path), "5"], stdout=subprocess.PIPE, text=True,
                              env=env) for _ in range(4)]
    got = [set(map(int, p.communicate(timeout=120)[0].split())) for p in procs]
    assert sum(len(g) for g in got) == 40 and set().union(*got) == set(range(40))
    book = ClaimBook(tmp_path)
    assert all(book.live_holder(f"run{i}") is None for i in range(40))  # owners ended: all stale now
    assert book.try_claim("run7")
