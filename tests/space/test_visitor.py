"""Issue 26's bad input through the handlers the Space wires (rote_hf.leaderboard.visitor), called
as Gradio calls them, with a constructed ``gr.OAuthProfile`` (or ``None``: nobody signed in).
Each refusal is one line, stores nothing, does not count against the limit, and changes nobody
else's view (the board's rows and another visitor's requests)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import gradio as gr
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rote_hf.leaderboard.requests import RateLimits, RequestDesk, parse_utc
from rote_hf.leaderboard.source import load_board_rows, ranked_rows
from rote_hf.leaderboard.visitor import (
    VisitorError, my_requests, start_llm_query, submit_architecture, submit_rows,
)
from tests.space.schema_check import load_schema, problems

ROW = {"run_id": "mine-1", "suite": "rote", "task": "n4-c30", "model": "MyNet",
       "task_params": {"symbols": 4, "complexity": 30}, "metrics": {"DL": 0.05, "exact": 0.0},
       "git_commit": "0123abc", "package_version": "1.2.0", "device": "cpu"}
T0 = parse_utc("2026-12-03T10:00:00Z")


def profile(name: str) -> gr.OAuthProfile:
    return gr.OAuthProfile({"preferred_username": name, "name": name.title(), "profile": "", "picture": ""})


def write(tmp_path: Path, name: str, rows=None, data: bytes | None = None) -> str:
    path = tmp_path / "uploads" / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data if data is not None else json.dumps(rows).encode())
    return str(path)


def state(desk: RequestDesk) -> tuple:
    """Everything a visitor can see or that counts: files under the desk, bob's requests, the board."""
    files = sorted(str(p.relative_to(desk.root)) for p in desk.root.glob("**/*") if p.is_file())
    frame, _ = load_board_rows(desk.root, shipped=False)
    return files, my_requests(desk, profile("bob")).to_dict("records"), sorted(frame["run_id"])


@pytest.fixture
def desk(tmp_path):
    clock = iter(range(10**6))
    desk = RequestDesk(tmp_path / "desk", limits=RateLimits(submissions=3, llm_queries=1),
                       clock=lambda: T0 + next(clock))
    assert submit_architecture(desk, "gru", "rote-smoke", profile("bob")).startswith("Queued request")
    return desk


def test_a_signed_in_visitor_submits_rows_stored_unverified_with_their_name(desk, tmp_path):
    message = submit_rows(desk, write(tmp_path, "mine.json", [ROW]), profile("alice"))
    assert message.startswith("Stored 1 row(s) as unverified (submitted) by alice, request 20261203T1000")
    frame, _ = load_board_rows(desk.root, shipped=False)
    row = frame[frame["run_id"] == "submitted-mine-1"].iloc[0]
    assert (row["source"], bool(row["verified"])) == ("submitted", False)
    assert row["settings"]["submission"]["user"] == "alice"
    request_id = row["settings"]["submission"]["request"]
    # hidden from the ranking by default, shown with the toggle (marked by the boards)
    assert "submitted-mine-1" not in set(ranked_rows(frame)["run_id"])
    assert "submitted-mine-1" in set(ranked_rows(frame, show_unverified=True)["run_id"])
    mine = my_requests(desk, profile("alice"))
    assert list(mine["id"]) == [request_id] and list(mine["kind"]) == ["rows"]
    assert list(mine["what"]) == ["1 row(s) from mine.json"]
    assert "rows" not in set(my_requests(desk, profile("bob"))["kind"])  # others' requests are not shown
    assert len(my_requests(desk, None)) == 0
    schema = load_schema("request.schema.json")
    for path in (desk.root / "requests").glob("*.json"):
        assert problems(json.loads(path.read_text()), schema) == []


def bomb() -> bytes:
    column = pa.DictionaryArray.from_arrays(pa.array([0] * 30, pa.int32()), pa.array(["x" * (20 * 1024 * 1024)]))
    buf = io.BytesIO()
    pq.write_table(pa.table({"run_id": [f"r{i}" for i in range(30)], "error": column}), buf, compression="zstd",
                   dictionary_pagesize_limit=64 * 1024 * 1024)
    return buf.getvalue()


BIDI_ROW = {**ROW, "git_commit": "0123abc\u202e"}
CASES = {
    "not signed in (rows)": (lambda d, t: submit_rows(d, write(t, "a.json", [ROW]), None),
                             "Rejected: sign in with your Hugging Face account first"),
    "not signed in (architecture)": (lambda d, t: submit_architecture(d, "gru", "rote-smoke", None),
                                     "Rejected: sign in with your Hugging Face account first"),
    "parquet bomb": (lambda d, t: submit_rows(d, write(t, "b.parquet", data=bomb()), profile("alice")),
                     "Rejected: file's column 'error' is 20971572 bytes uncompressed"),
    "json bomb": (lambda d, t: submit_rows(d, write(t, "b.json", data=b"[" * 100_000 + b"]" * 100_000),
                                           profile("alice")),
                  "Rejected: file is nested deeper than 12 levels"),
    "model entry naming code": (lambda d, t: submit_architecture(d, '{"name": "os:system"}', "rote-smoke",
                                                                 profile("alice")),
                                "Rejected: model name must be a zoo name, not code"),
    "unknown zoo name": (lambda d, t: submit_architecture(d, '{"name": "lstn"}', "rote-smoke", profile("alice")),
                         "Rejected: unknown zoo model 'lstn'; did you mean 'lstm'"),
    "unknown track": (lambda d, t: submit_architecture(d, "gru", "imagenet", profile("alice")),
                      "Rejected: track must be one of ['rote-smoke', 'rote-main-c90', 'cogscale-small-1k']"),
    "bidi in a provenance field": (lambda d, t: submit_rows(d, write(t, "c.json", [BIDI_ROW]), profile("alice")),
                                   "Rejected: row 0 ('mine-1'): git_commit must not contain control or "
                                   "bidirectional-text characters"),
    "claimed commit": (lambda d, t: submit_rows(d, write(t, "d.json", [{**ROW, "git_commit": "verified-by-maintainers"}]),
                                                profile("alice")),
                       "Rejected: row 0 ('mine-1'): git_commit must be 7-40 hex digits"),
    "claimed version": (lambda d, t: submit_rows(d, write(t, "e.json", [{**ROW, "package_version": "paper (verified)"}]),
                                                 profile("alice")),
                        "Rejected: row 0 ('mine-1'): package_version must be a PEP 440 version"),
    "bidi in the model name": (lambda d, t: submit_rows(d, write(t, "f.json", [{**ROW, "model": "Net\u202egnp"}]),
                                                        profile("alice")),
                               "Rejected: row 0 ('mine-1'): model must be 1-100 characters"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line_stores_nothing_and_changes_no_view(desk, tmp_path, case):
    act, expected = CASES[case]
    before = state(desk)
    message = act(desk, tmp_path)
    assert message.startswith(expected), message
    assert "\n" not in message and len(message) <= 520
    assert state(desk) == before


def test_over_the_rate_limit_is_refused_with_the_next_utc_time(desk, tmp_path):
    for i in range(3):
        assert submit_architecture(desk, "gru", "rote-smoke", profile("alice")).startswith("Queued")
    before = state(desk)
    message = submit_rows(desk, write(tmp_path, "late.json", [ROW]), profile("alice"))
    first = json.loads((desk.root / "usage" / "alice.jsonl").read_text().splitlines()[0])["time"]
    next_at = first.replace("2026-12-03T", "2026-12-04 ").rstrip("Z")  # 24 h after alice's first submission
    assert message == f"Rejected: rate limit: 3 submissions per 24 h for alice; the next is allowed at {next_at} UTC"
    assert state(desk) == before
    assert submit_architecture(desk, "gru", "rote-smoke", profile("bob")).startswith("Queued")  # bob's own count


def test_the_llm_query_gate_needs_sign_in_and_has_its_own_limit(desk):
    with pytest.raises(VisitorError, match="^Rejected: sign in with your Hugging Face account first"):
        start_llm_query(desk, None)
    assert start_llm_query(desk, profile("alice")) == "alice"
    with pytest.raises(VisitorError, match=r"^Rejected: rate limit: 1 LLM queries per 24 h for alice; the next is "
                                           r"allowed at 2026-12-04 10:00:0\d UTC$"):
        start_llm_query(desk, profile("alice"))
    assert submit_architecture(desk, "gru", "rote-smoke", profile("alice")).startswith("Queued")  # separate counts
