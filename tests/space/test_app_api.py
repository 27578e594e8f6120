"""The leaderboard app over HTTP with gradio_client: tables, filters, submissions, LLM-query form."""

from __future__ import annotations

import json
import pickle

import pytest

import gradio_client

from tests.space.conftest import TEST_USER, signed_in

ALL = "all"


@pytest.fixture(scope="module")
def client(app):
    """A visitor signed in as TEST_USER (submitting and the LLM query need sign-in)."""
    return signed_in(app.url)


def table(result) -> list[dict]:
    """A Dataframe output (dict with headers/data) as a list of row dicts."""
    frame = result[0] if isinstance(result, tuple) else result
    return [dict(zip(frame["headers"], row)) for row in frame["data"]]


def rote(client, n=ALL, c=ALL, track=ALL, source=ALL, device=ALL, table=ALL, show_unverified=False):
    """The ROTE endpoint; ``table=ALL`` shows the per-model lines and every published table;
    ``show_unverified`` ranks self-reported rows too (the page's toggle)."""
    return client.predict(n, c, track, source, device, table, show_unverified, api_name="/rote_board")


def test_api_lists_every_endpoint(client):
    api = client.view_api(print_info=False, return_format="dict")
    names = set(api["named_endpoints"])
    assert {"/rote_board", "/cogscale_board", "/llm_board", "/submit", "/llm_query"} <= names


def test_rote_board_has_paper_and_our_rows(client):
    rows = table(rote(client, track="rote"))
    ours = [r for r in rows if r["source"] == "ours"]
    paper = [r for r in rows if r["source"] == "paper"]
    assert sorted(r["model"] for r in ours) == ["GRU", "LSTM"]
    assert len(paper) == 24  # summary_by_model (8) + Table 2 (8) + the archived fits per model (8)
    gru = next(r for r in ours if r["model"] == "GRU")
    assert (gru["runs"], gru["DL_mean"], gru["exact_rate"], gru["params"]) == (8, 0.0, 1.0, 151560)
    assert gru["commit"] == "a" * 12 and gru["version"] == "0.1.0" and gru["verified"] == "unverified"
    table2_gru = next(r for r in paper if r["model"] == "GRU" and r["table"] == "table2_main_c90")
    assert (table2_gru["exact_rate"], table2_gru["DL@c90"], table2_gru["verified"]) == (0.925, 0.015, "verified")
    # every row shows its provenance columns
    assert {"source", "version", "commit", "fingerprint", "verified"} <= set(rows[0])


def test_rote_filters_change_rows(client):
    everything = table(rote(client, track="rote"))
    ours_n2 = table(rote(client, n="2", track="rote", source="ours"))
    assert [r["model"] for r in ours_n2] == ["GRU", "LSTM"] and {r["n"] for r in ours_n2} == {"2"}
    lstm = next(r for r in ours_n2 if r["model"] == "LSTM")
    assert lstm["runs"] == 4 and lstm["DL_mean"] != next(r for r in everything if r["model"] == "LSTM"
                                                         and r["source"] == "ours")["DL_mean"]
    only_paper = table(rote(client, track="rote", source="paper"))
    assert {r["source"] for r in only_paper} == {"paper"} and len(only_paper) == 24
    c10 = table(rote(client, c="10", track="rote"))
    # at c=10: our runs, the published aggregates over all c (Table 2 is c = 90 only), the archived fits at c = 10
    assert len(c10) == 2 + 8 + 8 and all(r["c"] in ("10", "all") for r in c10 if r["source"] == "paper")
    with pytest.raises(Exception, match="not in the list of choices"):
        rote(client, n="99")


def test_rote_plots_have_data(client):
    import re

    _, dl_c, acc_c, roll, pareto, params = rote(client, track="rote", source="ours")

    def texts(svg: str, cls: str) -> list[str]:
        return re.findall(rf'<text class="{cls}"[^>]*>([^<]*)</text>', svg)

    assert all(svg.startswith("<svg") for svg in (dl_c, acc_c, roll, pareto, params))
    assert texts(dl_c, "chart-legend") == texts(acc_c, "chart-legend") == ["GRU (ours)", "LSTM (ours)"]
    assert texts(dl_c, "x-tick") == ["10", "30"]  # the c values run
    assert '<title>GRU (ours): c = 10, DL = 0</title>' in dl_c
    assert len(re.findall(r'<polyline class="series-line" points="([^"]*)"', roll)) == 2  # two models
    assert all(len(p.split()) == 20 for p in re.findall(r'<polyline class="series-line" points="([^"]*)"', roll))
    assert all(re.fullmatch(r"\d+", t) for t in texts(roll, "x-tick"))  # integer horizons
    assert sorted(texts(pareto, "point-label")) == sorted(texts(params, "point-label")) == ["GRU (ours)", "LSTM (ours)"]


def test_cogscale_board_and_toggle(client):
    val = client.predict("validation", "simple_copy", "small", ALL, ALL, "ours", "all", api_name="/cogscale_board")
    test = client.predict("test", "simple_copy", "small", ALL, ALL, "ours", "all", api_name="/cogscale_board")
    rows_val, rows_test = table(val), table(test)
    ours_val = [r for r in rows_val if r["source"] == "ours"]
    assert len(ours_val) == 2 * 2  # 2 models x 2 budgets
    assert {r["lr_selection"] for r in ours_val} == {"validation (the paper's stated protocol)"}
    assert {r["lr_selection"] for r in rows_test if r["source"] == "ours"} == {"test (as the published table was made)"}
    paper = [r for r in rows_val if r["source"] == "paper"]
    assert len(paper) == 7 * 2 + 6  # 7 models at 1k and 10k, 6 at 100k (no ESN)
    gru = next(r for r in paper if r["model"] == "GRU" and r["budget"] == "1k")
    assert (gru["mean ± std"], gru["lr_selection"]) == ("0.64 ± 0.06", "test (published table)")
    for r in ours_val:
        assert r["best_overall"] <= r["mean"] + 1e-12 and r["seeds"] == 3
    radar_small = val[1]
    assert radar_small.count('class="radar-model"') == 2 and "simple_copy" in radar_small


def test_llm_board_paper_rows_beside_ours(client):
    rows = table(client.predict(ALL, ALL, ALL, "abstention", api_name="/llm_board"))
    assert len(rows) == 12
    gpt = next(r for r in rows if r["model"] == "openai/gpt-4o" and r["stratum"] == "wilderness")
    assert gpt["abstention"] == 0.95 and gpt["mean confidence"] == 2.45 and gpt["source"] == "paper"
    ours = table(client.predict("clean", ALL, "ours", "accuracy", api_name="/llm_board"))
    assert len(ours) == 1 and ours[0]["model"] == "tiny-llm" and ours[0]["accuracy"] == 0.5
    assert ours[0]["accuracy 95% CI"] == "[0.150, 0.850]"


def _upload(client, path):
    return client.predict(gradio_client.handle_file(str(path)), api_name="/submit")


def test_bad_uploads_are_rejected_with_a_message(client, app, tmp_path):
    before = sorted(p.name for p in (app.results / "runs").iterdir())
    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps([{"run_id": "x", "suite": "rote"}]))
    assert _upload(client, missing) == "Rejected: row 0: missing required fields ['task', 'model']"
    pickled = tmp_path / "rows.json"
    pickled.write_bytes(pickle.dumps([{"run_id": "x"}]))
    assert _upload(client, pickled).startswith("Rejected: file type must be one of ['.json', '.jsonl', '.parquet'] (no pickle")
    paper = tmp_path / "paper.json"
    paper.write_text(json.dumps([{"run_id": "p", "suite": "rote", "task": "c90", "model": "X", "source": "paper"}]))
    assert _upload(client, paper) == "Rejected: row 0: source must be 'ours' in a submission, got 'paper'"
    badmetric = tmp_path / "bad.jsonl"
    badmetric.write_text(json.dumps({"run_id": "b", "suite": "rote", "task": "t", "model": "X", "metrics": {"DL": "low"}}))
    assert "metrics['DL'] must be a number" in _upload(client, badmetric)
    assert sorted(p.name for p in (app.results / "runs").iterdir()) == before  # nothing stored


def test_good_upload_appears_unverified(client, app, tmp_path):
    good = tmp_path / "mine.json"
    good.write_text(json.dumps({"rows": [{
        "run_id": "mynet-n2-c10", "suite": "rote_matched", "task": "n2-c10", "model": "MyNet",
        "task_params": {"symbols": 2, "complexity": 10}, "metrics": {"DL": 0.125, "exact": 0.0},
        "param_count": 1000, "device": "cpu", "verified": True}]}))
    message = _upload(client, good)
    assert message.startswith(f"Stored 1 row(s) as unverified (submitted) by {TEST_USER}, request ")
    assert message.endswith(": submitted-mynet-n2-c10")
    assert (app.results / "runs" / "submitted-mynet-n2-c10.parquet").is_file()
    assert table(rote(client, track="rote_matched", source="ours")) == []  # a visitor's row is never 'ours'
    assert table(rote(client, track="rote_matched", source="submitted")) == []  # not ranked without the toggle
    rows = table(rote(client, track="rote_matched", source="submitted", show_unverified=True))
    assert len(rows) == 1
    mine = rows[0]
    assert (mine["model"], mine["DL_mean"], mine["verified"]) == ("MyNet", 0.125, "unverified (submitted)")
    assert _upload(client, good).startswith("Rejected: run ids already stored")


def test_llm_query_form_is_validated_and_token_never_logged(client, app):
    token = "hf_s3cr3t-token-value"
    msg, records, metrics = client.predict("ftp://example", "m", token, 5, api_name="/llm_query")
    assert msg == "Not run: base URL must be an http(s) URL such as https://router.huggingface.co/v1, got 'ftp://example'"
    assert records["headers"][:3] == ["stratum", "a_number", "prompt"]
    assert metrics["headers"] == ["stratum", "n_rows", "n_scored", "n_failed", "accuracy", "abstention_rate",
                                  "confabulation_rate", "recognition_rate", "mean_confidence"]
    msg, _, _ = client.predict("http://localhost:9/v1", "", token, 5, api_name="/llm_query")
    assert msg == "Not run: model name must be a non-empty string"
    msg, _, _ = client.predict("http://localhost:9/v1", "tiny", token, 20, api_name="/llm_query")
    # nothing listens on port 9: every call fails, is reported, and is stored as a failed row
    assert msg.startswith("Queried 6 sequences (20 per stratum) from tiny") and "6 replies failed (api_error" in msg
    assert token not in msg
    assert token not in app.log.read_text(errors="replace")
    for f in app.results.rglob("*"):
        if f.is_file():
            assert token.encode() not in f.read_bytes()


def test_llm_query_runs_the_evaluation_against_a_loopback_server(client, app):
    """The tab's real path: a finite-difference model behind an OpenAI-compatible server."""
    import threading

    from rote_hf.llm import make_responder, make_server
    from rote_hf.results import ResultStore

    server = make_server(make_responder("difference"))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://localhost:{server.server_address[1]}/v1"
        msg, records, metrics = client.predict(base, "difference", "hf_other-token", 2, api_name="/llm_query")
        assert msg.startswith("Queried 6 sequences (2 per stratum) from difference: 6 asked, 0 from the cache")
        rows = table(records)
        assert [r["status"] for r in rows] == ["ok"] * 6 and all(r["exact"] for r in rows)
        assert rows[0]["next_three"] == "400, 441, 484"  # n^2 at n = 20, 21, 22
        by = {r["stratum"]: r for r in table(metrics)}
        assert set(by) == {"clean", "revising", "wilderness", "all"} and by["all"]["accuracy"] == 1.0
        again, _, _ = client.predict(base, "difference", "hf_other-token", 2, api_name="/llm_query")
        assert "0 asked, 6 from the cache" in again  # the cached replies resume the run
        # another visitor's token is never served these replies (issue 26: the cache is scoped to credentials)
        other, _, _ = client.predict(base, "difference", "hf_visitor-B", 2, api_name="/llm_query")
        assert "6 asked, 0 from the cache" in other
    finally:
        server.shutdown()
    stored = [f for f in (app.results / "runs").glob("*.parquet")]
    assert any("difference" in f.name for f in stored)
    # the tab's rows are marked as the visitor's: submitted, unverified, off the 'ours' board
    visitors = [r for r in ResultStore(app.results).rows() if r.model == "difference"]
    assert len(visitors) == 4  # the three strata and 'all'
    assert {(r.source, r.verified, r.run_id.startswith("submitted-")) for r in visitors} == {("submitted", False, True)}
    assert {r.settings["submission"] for r in visitors} == {"llm-query tab"}
    rows = table(client.predict(ALL, "difference", "submitted", "accuracy", True, api_name="/llm_board"))
    assert len(rows) == 4 and {(r["source"], r["verified"]) for r in rows} == {("submitted", "unverified (submitted)")}
    assert table(client.predict(ALL, ALL, "ours", "accuracy", api_name="/llm_board"))[0]["model"] == "tiny-llm"
    assert "difference" not in {r["model"] for r in table(client.predict(ALL, ALL, "ours", "accuracy",
                                                                         api_name="/llm_board"))}


# -- issue 12 items 1-4 and issue 14 item 12 through the running app ------------------------------------

def test_api_outputs_have_names(client):
    import re

    api = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    for name in ("/rote_board", "/cogscale_board", "/llm_board", "/submit", "/llm_query"):
        labels = [r["label"] for r in api[name]["returns"]] + [p["label"] for p in api[name]["parameters"]]
        assert labels and not [x for x in labels if re.fullmatch(r"value_\d+", str(x))], (name, labels)
    assert [r["label"] for r in api["/rote_board"]["returns"]][1:] == [
        "DL vs LZW complexity", "accuracy vs LZW complexity", "rollout error vs horizon", "quality vs compute",
        "DL vs parameters"]
    assert [r["label"] for r in api["/llm_board"]["returns"]][1] == "per stratum and model"


def _runs(app) -> list[str]:
    return sorted(p.name for p in (app.results / "runs").iterdir())


def test_a_submission_is_all_or_nothing_and_refused_in_one_line(client, app, tmp_path):
    before = _runs(app)
    good = {"run_id": "fine", "suite": "cogscale", "task": "simple_copy", "model": "Net", "config": "small",
            "budget": "1k", "metrics": {"test_score": 0.2}}
    cases = {
        "keyerror.json": ([{"run_id": "x", "suite": "cogscale", "task": "t", "model": "M"}],
                          "Rejected: row 0 ('x'): task must be one of the 14 CogScale tasks"),
        "huge.json": ([good, {**good, "run_id": "huge", "param_count": 10**30}],
                      "Rejected: row 1 ('huge'): param_count must be an integer in 0..1000000000000, got 1e+30"),
        "nul.json": ([good, {**good, "run_id": "a\x00b"}], "Rejected: row 1: run_id must be a non-empty file-name-safe"),
        "emoji.json": ([good, {**good, "run_id": "\U0001F600" * 200}],
                       "Rejected: row 1: run_id must be a non-empty file-name-safe"),
    }
    for name, (records, message) in cases.items():
        path = tmp_path / name
        path.write_text(json.dumps(records))
        answer = _upload(client, path)
        assert answer.startswith(message), answer
        assert "\n" not in answer and len(answer) < 600
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert _upload(client, deep) == ("Rejected: file is nested deeper than 12 levels (at character 12); rows are flat "
                                     "objects with small JSON fields")
    digits = tmp_path / "digits.json"
    digits.write_text('[{"run_id": "d", "suite": "rote", "task": "n2-c10", "model": "M", "param_count": '
                      + "9" * 5000 + "}]")
    assert _upload(client, digits) == ("Rejected: field 'param_count': a number with 5000 characters; numbers must "
                                       "fit in 64 bits (at most 40 characters)")
    assert _runs(app) == before  # nothing of any of them was stored


def test_llm_query_with_no_scored_reply_appends_no_row(client, app):
    msg, _, metrics = client.predict("http://localhost:9/v1", "closed-port", "", 1, api_name="/llm_query")
    assert "0 result rows appended as submitted (unverified) (none for clean, revising, wilderness, all: no reply " \
           "was scored)" in msg
    assert {r["n_scored"] for r in table(metrics)} == {0.0}
    assert not [f for f in _runs(app) if "closed-port" in f]
    assert "closed-port" not in {r["model"] for r in table(client.predict(ALL, ALL, ALL, "accuracy",
                                                                          api_name="/llm_board"))}


@pytest.mark.parametrize("url, refusal", [
    ("http://127.0.0.1:7860/v1", "address 127.0.0.1 is loopback"),
    ("http://10.0.0.1/v1", "address 10.0.0.1 is private"),
    ("http://169.254.169.254/latest/meta-data", "address 169.254.169.254 is link-local"),
    ("http://[::1]:7860/v1", "address ::1 is loopback"),
    ("http://2130706433:7860/v1", "address 2130706433 (127.0.0.1) is loopback"),  # a name resolving to loopback
])
def test_llm_query_to_an_internal_address_is_refused_and_stores_nothing(client, app, url, refusal):
    """Issue 26: the tab cannot be turned on its host (the app allows only `localhost`, by name)."""
    before = sorted(p for p in app.results.rglob("*"))
    msg, records, metrics = client.predict(url, "probe", "hf_probe-token", 1, api_name="/llm_query")
    assert msg == (f"Not run: {refusal}; only public addresses are allowed (an operator allows a host with "
                   "$ROTE_LLM_ALLOWED_HOSTS)")
    assert table(records) == [] and table(metrics) == []
    assert sorted(p for p in app.results.rglob("*")) == before


def test_a_quick_llm_query_is_not_held_up_by_two_slow_ones(app):
    """Issue 26: two visitors on slow endpoints (4 s an answer) and a third on a quick one, each
    signed in as a user of their own: the quick query comes back while the slow ones still run."""
    import time

    from tests.llm.stub_server import StubServer

    def slow(body):
        time.sleep(4)
        return 200, ""

    def url(server):
        return server.base_url.replace("127.0.0.1", "localhost")

    with StubServer(slow) as a, StubServer(slow) as b, StubServer(lambda body: (200, "")) as quick:
        visitors = [signed_in(app.url, f"visitor-{i}") for i in range(3)]
        jobs = [v.submit(url(s), "slow", "", 1, api_name="/llm_query") for v, s in zip(visitors, (a, b))]
        deadline = time.monotonic() + 20
        while not (a.requests and b.requests) and time.monotonic() < deadline:  # both slow queries running
            time.sleep(0.05)
        t0 = time.monotonic()
        msg, _, _ = visitors[2].predict(url(quick), "quick", "", 1, api_name="/llm_query")
        elapsed = time.monotonic() - t0
        slow_done = [j.done() for j in jobs]
        results = [j.result(timeout=60) for j in jobs]
    assert msg.startswith("Queried 3 sequences (1 per stratum) from quick: 3 asked"), msg
    assert elapsed < 3 and slow_done == [False, False], (elapsed, slow_done)
    assert all(r[0].startswith("Queried 3 sequences (1 per stratum) from slow") for r in results)


def test_a_malformed_stored_row_never_breaks_the_app(client, app):
    from rote_hf.results import ResultRow, ResultStore

    ResultStore(app.results).append(ResultRow(run_id="x", suite="cogscale", task="t", model="M"))  # the row
    rote_rows = table(rote(client))
    cog_rows = table(client.predict("validation", ALL, ALL, ALL, ALL, "ours", "all", api_name="/cogscale_board"))
    llm_rows = table(client.predict(ALL, ALL, ALL, "accuracy", api_name="/llm_board"))
    assert rote_rows and cog_rows and llm_rows
    assert "M" not in {r["model"] for r in cog_rows}
