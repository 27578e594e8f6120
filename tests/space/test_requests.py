"""Issue 26 items 1, 2 and 4 without a server: request records that last (a folder, or the Hub
through the real CommitScheduler with only the upload faked), per-user rate limits that survive
restarts, and the architecture menu."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from rote_hf.leaderboard.requests import (
    KINDS, STATUSES, RateLimited, RateLimits, RequestDesk, RequestError, RequestRecord, open_desk, parse_utc,
)
from rote_hf.leaderboard.tracks import (
    ARCH_LIMITS, COGSCALE_MODELS, TRACKS, ZOO_NAMES, EntryError, check_request, parse_entry, sweep_config,
)
from tests.space.fake_hub import FakeHub
from tests.space.schema_check import load_schema, problems

T0 = parse_utc("2026-12-03T10:00:00Z")


class Clock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_records_are_files_that_survive_a_restart_and_match_the_schema(tmp_path):
    clock = Clock()
    desk = RequestDesk(tmp_path, clock=clock)
    a = desk.create("alice", "architecture", {"model": {"name": "gru", "hidden_size": 32}, "track": "rote-smoke"})
    clock.now += 5
    b = desk.create("bob", "rows", {"file": "r.json", "sha256": "0" * 64, "rows": 2, "run_ids": ["submitted-x"]})
    desk.update(a.id, "failed", "1 of 2 run(s) failed;\nfirst: boom", runs=2, run_ids=["rote-gru-n2-c10-0"])
    again = RequestDesk(tmp_path)  # a restart: a new process on the same folder
    assert [r.id for r in again.records()] == [a.id, b.id]
    assert [r.id for r in again.records(user="bob")] == [b.id]
    got = again.get(a.id)
    assert (got.status, got.reason, got.detail["runs"]) == ("failed", "1 of 2 run(s) failed; first: boom", 2)
    assert got.time == "2026-12-03T10:00:00Z" and a.id.startswith("20261203T100000Z-")
    schema = load_schema("request.schema.json")
    assert schema["properties"]["kind"]["enum"] == list(KINDS)
    assert schema["properties"]["status"]["enum"] == list(STATUSES)
    assert schema["properties"]["detail"]["properties"]["track"]["enum"] == list(TRACKS)
    for path in sorted((tmp_path / "requests").glob("*.json")):
        assert problems(json.loads(path.read_text()), schema) == [], path.name
    # the checker bites: a record with another status or an extra field breaks the schema
    bad = {**got.to_json(), "status": "approved", "extra": 1}
    assert len(problems(bad, schema)) == 2
    with pytest.raises(RequestError, match="status must be one of"):
        desk.update(a.id, "approved")


def test_record_fields_are_checked(tmp_path):
    with pytest.raises(RequestError, match="user must be a Hugging Face user name"):
        RequestDesk(tmp_path).create("../etc", "rows", {})
    with pytest.raises(RequestError, match="kind must be one of"):
        RequestDesk(tmp_path).create("alice", "weights", {})
    with pytest.raises(RequestError, match="request id must look like"):
        RequestDesk(tmp_path).get("../../x")
    assert not (tmp_path / "requests").exists()


def test_rate_limit_counts_per_user_refuses_with_the_next_utc_time_and_survives_restarts(tmp_path):
    clock = Clock()
    limits = RateLimits(submissions=2, llm_queries=1)
    desk = RequestDesk(tmp_path, limits=limits, clock=clock)
    for step in range(2):
        with desk.counted("alice", "submission"):
            pass
        clock.now += 600
    with pytest.raises(RateLimited) as exc:
        with desk.counted("alice", "submission"):
            raise AssertionError("the block must not run over the limit")
    assert str(exc.value) == ("rate limit: 2 submissions per 24 h for alice; the next is allowed at "
                              "2026-12-04 10:00:00 UTC")
    assert exc.value.next_allowed == dt.datetime(2026, 12, 4, 10, 0, tzinfo=dt.timezone.utc)
    with desk.counted("bob", "submission"):  # another user has their own count
        pass
    with pytest.raises(ValueError):  # a failed action is not counted
        with desk.counted("carol", "submission"):
            raise ValueError("refused upload")
    restarted = RequestDesk(tmp_path, limits=limits, clock=clock)
    with pytest.raises(RateLimited):
        restarted.check_allowed("alice", "submission")
    restarted.check_allowed("carol", "submission")
    clock.now = T0 + 86_400  # the first use leaves the 24 h window
    restarted.check_allowed("alice", "submission")
    with restarted.counted("alice", "llm_query"):
        pass
    with pytest.raises(RateLimited, match="1 LLM queries per 24 h"):
        restarted.check_allowed("alice", "llm_query")


def test_rate_limits_are_configurable():
    assert RateLimits() == RateLimits(submissions=5, llm_queries=20, window_s=86_400)
    assert RateLimits.from_env({"ROTE_SUBMISSIONS_PER_DAY": "3", "ROTE_LLM_QUERIES_PER_DAY": "7"}) == \
        RateLimits(submissions=3, llm_queries=7)
    with pytest.raises(ValueError, match="ROTE_SUBMISSIONS_PER_DAY must be an integer"):
        RateLimits.from_env({"ROTE_SUBMISSIONS_PER_DAY": "lots"})
    with pytest.raises(ValueError, match="llm_queries must be an integer >= 0"):
        RateLimits(llm_queries=-1)


def test_hub_desk_uploads_through_commit_scheduler_and_a_restart_loses_nothing(tmp_path):
    hub = FakeHub(tmp_path / "remote")
    desk = open_desk("org/requests", local_dir=tmp_path / "space-disk", api=hub, every_min=60)
    try:
        record = desk.create("alice", "architecture", {"model": {"name": "gru"}, "track": "rote-smoke"})
        with desk.counted("alice", "submission"):
            pass
        desk.scheduler.trigger().result()
    finally:
        desk.scheduler.stop()
    assert sorted(p for commit in hub.commits for p in commit) == [f"requests/{record.id}.json", "usage/alice.jsonl"]
    # the Space restarts on a wiped disk: everything comes back from the repo
    fresh = open_desk("org/requests", local_dir=tmp_path / "wiped-disk", api=hub, every_min=60,
                      limits=RateLimits(submissions=1))
    try:
        assert [r.id for r in fresh.records()] == [record.id]
        with pytest.raises(RateLimited):
            fresh.check_allowed("alice", "submission")
        # a backend elsewhere marks the request verified; the Space sees it on its next refresh
        remote = hub.repo("org/requests") / "requests" / f"{record.id}.json"
        remote.write_text(json.dumps({**json.loads(remote.read_text()), "status": "verified", "reason": "ok"}))
        fresh._pulled_at = None
        fresh.refresh()
        assert fresh.get(record.id).status == "verified"
        fresh.scheduler.trigger().result()
        assert len(hub.commits) == 1  # what was downloaded is not uploaded again
    finally:
        fresh.scheduler.stop()


def test_every_track_is_a_valid_sweep_config_and_the_menu_names_zoo_models():
    from rote_hf.train.config import SweepConfig, expand
    from rote_hf.zoo.registry import get_spec, names

    assert ZOO_NAMES == names()
    counts = {}
    for name, track in TRACKS.items():
        entry = {"name": "gru"} if track.budget else {"name": "gru", "hidden_size": 16}
        config = SweepConfig.from_dict(sweep_config("20261203T100000Z-0123abcd", entry, name))
        specs = expand(config)
        counts[name] = len(specs)
        assert config.name == "request-20261203T100000Z-0123abcd" and config.suite == track.suite
    assert counts == {"rote-smoke": 2, "rote-main-c90": 4, "cogscale-small-1k": 210}
    assert all("cogscale" in get_spec(m).presets for m in COGSCALE_MODELS)
    widths = {k for n in names() for k in get_spec(n).defaults}
    assert set(ARCH_LIMITS) <= widths


@pytest.mark.parametrize(("entry", "track", "message"), [
    ('{"name": "rote_hf.zoo:build_model"}', "rote-smoke", "not code ('module:factory' entries are refused)"),
    ("mypkg.models:Net", "rote-smoke", "not code"),
    ('{"name": "gruu"}', "rote-smoke", "unknown zoo model 'gruu'; did you mean 'gru', 'mingru'?"),
    ('{"name": "gru"}', "rote-huge", "track must be one of ['rote-smoke', 'rote-main-c90', 'cogscale-small-1k']"),
    ('{"name": "gru", "hidden_size": 100000}', "rote-smoke", "hidden_size must be an integer in 1..1024"),
    ('{"name": "gru", "factory": "os:system"}', "rote-smoke", "key 'factory' is not allowed"),
    ('{"name": "gru", "budget": 5000, "hidden_size": 8}', "rote-smoke", "either budget or a width"),
    ('{"name": "gru", "hidden_size": 8}', "cogscale-small-1k", "trains every model at budget 1000"),
    ('{"name": "mingru"}', "cogscale-small-1k", "takes the models gru, lstm"),
    ('{"name": "esn"}', "rote-smoke", "track 'rote-smoke' takes the models"),
    ('[' * 40, "rote-smoke", "nested deeper than"),
])
def test_bad_entries_and_tracks_are_refused_in_one_line(entry, track, message):
    with pytest.raises(EntryError) as exc:
        check_request(entry, track)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_good_entries():
    assert parse_entry("gru") == {"name": "gru"}
    assert parse_entry('{"name": "lstm", "budget": 20000}') == {"name": "lstm", "budget": 20000}
    assert check_request({"name": "gru", "budget": 1000}, "cogscale-small-1k")[0] == {"name": "gru", "budget": 1000}
    assert sweep_config("20261203T100000Z-0123abcd", {"name": "gru"}, "cogscale-small-1k")["models"] == [
        {"name": "gru", "preset": "cogscale", "budget": 1000}]


def test_request_record_round_trip():
    record = RequestRecord(id="20261203T100000Z-0123abcd", user="alice", time="2026-12-03T10:00:00Z",
                           kind="rows", detail={"rows": 1})
    assert RequestRecord.from_json(json.loads(json.dumps(record.to_json()))) == record
    with pytest.raises(RequestError, match="unknown fields"):
        RequestRecord.from_json({**record.to_json(), "admin": True})


def test_concurrent_actions_of_one_user_are_counted_one_at_a_time(tmp_path):
    import threading

    desk = RequestDesk(tmp_path, limits=RateLimits(submissions=1))
    start, outcomes = threading.Barrier(4), []

    def act():
        start.wait()
        try:
            with desk.counted("alice", "submission"):
                pass
            outcomes.append("ok")
        except RateLimited:
            outcomes.append("limited")

    threads = [threading.Thread(target=act) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["limited", "limited", "limited", "ok"]
