"""Strangers' LLM queries (issue 26, item 6): credential-scoped replies, a whole-query deadline, a
fair queue per user, quotas on the cache and the logs. Real servers on 127.0.0.1."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from rote_hf.llm import (
    AddressRefused, FairQueue, NetworkPolicy, OpenAICompatibleResponder, QueryLimits, QueueFull, ReplyCache,
    RetryPolicy, SampleItem, VisitorQueries, build_messages, evaluate_llm, prune_oldest, run_queries,
)
from tests.llm.stub_server import StubServer
from tests.llm.test_hostile import GOOD, DripServer

ITEMS = [SampleItem(f"A00000{i}", "clean", tuple(range(i, i + 20)), tuple(range(i + 20, i + 23))) for i in range(1, 4)]
LOOPBACK = NetworkPolicy.public_only(allowed_hosts="127.0.0.1")


@pytest.fixture()
def online(monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.delenv("ROTE_LLM_API_KEY", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("ROTE_LLM_CACHE_SECRET", raising=False)


def _files(root) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


# ---- replies: scoped to the caller's credentials ----------------------------------------------------------------

def test_visitor_b_is_never_served_visitor_a_replies(online, tmp_path):
    service = VisitorQueries(tmp_path, network=LOOPBACK)
    with StubServer(lambda body: (200, GOOD)) as s:
        a = service.run("alice", s.base_url, "m", "hf_token-of-A", ITEMS)
        assert (a.n_asked, len(s.requests)) == (3, 3)
        b = service.run("bob", s.base_url, "m", "hf_token-of-B", ITEMS)
        assert (b.n_asked, b.n_cached, len(s.requests)) == (3, 0, 6)  # asked with B's own key
        anon = service.run("carol", s.base_url, "m", "", ITEMS)
        assert (anon.n_cached, len(s.requests)) == (0, 9)  # no token: not A's replies either
        again = service.run("alice", s.base_url, "m", "hf_token-of-A", ITEMS)
        assert (again.n_cached, len(s.requests)) == (3, 9)  # A's own replies come back
    assert [r["headers"]["authorization"] for r in s.requests[::3]] == ["Bearer hf_token-of-A", "Bearer hf_token-of-B", "Bearer EMPTY"]
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert b"hf_token-of" not in f.read_bytes()
    key = (tmp_path / "llm_cache" / "secret.key")
    assert key.stat().st_size == 32 and oct(key.stat().st_mode & 0o777) == "0o600"


def test_the_credential_scope_is_a_keyed_hash_that_survives_a_restart(online, tmp_path, monkeypatch):
    with StubServer(lambda body: (200, GOOD)) as s:
        r = OpenAICompatibleResponder(s.base_url, "m", api_key="hf_A", network=LOOPBACK)
        evaluate_llm(ITEMS, r, cache_dir=tmp_path / "c")
        # a new cache object on the same folder (a restart) reads the same secret: A is served
        assert evaluate_llm(ITEMS, r, cache_dir=tmp_path / "c").n_cached == 3
        # a deployment secret from the environment gives other keys (and makes no file)
        monkeypatch.setenv("ROTE_LLM_CACHE_SECRET", "deployment-secret")
        assert evaluate_llm(ITEMS, r, cache_dir=tmp_path / "d").n_cached == 0
        assert evaluate_llm(ITEMS, r, cache_dir=tmp_path / "d").n_cached == 3
    assert not (tmp_path / "d" / "secret.key").exists()
    assert r.credential_scope(b"k1") != r.credential_scope(b"k2") and r.credential_scope(b"k1").startswith("hmac-")


# ---- addresses through the visitor path: one line, nothing stored -----------------------------------------------

@pytest.mark.parametrize("url", ["http://127.0.0.1:9/v1", "http://10.0.0.1/v1", "http://169.254.169.254/v1",
                                 "http://[::1]:9/v1", "http://localhost:9/v1"])
def test_a_refused_query_stores_nothing(online, tmp_path, url):
    service = VisitorQueries(tmp_path / "root", network=NetworkPolicy.public_only(allowed_hosts=""))
    with pytest.raises(AddressRefused) as info:
        service.run("mallory", url, "m", "hf_x", ITEMS)
    assert "\n" not in str(info.value) and " is " in str(info.value)
    assert _files(tmp_path / "root") == []
    assert service.queue.running("mallory") == 0 and service.queue.waiting("mallory") == 0


# ---- the whole-query deadline --------------------------------------------------------------------------------

def test_the_deadline_cuts_a_dripping_endpoint(online):
    """One byte a second with a per-request timeout of 60 s: the query still ends at its 1.5 s
    deadline, and the connection is shut right away (the server's next byte fails)."""
    with DripServer("body", every=1.0) as s:
        r = OpenAICompatibleResponder(s.base_url, "m", network=LOOPBACK, timeout_s=60, retry=RetryPolicy(3))
        t0 = time.monotonic()
        records = run_queries(ITEMS, r, concurrency=2, deadline_s=1.5)
        elapsed = time.monotonic() - t0
    assert 1.4 <= elapsed < 2.5, elapsed
    assert [rec.parsed.status for rec in records] == ["api_error"] * 3
    assert all(rec.parsed.error.startswith("DeadlineExceeded: ") for rec in records)
    assert records[2].parsed.error.endswith("not asked")  # the third never started
    with pytest.raises(ValueError, match="deadline_s"):
        run_queries(ITEMS, r, deadline_s=0)


def test_a_query_within_its_deadline_is_untouched(online):
    with StubServer(lambda body: (200, GOOD)) as s:
        r = OpenAICompatibleResponder(s.base_url, "m", network=LOOPBACK)
        records = run_queries(ITEMS, r, deadline_s=30)
        assert [rec.parsed.status for rec in records] == ["ok"] * 3
        assert r.respond(build_messages(range(20))) == GOOD  # not closed


# ---- the fair queue --------------------------------------------------------------------------------------------

def test_fair_queue_serves_users_round_robin():
    q = FairQueue(max_running=1, max_waiting=3)
    order, gates = [], {}
    started = threading.Event()

    def job(user, name):
        with q.slot(user):
            order.append(name)
            started.set()
            gates[name].wait(5)

    threads = []
    for user, name in [("alice", "a1"), ("alice", "a2"), ("alice", "a3"), ("bob", "b1")]:
        gates[name] = threading.Event()
        threads.append(threading.Thread(target=job, args=(user, name)))
        threads[-1].start()
        if name == "a1":
            assert started.wait(5)
        time.sleep(0.05)  # queue in this order
    assert (q.running("alice"), q.waiting("alice"), q.waiting("bob")) == (1, 2, 1)
    for name in ["a1", "b1", "a2", "a3"]:  # bob's one query goes before alice's queued ones
        while name not in order:
            time.sleep(0.01)
        gates[name].set()
    for t in threads:
        t.join(5)
    assert order == ["a1", "b1", "a2", "a3"]


def test_fair_queue_refuses_a_user_with_too_many_waiting():
    q = FairQueue(max_running=4, max_waiting=1, wait_s=5)
    hold, entered = threading.Event(), threading.Event()

    def job():
        with q.slot("alice"):
            entered.set()
            hold.wait(5)

    first, second = threading.Thread(target=job), threading.Thread(target=job)
    first.start()
    assert entered.wait(5)
    second.start()
    while q.waiting("alice") < 1:
        time.sleep(0.01)
    with pytest.raises(QueueFull, match="1 queries of yours are already waiting"):
        with q.slot("alice"):
            pass
    with q.slot("bob"):  # others are not affected
        assert q.running("bob") == 1
    hold.set()
    first.join(5)
    second.join(5)
    short = FairQueue(max_running=1, wait_s=0.2)
    with short.slot("x"):
        with pytest.raises(QueueFull, match="no query slot became free within 0.2 s"):
            with short.slot("y"):
                pass


def test_a_quick_query_finishes_while_two_slow_ones_run(online, tmp_path):
    """Two visitors on slow endpoints (3 s an answer) and a third on a quick one, through one
    VisitorQueries: the quick query is done long before the slow ones."""
    def slow(body):
        time.sleep(3)
        return 200, GOOD

    service = VisitorQueries(tmp_path, network=LOOPBACK, limits=QueryLimits(max_running=4, concurrency=1))
    done: dict[str, float] = {}
    with StubServer(slow) as slow_a, StubServer(slow) as slow_b, StubServer(lambda body: (200, GOOD)) as quick:
        t0 = time.monotonic()

        def visit(user, url):
            service.run(user, url, "m", f"hf_{user}", ITEMS[:1])
            done[user] = time.monotonic() - t0

        threads = [threading.Thread(target=visit, args=a) for a in (("a", slow_a.base_url), ("b", slow_b.base_url))]
        for t in threads:
            t.start()
        while len(slow_a.requests) + len(slow_b.requests) < 2:  # both slow queries are running
            assert time.monotonic() - t0 < 10 and all(t.is_alive() for t in threads), "a slow visit never asked"
            time.sleep(0.01)
        visit("c", quick.base_url)
        for t in threads:
            t.join(10)
    assert done["c"] < 1.5 and min(done["a"], done["b"]) >= 2.9, done


# ---- quotas: the cache and the logs, oldest evicted first ----------------------------------------------------

def test_cache_quota_evicts_the_oldest_records(tmp_path):
    ident = {"endpoint": "http://127.0.0.1:1/v1", "model": "m"}
    msgs = [build_messages(range(i, i + 20)) for i in range(40)]
    cache = ReplyCache(tmp_path, max_bytes=4000)
    for i, m in enumerate(msgs):
        cache.put(ident, m, f"reply {i} " + "x" * 200)
        assert (tmp_path / "replies.jsonl").stat().st_size <= 4000
    assert cache.get(ident, msgs[0]) is None and cache.get(ident, msgs[-1]).startswith("reply 39 ")
    assert cache.evicted > 20 and len(cache) + cache.evicted == 40
    kept = [i for i, m in enumerate(msgs) if cache.get(ident, m) is not None]
    assert kept == list(range(40 - len(kept), 40))  # the newest, contiguous
    reopened = ReplyCache(tmp_path)
    assert len(reopened) == len(cache) and reopened.torn_lines == 0
    with pytest.raises(ValueError, match="max_bytes must be a positive number of bytes"):
        ReplyCache(tmp_path, max_bytes=0)


def test_log_quota_deletes_the_oldest_logs_but_never_the_new_one(tmp_path):
    for i in range(5):
        f = tmp_path / f"m{i}.samples.jsonl"
        f.write_bytes(b"x" * 1000)
        os.utime(f, ns=(10**18 + i * 10**9, 10**18 + i * 10**9))
    (tmp_path / "other.txt").write_bytes(b"y" * 5000)  # not a log: never counted, never deleted
    deleted = prune_oldest(tmp_path, 2500, pattern="*.samples.jsonl")
    assert [p.name for p in deleted] == ["m0.samples.jsonl", "m1.samples.jsonl", "m2.samples.jsonl"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m3.samples.jsonl", "m4.samples.jsonl", "other.txt"]
    assert prune_oldest(tmp_path, 10, keep=tmp_path / "m3.samples.jsonl", pattern="*.samples.jsonl") == [
        tmp_path / "m4.samples.jsonl"]
    assert (tmp_path / "m3.samples.jsonl").exists()


def test_visitor_queries_keep_cache_and_logs_within_their_quotas(online, tmp_path):
    limits = QueryLimits(cache_max_bytes=3000, log_max_bytes=6000)
    service = VisitorQueries(tmp_path, network=LOOPBACK, limits=limits)
    with StubServer(lambda body: (200, GOOD)) as s:
        for k in range(6):
            service.run("alice", s.base_url, f"model-{k}", "", ITEMS)
    assert (tmp_path / "llm_cache" / "replies.jsonl").stat().st_size <= 3000
    logs = sorted((tmp_path / "llm_logs").glob("*.samples.jsonl"), key=lambda p: p.stat().st_mtime_ns)
    assert sum(p.stat().st_size for p in logs) <= 6000 and logs[-1].name.startswith("model-5-")
    assert not any(p.name.startswith("model-0-") for p in logs)


def test_limits_come_from_the_environment():
    env = {"ROTE_LLM_DEADLINE_S": "30", "ROTE_LLM_CACHE_MAX_BYTES": "1000000", "ROTE_LLM_MAX_RUNNING": "3"}
    lim = QueryLimits.from_env(env)
    assert (lim.deadline_s, lim.cache_max_bytes, lim.max_running, lim.log_max_bytes) == (30.0, 1_000_000, 3, 64 * 2**20)
    assert QueryLimits.from_env({}) == QueryLimits() and QueryLimits().deadline_s == 120.0
    with pytest.raises(ValueError, match="ROTE_LLM_DEADLINE_S"):
        QueryLimits.from_env({"ROTE_LLM_DEADLINE_S": "-1"})
    with pytest.raises(ValueError, match="ROTE_LLM_MAX_RUNNING"):
        QueryLimits.from_env({"ROTE_LLM_MAX_RUNNING": "two"})
