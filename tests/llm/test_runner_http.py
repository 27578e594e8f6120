"""The runner against a real OpenAI-compatible HTTP server on 127.0.0.1 (mdl.md §9.2 "Offline tests")."""

from __future__ import annotations

import json
import math

import pytest

from rote_hf.llm import (
    OpenAICompatibleResponder, PromptConfig, ResponderError, RetryPolicy, SampleItem, build_messages, evaluate_llm,
    format_table,
)
from rote_hf.llm.prompt import user_prompt
from rote_hf.results import ResultStore
from tests.llm.stub_server import StubServer, scripted

TOKEN = "sk-test-SECRET-9f8e7d"


def _item(anum: str, stratum: str, base: int) -> SampleItem:
    terms = [base + 7 * n for n in range(23)]
    return SampleItem(anum, stratum, tuple(terms[:20]), tuple(terms[20:]))


def _obj(terms, formula="a(n) = a(n-1) + 7", conf=5, recog=True, name="") -> str:
    return json.dumps({"next_three": list(terms), "formula": formula, "confidence": conf, "recognized": recog,
                       "name_if_recognized": name})


ITEMS = [
    _item("A000001", "clean", 100), _item("A000002", "clean", 200), _item("A000003", "clean", 300),
    _item("A000004", "clean", 400),
    _item("A000005", "revising", 500), _item("A000006", "revising", 600), _item("A000007", "revising", 700),
    _item("A000008", "revising", 800),
    _item("A000009", "wilderness", 900), _item("A000010", "wilderness", 1000), _item("A000011", "wilderness", 1100),
]
A = {it.anum: it.answer for it in ITEMS}
WRONG = (1, 2, 3)


def _key(it: SampleItem) -> str:
    return user_prompt(it.shown).splitlines()[0]


REPLIES = {
    # clean: good JSON (exact); prose then JSON (wrong, confident); HTTP 500 then success; truncated
    "A000001": [(200, _obj(A["A000001"], conf=5, recog=True, name="arithmetic progression"))],
    "A000002": [(200, "Looking at the differences, each is 7.\n" + _obj(WRONG, conf=4, recog=False))],
    "A000003": [(500, "overloaded"), (200, _obj(A["A000003"], conf=3, recog="yes"))],
    "A000004": [(200, 'Looking at this sequence: {"next_three": [428, 435, ')],
    # revising: fenced (one position right); malformed; empty; always 503 (api_error)
    "A000005": [(200, "```json\n" + _obj((A["A000005"][0], 0, 0), conf=2, recog=False) + "\n```")],
    "A000006": [(200, '{"next_three": [1 2 3] "formula": x, confidence: 5}')],
    "A000007": [(200, "")],
    "A000008": [(503, "unavailable")],
    # wilderness: NO_FORMULA_FOUND right and wrong (confident), single-quoted JSON
    "A000009": [(200, _obj(A["A000009"], formula="NO_FORMULA_FOUND", conf=2, recog=False))],
    "A000010": [(200, _obj(WRONG, formula="NO_FORMULA_FOUND", conf=4, recog=False))],
    "A000011": [(200, "{'next_three': %s, 'formula': 'a(n)=a(n-1)+7', 'confidence': '5', 'recognized': 'Yes',}"
                 % list(A["A000011"]))],
}


@pytest.fixture()
def online(monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("ROTE_LLM_API_KEY", TOKEN)


@pytest.fixture()
def server():
    route = scripted({_key(it): REPLIES[it.anum] for it in ITEMS})
    with StubServer(route) as s:
        yield s


def _responder(server, sleeps=None):
    return OpenAICompatibleResponder(server.base_url, "stub-model", timeout_s=10,
                                     retry=RetryPolicy(max_retries=2, backoff_s=0.01),
                                     sleep=(sleeps.append if sleeps is not None else (lambda s: None)))


def test_end_to_end_statuses_metrics_retry_resume(online, server, tmp_path):
    sleeps: list[float] = []
    responder = _responder(server, sleeps)
    report = evaluate_llm(ITEMS, responder, results=tmp_path / "res", concurrency=3)

    # request bodies: model, temperature 0, the prompt's messages, max_tokens, seed; the token as Bearer
    by_anum = {}
    for req in server.requests:
        assert req["path"] == "/v1/chat/completions"
        body = req["body"]
        assert body["model"] == "stub-model"
        assert body["temperature"] == 0
        assert body["max_tokens"] == 1024 and body["seed"] == 0
        assert req["headers"]["authorization"] == f"Bearer {TOKEN}"
        anum = next(it.anum for it in ITEMS if body["messages"] == build_messages(it.shown))
        by_anum[anum] = by_anum.get(anum, 0) + 1
    # every item asked once; the 500 retried once; the 503 tried 1 + max_retries times
    assert by_anum == {**{it.anum: 1 for it in ITEMS}, "A000003": 2, "A000008": 3}
    assert len(server.requests) == 14
    assert sleeps == [0.01, 0.01, 0.02]  # backoff 0.01 * 2**attempt: A000003 once, A000008 twice

    status = {r.item.anum: r.parsed.status for r in report.records}
    assert status == {"A000001": "ok", "A000002": "ok", "A000003": "ok", "A000004": "bad_json",
                      "A000005": "ok", "A000006": "bad_json", "A000007": "no_json", "A000008": "api_error",
                      "A000009": "ok", "A000010": "ok", "A000011": "ok"}
    err = next(r for r in report.records if r.item.anum == "A000008").parsed.error
    assert "503" in err and "3 attempts" in err and TOKEN not in err

    s = report.summary
    assert list(s) == ["clean", "revising", "wilderness", "all"]
    c, r, w = s["clean"], s["revising"], s["wilderness"]
    assert (c["n_rows"], c["n_scored"], c["n_failed"], c["n_failed_bad_json"]) == (4, 3, 1, 1)
    assert c["accuracy"] == pytest.approx(2 / 3) and c["partial_accuracy"] == pytest.approx(2 / 3)
    assert c["abstention_rate"] == 0 and c["confabulation_rate"] == pytest.approx(1 / 3)
    assert c["mean_confidence"] == pytest.approx(4.0) and c["recognition_rate"] == pytest.approx(2 / 3)
    assert c["accuracy_recognized"] == 1.0 and c["accuracy_unrecognized"] == 0.0
    assert (r["n_rows"], r["n_scored"], r["n_failed_bad_json"], r["n_failed_no_json"], r["n_failed_api_error"]) \
        == (4, 1, 1, 1, 1)
    assert r["accuracy"] == 0 and r["partial_accuracy"] == 1.0 and r["confabulation_rate"] == 0
    assert r["mean_confidence"] == 2.0 and r["failure_rate"] == 0.75
    assert (w["n_scored"], w["accuracy"], w["abstention_rate"]) == (3, pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert w["confabulation_rate"] == pytest.approx(1 / 3)  # the paper's definition counts abstainers
    assert w["confabulation_rate_excluding_abstentions"] == 0.0
    assert w["mean_confidence"] == pytest.approx(11 / 3) and w["recognition_rate"] == pytest.approx(1 / 3)
    assert s["all"]["n_rows"] == 11 and s["all"]["n_scored"] == 7

    # result rows appended, one per stratum + all
    rows = {row.task: row for row in ResultStore(tmp_path / "res").rows()}
    assert set(rows) == {"clean", "revising", "wilderness", "all"}
    assert rows["clean"].suite == "mdl" and rows["clean"].protocol == "llm-query"
    assert rows["clean"].model == "stub-model" and rows["clean"].score == pytest.approx(2 / 3)
    assert rows["revising"].outputs["failures"] == "A000006:bad_json,A000007:no_json,A000008:api_error"
    # a call that never came back makes its rows "failed" (retried on the next run); parse failures do not
    assert {t: r.status for t, r in rows.items()} == {"clean": "ok", "revising": "failed", "wilderness": "ok",
                                                      "all": "failed"}
    assert rows["revising"].error.startswith("1 of 4 calls failed (api_error)")
    assert math.isclose(rows["wilderness"].metrics["abstention_rate"], 2 / 3)

    # per-sample log
    log = [json.loads(line) for line in report.log_path.read_text().splitlines()]
    assert [x["anum"] for x in log] == [it.anum for it in ITEMS]
    first = log[0]
    assert first["parsed_status"] == "ok" and first["score"] == {"exact": True, "partial": True, "confabulated": False}
    assert first["messages"] == build_messages(ITEMS[0].shown) and first["parsed_name"] == "arithmetic progression"
    assert log[7]["reply"] is None and log[7]["score"] is None

    # the token is nowhere on disk
    for path in (tmp_path / "res").rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path
    assert TOKEN not in repr(responder)

    # resume: a second run asks only the failed call again (3 attempts), the rest comes from the cache
    n_before = len(server.requests)
    again = evaluate_llm(ITEMS, _responder(server), results=tmp_path / "res", concurrency=3)
    assert len(server.requests) - n_before == 3
    assert again.n_cached == 10 and again.n_asked == 1
    for k, metrics in report.summary.items():  # same values (NaN where a denominator is empty)
        assert all(again.summary[k][m] == v or (math.isnan(v) and math.isnan(again.summary[k][m]))
                   for m, v in metrics.items())
    # finished strata are not stored twice; the failed ones are replaced (still failed: the 503 persists)
    assert sorted(again.already_stored) == sorted(r.run_id for r in report.rows if r.status == "ok")
    assert sorted(again.appended) == sorted(r.run_id for r in report.rows if r.status == "failed")
    assert len(ResultStore(tmp_path / "res").rows()) == 4
    table = format_table(report.summary, "stub-model")
    assert table.splitlines()[1].split()[:4] == ["stratum", "n", "failed", "acc"]
    assert table.splitlines()[2].split()[:4] == ["clean", "4", "1", "0.667"]


def test_non_retryable_error_and_reply_cap(online, tmp_path):
    route = lambda body: (400, "bad request") if body["model"] == "bad" else (200, "x" * 5000)  # noqa: E731
    with StubServer(route) as server:
        bad = OpenAICompatibleResponder(server.base_url, "bad", retry=RetryPolicy(max_retries=3, backoff_s=0))
        with pytest.raises(ResponderError, match="400.*1 attempt"):
            bad.respond(build_messages(range(20)))
        assert len(server.requests) == 1  # 4xx is not retried
        capped = OpenAICompatibleResponder(server.base_url, "big", max_reply_chars=100, seed=None)
        assert capped.respond(build_messages(range(20))) == "x" * 100
        assert "seed" not in server.requests[-1]["body"]
        assert server.requests[-1]["headers"]["authorization"] == f"Bearer {TOKEN}"


def test_offline_mode_and_bad_urls_are_refused(monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(ValueError, match="HF_HUB_OFFLINE"):
        OpenAICompatibleResponder("http://127.0.0.1:9/v1", "m")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    for url in ("ftp://x/v1", "http://user:pw@127.0.0.1/v1", "http://127.0.0.1/v1?key=1", "not a url"):
        with pytest.raises(ValueError, match="base_url"):
            OpenAICompatibleResponder(url, "m")
    r = OpenAICompatibleResponder("http://127.0.0.1:9/v1/chat/completions/", "m", api_key="")
    assert r.base_url == "http://127.0.0.1:9/v1"
    with pytest.raises(ValueError, match="n_shown"):
        PromptConfig(n_shown=0)
