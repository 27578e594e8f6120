"""Runner pieces without a server: sample rows, strata selection, cache, concurrency bound, redirects."""

from __future__ import annotations

import json
import threading
import time

import pytest

from rote_hf.llm import PromptConfig, ReplyCache, items_from_rows, load_sample_rows, per_stratum, run_queries
from rote_hf.llm.prompt import build_messages, next_key, user_prompt
from tests.llm.stub_server import StubServer

OEIS_ROWS = [  # the `oeis` config of rote/oeis-mdl: terms as strings, a regime, the wilderness flag
    {"anum": "A1", "terms": [str(n) for n in range(30)], "regime": "clean", "genuine_wilderness": False},
    {"anum": "A2", "terms": [str(2**n) for n in range(30)], "regime": "prefix-only", "genuine_wilderness": True},
    {"anum": "A3", "terms": [str(-n) for n in range(30)], "regime": "no fit", "genuine_wilderness": False},
]


def test_items_from_both_configs_and_per_stratum(tmp_path):
    items = items_from_rows(OEIS_ROWS)
    assert [(i.anum, i.stratum) for i in items] == [("A1", "clean"), ("A2", "wilderness"), ("A3", "no fit")]
    assert items[1].shown[-1] == 2**19 and items[1].answer == (2**20, 2**21, 2**22)
    short = items_from_rows(OEIS_ROWS, PromptConfig(n_shown=5, k_next=2))
    assert short[0].shown == (0, 1, 2, 3, 4) and short[0].answer == (5, 6)
    eval_rows = [{"anum": f"A{i}", "stratum": s, "shown": [str(i)] * 20, "answer": ["1", "2", "3"]}
                 for i, s in enumerate(["clean", "clean", "clean", "wilderness"])]
    path = tmp_path / "sample.json"
    path.write_text(json.dumps(eval_rows))
    loaded = items_from_rows(load_sample_rows(path))
    assert [i.anum for i in per_stratum(loaded, 2)] == ["A0", "A1", "A3"]
    (tmp_path / "s.jsonl").write_text("\n".join(json.dumps(r) for r in eval_rows) + "\n")
    assert len(load_sample_rows(tmp_path / "s.jsonl")) == 4
    with pytest.raises(ValueError, match="n_shown \\+ k_next = 23"):
        items_from_rows([{"anum": "A9", "terms": ["1"] * 22, "regime": "clean"}])
    with pytest.raises(TypeError, match="terms\\[1\\]"):
        items_from_rows([{"anum": "A9", "terms": ["1", "x"] + ["1"] * 30, "regime": "clean"}])
    with pytest.raises(ValueError, match="per_stratum"):
        per_stratum(loaded, 0)


def test_prompt_fields_and_parameters():
    text = user_prompt(range(1, 21))
    assert text.startswith("Terms a(1)..a(20): 1, 2, 3,") and '"next_three": [int, int, int]' in text
    for key in ('"formula"', "NO_FORMULA_FOUND", '"confidence"', '"recognized"', '"name_if_recognized"'):
        assert key in text
    assert '"next_5": [int, int, int, int, int]' in user_prompt(range(10), PromptConfig(n_shown=8, k_next=5))
    assert next_key(3) == "next_three" and build_messages(range(20))[0]["role"] == "system"
    with pytest.raises(ValueError, match="n_shown=20"):
        user_prompt(range(5))


def test_cache_survives_a_torn_line(tmp_path):
    cache = ReplyCache(tmp_path)
    msgs = build_messages(range(20))
    cache.put("m", msgs, "reply one")
    cache.put("m", msgs, "ignored: first reply wins")
    with open(cache.path, "a") as fh:
        fh.write('{"key": "abc", "rep')  # an interrupted write
    again = ReplyCache(tmp_path)
    assert len(again) == 1 and again.get("m", msgs) == "reply one" and again.get("other", msgs) is None


class _Slow:
    """A responder that records how many calls overlap."""

    model_id = "slow"

    def __init__(self) -> None:
        self.active = self.peak = 0
        self.lock = threading.Lock()

    def respond(self, messages) -> str:
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        time.sleep(0.05)
        with self.lock:
            self.active -= 1
        return "{}"


def test_concurrency_is_bounded():
    items = items_from_rows([{**OEIS_ROWS[0], "anum": f"A{i}", "terms": [str(i + n) for n in range(30)]}
                             for i in range(8)])
    slow = _Slow()
    records = run_queries(items, slow, concurrency=3)
    assert slow.peak == 3 and [r.item.anum for r in records] == [f"A{i}" for i in range(8)]
    assert {r.parsed.status for r in records} == {"schema_error"}
    with pytest.raises(ValueError, match="concurrency"):
        run_queries(items, slow, concurrency=0)


def test_redirect_never_carries_the_token(monkeypatch):
    """huggingface_hub's client follows redirects; the token must not reach another origin."""
    from huggingface_hub import constants

    from rote_hf.llm import OpenAICompatibleResponder, RetryPolicy

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    ok = json.dumps({"next_three": [1, 2, 3], "formula": "x"})
    with StubServer(lambda body: (200, ok)) as other:
        with StubServer(lambda body: (200, ok)) as origin:
            # make the origin answer 307 to the other server
            handler = origin.httpd.RequestHandlerClass
            target = other.base_url + "/chat/completions"

            def do_post(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                origin.requests.append({"headers": {k.lower(): v for k, v in self.headers.items()}})
                self.send_response(307)
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()

            monkeypatch.setattr(handler, "do_POST", do_post)
            r = OpenAICompatibleResponder(origin.base_url, "m", api_key="tok-SECRET", retry=RetryPolicy(0))
            assert r.respond(build_messages(range(20))) == ok
        assert origin.requests[0]["headers"]["authorization"] == "Bearer tok-SECRET"
        assert "authorization" not in other.requests[0]["headers"]


def test_saved_login_token_is_never_sent(monkeypatch, tmp_path):
    """Only ROTE_LLM_API_KEY / HF_TOKEN are used; the token of `hf auth login` stays home."""
    from huggingface_hub import constants, get_token

    from rote_hf.llm import OpenAICompatibleResponder

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.delenv("ROTE_LLM_API_KEY", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    saved = tmp_path / "token"
    saved.write_text("hf_saved_login_SECRET")
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(saved))
    assert get_token() == "hf_saved_login_SECRET"  # the fallback huggingface_hub would use
    ok = json.dumps({"next_three": [1, 2, 3], "formula": "x"})
    with StubServer(lambda body: (200, ok)) as server:
        r = OpenAICompatibleResponder(server.base_url, "m")
        r.respond(build_messages(range(20)))
        monkeypatch.setenv("HF_TOKEN", "hf_env_token")
        OpenAICompatibleResponder(server.base_url, "m").respond(build_messages(range(20)))
    assert server.requests[0]["headers"]["authorization"] == "Bearer EMPTY"
    assert server.requests[1]["headers"]["authorization"] == "Bearer hf_env_token"
    assert "authenticated=False" in repr(r)


def test_missing_sample_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_sample_rows("nope.json")
    with pytest.raises(FileNotFoundError, match="rote-hf build oeis-mdl"):
        load_sample_rows("rote/oeis-mdl")
