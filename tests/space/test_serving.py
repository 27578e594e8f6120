"""The leaderboard's data layer: rows read once, re-read only what changed, boards computed once
per version of the rows (rote_hf.leaderboard.serving)."""

from __future__ import annotations

import os
import random
import threading

import pytest

from rote_hf.leaderboard import load_board_rows
from rote_hf.leaderboard.serving import BoardService
from rote_hf.results import ResultStore
from tests.space.rows import cogscale_rows, make_store, rote_rows


def _same_rows(a, b) -> None:
    """The same rows (as text, in any order) under the same columns."""
    assert list(a.columns) == list(b.columns)
    assert sorted(map(tuple, a.astype(str).to_numpy())) == sorted(map(tuple, b.astype(str).to_numpy()))


def test_rows_are_read_once_and_boards_computed_once(tmp_path):
    make_store(tmp_path / "results")
    service = BoardService(tmp_path / "results", shipped=False)
    snap = service.snapshot()
    read = service.files_read
    assert read == len(ResultStore(tmp_path / "results").run_ids()) > 0
    _same_rows(snap.rows, load_board_rows(tmp_path / "results", shipped=False)[0])
    calls = []
    first = snap.memo("board", lambda: calls.append(1) or len(snap.rows))
    again = service.snapshot()
    assert again is snap and again.memo("board", lambda: calls.append(1) or -1) == first and calls == [1]
    assert service.files_read == read  # nothing re-read


def test_a_new_run_is_read_alone_and_shown(tmp_path):
    store = ResultStore(tmp_path / "results")
    rows = rote_rows(random.Random(0))
    for row in rows[:-1]:
        store.append(row)
    service = BoardService(tmp_path / "results", shipped=False)
    before = service.snapshot()
    assert rows[-1].run_id not in set(before.rows["run_id"])
    store.append(rows[-1])
    after = service.snapshot()
    assert after is not before and rows[-1].run_id in set(after.rows["run_id"])
    assert service.files_read == len(rows)  # the first snapshot read len(rows) - 1 files, the second one
    _same_rows(after.rows, load_board_rows(tmp_path / "results", shipped=False)[0])


def test_a_damaged_file_is_set_aside_once_with_a_notice(tmp_path):
    store = make_store(tmp_path / "results")
    (store.runs_dir / "broken.parquet").write_bytes(b"not parquet")
    service = BoardService(tmp_path / "results", shipped=False)
    snap = service.snapshot()
    assert any(n.startswith("broken.parquet: file could not be read") for n in snap.notices)
    read = service.files_read
    store.append(cogscale_rows(random.Random(9))[0].__class__(**{**cogscale_rows(random.Random(9))[0].__dict__,
                                                                  "run_id": "cogscale-extra-run"}))
    later = service.snapshot()
    assert service.files_read == read + 1  # only the new file; the broken one is not read again
    assert any(n.startswith("broken.parquet") for n in later.notices) and "cogscale-extra-run" in set(later.rows["run_id"])


def test_a_changed_file_makes_the_store_be_read_again(tmp_path):
    store = make_store(tmp_path / "results")
    service = BoardService(tmp_path / "results", shipped=False)
    n = service.snapshot() and service.files_read
    victim = sorted(store.runs_dir.glob("*.parquet"))[0]
    victim.unlink()
    snap = service.snapshot()
    assert service.files_read == n + (n - 1) and len(ResultStore(tmp_path / "results").run_ids()) == n - 1
    _same_rows(snap.rows, load_board_rows(tmp_path / "results", shipped=False)[0])


def test_an_unreachable_results_repo_is_a_notice_not_a_failure(tmp_path):
    make_store(tmp_path / "results")
    service = BoardService(tmp_path / "results", shipped=False, repo=str(tmp_path / "no" / "such" / "repo"))
    snap = service.snapshot()
    assert any(n.startswith(f"results repo {tmp_path / 'no' / 'such' / 'repo'}: not read") for n in snap.notices)
    assert len(snap.rows) == len(load_board_rows(tmp_path / "results", shipped=False)[0])


def _repo_folder(root, tables) -> None:
    """A results repo folder as `rote-hf publish` lays it out: data/ours/*.parquet."""
    import pyarrow.parquet as pq

    folder = root / "data" / "ours"
    folder.mkdir(parents=True, exist_ok=True)
    for i, table in enumerate(tables):
        pq.write_table(table, folder / f"train-{i:05d}-of-{len(tables):05d}.parquet")


def test_the_repo_is_checked_on_its_schedule_and_read_when_its_revision_changes(tmp_path):
    import pyarrow as pa

    from rote_hf.results.schema import arrow_schema

    rows = [r.to_record() for r in rote_rows(random.Random(1))]
    repo = tmp_path / "repo"
    _repo_folder(repo, [pa.Table.from_pylist(rows[:4], schema=arrow_schema())])
    now = [0.0]
    service = BoardService(None, shipped=False, repo=str(repo), repo_every_s=60, clock=lambda: now[0])
    first = service.snapshot()
    assert len(first.rows[first.rows["source"] == "ours"]) == 4 and (service.repo_checks, service.repo_reads) == (1, 1)
    now[0] = 59.0
    assert service.snapshot() is first and service.repo_checks == 1  # not per request
    now[0] = 60.0
    assert service.snapshot() is first and (service.repo_checks, service.repo_reads) == (2, 1)  # same revision
    _repo_folder(repo, [pa.Table.from_pylist(rows[:4], schema=arrow_schema()),
                        pa.Table.from_pylist(rows[4:6], schema=arrow_schema())])
    now[0] = 120.0
    second = service.snapshot()
    assert second is not first and service.repo_reads == 2 and len(second.rows[second.rows["source"] == "ours"]) == 6
    with pytest.raises(ValueError, match="repo_every_s must be a number of seconds > 0"):
        BoardService(None, repo_every_s=0)


def test_the_repo_copy_of_the_bundled_rows_is_shown_once_and_never_validated(tmp_path, monkeypatch):
    """`rote-hf publish` uploads our shipped rows to the results repo too: the Space drops them from
    the repo unread (the bundled copy is shown), with no notice; the repo's other rows join."""
    import pyarrow as pa

    from rote_hf.leaderboard import source
    from rote_hf.results.schema import arrow_schema
    from rote_hf.results.shipped import shipped_table

    shipped = shipped_table().slice(0, 300)
    extra = pa.Table.from_pylist([r.to_record() for r in cogscale_rows(random.Random(2))[:5]], schema=arrow_schema())
    _repo_folder(tmp_path / "repo", [shipped, extra])
    validated = []
    real = source.valid_rows
    monkeypatch.setattr(source, "valid_rows", lambda frame: (validated.append(len(frame)), real(frame))[1])
    snap = BoardService(None, shipped=True, repo=str(tmp_path / "repo")).snapshot()
    assert snap.notices == [] and snap.rows["run_id"].is_unique
    bundled = source.paper_frame(True)
    assert len(snap.rows) == len(bundled) + 5 and validated == [5]
    frame, notices = load_board_rows(None, repo=str(tmp_path / "repo"))  # the per-call reader: the same rows
    assert notices == [] and len(frame) == len(snap.rows)


def test_an_unreachable_repo_keeps_the_rows_read_before(tmp_path):
    import shutil

    import pyarrow as pa

    from rote_hf.results.schema import arrow_schema

    repo = tmp_path / "repo"
    _repo_folder(repo, [pa.Table.from_pylist([r.to_record() for r in rote_rows(random.Random(3))[:3]], schema=arrow_schema())])
    now = [0.0]
    service = BoardService(None, shipped=False, repo=str(repo), repo_every_s=10, clock=lambda: now[0])
    first = service.snapshot()
    shutil.rmtree(repo)
    (tmp_path / "repo").write_text("not a folder any more")
    now[0] = 10.0
    snap = service.snapshot()
    assert len(snap.rows) == len(first.rows) and len(snap.notices) == 1
    assert snap.notices[0].startswith(f"results repo {repo}: not read (") and snap.notices[0].endswith("showing the rows read before")
    now[0] = 20.0
    assert service.snapshot() is snap  # the same failure again: nothing new to show


def test_concurrent_requests_for_one_board_compute_it_once(tmp_path):
    snap = BoardService(None, shipped=False).snapshot()
    started, release, calls, results = threading.Event(), threading.Event(), [], []

    def slow():
        calls.append(1)
        started.set()
        release.wait(10)
        return "board"

    threads = [threading.Thread(target=lambda: results.append(snap.memo("k", slow))) for _ in range(4)]
    threads[0].start()
    started.wait(10)
    for t in threads[1:]:
        t.start()
    release.set()
    for t in threads:
        t.join(10)
    assert calls == [1] and results == ["board"] * 4


def test_many_run_files_are_compacted_and_read_as_one_part_next_time(tmp_path):
    store = make_store(tmp_path / "results")
    n = len(store.run_ids())
    first = BoardService(tmp_path / "results", shipped=False, compact_min=5)
    rows = first.snapshot().rows
    assert first.files_read == n and (tmp_path / "results" / "compact" / "manifest.json").is_file()
    second = BoardService(tmp_path / "results", shipped=False, compact_min=5)
    _same_rows(second.snapshot().rows, rows)
    assert second.files_read == 0  # every row came from the compacted copy
    # a run file replaced after compaction (a retried run) is read from runs/ again, not from the copy
    victim = sorted(store.runs_dir.glob("*.parquet"))[0]
    data = victim.read_bytes()
    victim.unlink()
    victim.write_bytes(data)
    os.utime(victim, ns=(1, 1))
    third = BoardService(tmp_path / "results", shipped=False, compact_min=10**6)
    _same_rows(third.snapshot().rows, rows)
    assert third.files_read == 1


def test_while_one_request_reads_a_change_the_others_get_the_last_version(tmp_path):
    store = ResultStore(tmp_path / "results")
    rows = rote_rows(random.Random(3))
    store.append(rows[0])
    service = BoardService(tmp_path / "results", shipped=False)
    old = service.snapshot()
    store.append(rows[1])
    with service._lock:  # another request is reading what changed
        assert service.snapshot() is old  # served at once, not after the re-read
    new = service.snapshot()
    assert new is not old and rows[1].run_id in set(new.rows["run_id"])


def test_a_submission_is_read_as_one_compacted_part(tmp_path):
    from rote_hf.leaderboard import store_submission

    store = make_store(tmp_path / "results")
    service = BoardService(tmp_path / "results", shipped=False)
    service.snapshot()
    read = service.files_read
    submitted = [r.__class__(**{**r.__dict__, "run_id": f"visitor-{i}", "source": "submitted", "verified": False})
                 for i, r in enumerate(rote_rows(random.Random(4)))]
    store_submission(submitted, store.root)
    snap = service.snapshot()
    assert {f"visitor-{i}" for i in range(len(submitted))} <= set(snap.rows["run_id"])
    assert service.files_read == read  # no run file of the submission read on its own


def test_the_app_builds_with_an_unreachable_repo_and_says_so_apart_from_skipped_rows(tmp_path, monkeypatch):
    """The Space starts when its results repo cannot be read: the notice names the repo (not as a
    row 'not meeting its schema') and the bundled rows are served."""
    from tests.space.test_tabs import load_app

    app = load_app()
    monkeypatch.setenv("ROTE_RESULTS_REPO", str(tmp_path / "gone" / "results"))
    demo = app.build_demo(tmp_path / "results", shipped=False)
    assert demo is not None
    note = app._notice([f"results repo {tmp_path}/gone: not read (X: y); showing the bundled rows", "'x': task must be ..."])
    first, second = note.split("\n\n")
    assert first == f"**results repo {tmp_path}/gone: not read (X: y); showing the bundled rows**"
    assert second.startswith("**1 stored row(s) skipped**") and "'x': task must be" in second
    assert app._notice([]) == "" and "skipped" not in app._notice([f"results repo {tmp_path}: not read"])


def test_a_page_visit_computes_each_board_once(tmp_path):
    """The app's page-load handler, after the start-up warm-up, computes nothing again; warm-up and
    visits together compute every board of every tab exactly once for one version of the rows."""
    from tests.space.test_tabs import load_app

    make_store(tmp_path / "results")
    service = BoardService(tmp_path / "results", shipped=False)
    demo = load_app().build_demo(tmp_path / "results", service=service)
    for thread in threading.enumerate():
        if thread.name == "warm-boards":
            thread.join(120)
    (refresh,) = [f.fn for f in demo.fns.values() if getattr(f.fn, "__name__", "") == "refresh"]
    ranked = service.snapshot().ranked()
    warmed = dict(ranked.computed)
    assert {key[0] for key in warmed} >= {"rote", "cogscale", "repro", "llm"}  # every tab's board
    first, second = refresh(), refresh()
    assert len(first) == len(second) > len(warmed)
    assert dict(ranked.computed) == warmed and set(warmed.values()) == {1}
    assert service.snapshot().ranked() is ranked  # the same version: nothing re-read


def test_gradios_request_log_stays_bounded_and_is_not_summarised_per_request(tmp_path, monkeypatch):
    """Gradio's queue logs every event it serves and, by default, builds a frame of the whole log
    after each one (a cost per request that grows with the requests served). The app bounds the log
    and summarises it every 100 events; an operator's own bound is kept (a small one here, so that
    a few calls reach it)."""
    from gradio_client import Client

    from rote_hf.leaderboard.serving import QUEUE_ANALYTICS_ENV, bound_queue_analytics
    from tests.space.test_tabs import load_app

    env = {"GRADIO_ANALYTICS_MAX_EVENTS": "7"}
    assert bound_queue_analytics(env) == env == {"GRADIO_ANALYTICS_MAX_EVENTS": "7",
                                                 "GRADIO_ANALYTICS_CACHE_FREQUENCY": "100"}
    for name in QUEUE_ANALYTICS_ENV:  # monkeypatch then restores them unset, whatever the app sets
        monkeypatch.delenv(name, raising=False)
    app = load_app()
    assert {name: os.environ.get(name) for name in QUEUE_ANALYTICS_ENV} == QUEUE_ANALYTICS_ENV
    make_store(tmp_path / "results")
    demo = app.build_demo(tmp_path / "results", shipped=False)
    assert (demo._queue.ANALYTICS_MAX_EVENTS, demo._queue.ANAYLTICS_CACHE_FREQUENCY) == (1000, 100)  # Gradio's names
    monkeypatch.setenv("GRADIO_ANALYTICS_MAX_EVENTS", "7")
    demo.queue(default_concurrency_limit=app.CONCURRENCY).launch(server_name="127.0.0.1", prevent_thread_lock=True,
                                                                 quiet=True)
    try:
        client = Client(demo.local_url, verbose=False)
        for _ in range(20):
            client.predict("cogscale_paper", api_name="/reproduction_plot")
        queue = demo._queue
        assert queue.events_recorded == 20 and len(queue.event_analytics) == 7  # the log stops growing
        assert queue.event_count_at_last_cache == 0  # not summarised once in 20 requests (Gradio's default: 20 times)
    finally:
        demo.close()
