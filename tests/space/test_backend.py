"""Issue 26 item 4: ``rote-hf backend`` re-runs architecture requests through the normal sweep
runner (a real ROTE fit on a tiny test track), stores verified rows carrying the request id,
and marks each request verified, failed or rejected; claims keep two backends apart."""

from __future__ import annotations

import json

import gradio as gr
import pytest

from rote_hf.leaderboard import tracks
from rote_hf.leaderboard.backend import run_backend
from rote_hf.leaderboard.requests import RequestDesk
from rote_hf.leaderboard.source import load_board_rows, ranked_rows
from rote_hf.leaderboard.visitor import submit_architecture
from rote_hf.results.claims import ClaimBook
from tests.helpers import run_cli

TINY = tracks.Track(
    "test-tiny", "rote", "tests only: one paper seed (n=2, c=10), N=200, w=k=10, 2 epochs",
    {"suite": "rote",
     "data": {"seeds": {"source": "paper", "track": "main", "symbols": [2], "complexities": [10], "seed_count": 1},
              "sequence_length": 200, "window": 10, "horizon": 10},
     "protocol": {"max_epochs": 2}, "runs": 1},
    tracks.ZOO_NAMES)


def profile(name: str) -> gr.OAuthProfile:
    return gr.OAuthProfile({"preferred_username": name, "name": name.title(), "profile": "", "picture": ""})


@pytest.fixture
def tiny_track(monkeypatch):
    monkeypatch.setitem(tracks.TRACKS, TINY.name, TINY)


def test_backend_verifies_fails_and_rejects_requests_in_order(tmp_path, tiny_track):
    desk = RequestDesk(tmp_path / "desk")
    ok = submit_architecture(desk, '{"name": "gru", "hidden_size": 4, "num_layers": 1}', TINY.name, profile("alice"))
    bad = submit_architecture(desk, '{"name": "gru", "nhead": 2}', TINY.name, profile("bob"))  # gru takes no nhead
    assert ok.startswith("Queued request") and bad.startswith("Queued request")
    ok_id, bad_id = ok.split()[2].rstrip(":"), bad.split()[2].rstrip(":")
    # a record edited to a track that is not on the menu is rejected unrun
    gone = desk.create("carol", "architecture", {"model": {"name": "gru"}, "track": "rote-huge"})
    results = tmp_path / "results"
    report = run_backend(str(desk.root), results, once=True)
    assert (report.verified, report.failed, report.rejected) == ([ok_id], [bad_id], [gone.id])
    by_id = {r.id: r for r in desk.records()}
    assert by_id[ok_id].status == "verified" and by_id[ok_id].reason == "1 run(s) re-run and stored as verified rows"
    assert by_id[bad_id].status == "failed" and "nhead" in by_id[bad_id].reason
    assert by_id[gone.id].status == "rejected" and by_id[gone.id].reason.startswith("not run: track must be one of")
    frame, _ = load_board_rows(results, shipped=False)
    mine = frame[frame["settings"].map(lambda s: s.get("request", {}).get("id")) == ok_id]
    assert len(mine) == 1
    row = mine.iloc[0]
    assert (row["source"], bool(row["verified"]), row["status"], row["model"]) == ("submitted", True, "ok", "gru")
    assert row["settings"]["request"] == {"id": ok_id, "user": "alice", "track": TINY.name}
    assert row["model_config"] == {"hidden_size": 4, "num_layers": 1} and row["epochs"] == 2
    # verified rows are ranked by default; the failed (unverified) row only with the toggle
    assert ok_id in set(ranked_rows(frame)["settings"].map(lambda s: s.get("request", {}).get("id")))
    assert len(ranked_rows(frame)) == len(frame) - 1 and len(ranked_rows(frame, True)) == len(frame)
    # a second pass has nothing left to do
    again = run_backend(str(desk.root), results, once=True)
    assert again.handled == 0


def test_a_request_claimed_by_another_backend_is_left_to_it(tmp_path, tiny_track):
    desk = RequestDesk(tmp_path / "desk")
    first = submit_architecture(desk, '{"name": "gru", "hidden_size": 4, "num_layers": 1}', TINY.name,
                                profile("alice")).split()[2].rstrip(":")
    other = ClaimBook(desk.root)
    assert other.try_claim(f"request-{first}")  # a live backend (this process) holds it
    try:
        report = run_backend(str(desk.root), tmp_path / "results", once=True)
    finally:
        other.release_all()
    assert report.handled == 0 and desk.get(first).status == "pending"
    assert run_backend(str(desk.root), tmp_path / "results", once=True, max_requests=1).verified == [first]


@pytest.mark.parametrize(("args", "message"), [
    (["backend", "--results", "r"], "the following arguments are required: --requests"),
    (["backend", "--requests", "d", "--results", "r", "--max-requests", "0"], "--max-requests"),
])
def test_backend_command_refuses_bad_usage_with_exit_2(tmp_path, args, message):
    done = run_cli(*args, cwd=tmp_path, timeout=120)
    assert done.returncode == 2 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_backend_command_runs_an_empty_queue_once(tmp_path):
    done = run_cli("backend", "--requests", str(tmp_path / "desk"), "--results", str(tmp_path / "r"), "--once",
                   cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "requests: 0 verified, 0 failed, 0 rejected"
    assert not json.dumps([p.name for p in (tmp_path / "desk").glob("requests/*")]).count(".json")
