"""Issue 26 through the running app: sign-in (headless Chromium clicks "Sign in with Hugging Face"
on the tests-only stand-in, tests/space/signed_in_app.py), and every bad input sent over HTTP with
gradio_client: a one-line refusal, nothing stored, nobody else's view changed.

The tests of this module run in order on one app whose limits are 3 submissions and 1 LLM query
per day for its one user: the browser test queues one request, the good submissions two more."""

from __future__ import annotations

import io
import json
from pathlib import Path

import gradio_client
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.space.conftest import serve_app, signed_in
from tests.space.rows import make_store
from tests.space.test_browser import open_page, shoot, shots  # noqa: F401 -- shots: fixture

USER = "alice"
ROW = {"run_id": "mine-1", "suite": "rote", "task": "n4-c30", "model": "MyNet",
       "task_params": {"symbols": 4, "complexity": 30}, "metrics": {"DL": 0.05, "exact": 0.0},
       "git_commit": "0123abc", "package_version": "1.2.0", "device": "cpu"}
SIGN_IN = "Rejected: sign in with your Hugging Face account first (the 'Sign in with Hugging Face' button)."


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    base = tmp_path_factory.mktemp("signin")
    results = base / "results"
    make_store(results)
    with serve_app(base, results, user=USER, limits=(3, 1)) as running:
        yield running


@pytest.fixture(scope="module")
def alice(app):
    return signed_in(app.url)


@pytest.fixture(scope="module")
def anonymous(app):
    return gradio_client.Client(app.url, verbose=False)


def files(app) -> list[str]:
    return sorted(str(p.relative_to(app.results)) for p in app.results.glob("**/*")
                  if p.is_file() and "compact" not in p.parts)


def views(app, alice, anonymous) -> tuple:
    """What the visitors see: the public ROTE board (toggle on and off) and alice's requests."""
    board = [anonymous.predict("all", "all", "all", "all", "all", "runs", show, api_name="/rote_board")[0]["data"]
             for show in (False, True)]
    return board, alice.predict(api_name="/my_requests")["data"], files(app)


def upload(client, path: Path) -> str:
    return client.predict(gradio_client.handle_file(str(path)), api_name="/submit")


def test_browser_signs_in_and_queues_an_architecture(app, shots):  # noqa: F811 -- shots: fixture
    for page in open_page(app.url):
        page.get_by_role("button", name="Sign in with Hugging Face").click()
        page.get_by_role("button", name=f"Logout ({USER})").wait_for()
        page.get_by_role("tab", name="Submit an architecture").click()
        page.fill("#architecture-entry textarea", '{"name": "gru", "hidden_size": 32}')
        page.get_by_role("button", name="Queue for verification").click()
        page.wait_for_function("document.querySelector('#architecture-status textarea').value.length > 0")
        status = page.input_value("#architecture-status textarea")
        assert status.startswith("Queued request "), status
        request_id = status.split()[2].rstrip(":")
        page.get_by_role("tab", name="My requests").click()
        page.get_by_role("button", name="Show my requests").click()
        page.wait_for_selector('#my-requests [data-testid="cell-0-0"]')
        assert page.inner_text('#my-requests [data-testid="cell-0-0"]').strip() == request_id
        assert page.inner_text('#my-requests [data-testid="cell-0-4"]').strip() == "pending"
        shoot(page, shots, "my-requests")
    record = json.loads((app.results / "requests" / f"{request_id}.json").read_text())
    assert (record["user"], record["kind"], record["status"]) == (USER, "architecture", "pending")


def test_not_signed_in_is_refused_over_http(app, anonymous):
    before = files(app)
    path = app.results.parent / "a.json"
    path.write_text(json.dumps([ROW]))
    assert upload(anonymous, path) == SIGN_IN
    assert anonymous.predict("gru", "rote-smoke", api_name="/submit_architecture") == SIGN_IN
    message, records, metrics = anonymous.predict("https://example.org/v1", "m", "", 1, api_name="/llm_query")
    assert message == SIGN_IN and records["data"] == [] and metrics["data"] == []
    assert anonymous.predict(api_name="/my_requests")["data"] == []
    assert files(app) == before


def parquet_bomb() -> bytes:
    column = pa.DictionaryArray.from_arrays(pa.array([0] * 30, pa.int32()), pa.array(["x" * (20 * 1024 * 1024)]))
    buf = io.BytesIO()
    pq.write_table(pa.table({"run_id": [f"r{i}" for i in range(30)], "error": column}), buf, compression="zstd",
                   dictionary_pagesize_limit=64 * 1024 * 1024)
    return buf.getvalue()


BAD = {
    "parquet bomb": ("rows", ("bomb.parquet", parquet_bomb()), "Rejected: file's column 'error' is 20971572 bytes"),
    "json bomb": ("rows", ("bomb.json", b"[" * 50_000 + b"]" * 50_000), "Rejected: file is nested deeper than 12"),
    "bidi provenance": ("rows", ("bidi.json", json.dumps([{**ROW, "git_commit": "0123abc\u202e"}]).encode()),
                        "Rejected: row 0 ('mine-1'): git_commit must not contain control or bidirectional-text"),
    "model entry naming code": ("architecture", ('{"name": "subprocess:run"}', "rote-smoke"),
                                "Rejected: model name must be a zoo name, not code"),
    "unknown zoo name": ("architecture", ('{"name": "tranformer"}', "rote-smoke"),
                         "Rejected: unknown zoo model 'tranformer'; did you mean 'transformer'"),
    "unknown track": ("architecture", ("gru", "everything"), "Rejected: track must be one of"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_over_http_is_one_line_and_changes_nothing(app, alice, anonymous, case):
    kind, payload, expected = BAD[case]
    before = views(app, alice, anonymous)
    if kind == "rows":
        path = app.results.parent / payload[0]
        path.write_bytes(payload[1])
        message = upload(alice, path)
    else:
        message = alice.predict(*payload, api_name="/submit_architecture")
    assert message.startswith(expected) and "\n" not in message, message
    assert views(app, alice, anonymous) == before


def test_good_submissions_then_the_rate_limit(app, alice, anonymous):
    path = app.results.parent / "good.json"
    path.write_text(json.dumps([ROW]))
    assert upload(alice, path).startswith(f"Stored 1 row(s) as unverified (submitted) by {USER}, request ")
    assert alice.predict('{"name": "lstm", "budget": 20000}', "rote-smoke",
                         api_name="/submit_architecture").startswith("Queued request ")
    kinds = [row[2] for row in alice.predict(api_name="/my_requests")["data"]]
    assert sorted(kinds) == ["architecture", "architecture", "rows"]
    before = views(app, alice, anonymous)
    message = alice.predict("gru", "rote-smoke", api_name="/submit_architecture")
    assert message.startswith(f"Rejected: rate limit: 3 submissions per 24 h for {USER}; the next is allowed at ")
    assert message.endswith(" UTC")
    assert views(app, alice, anonymous) == before
    # the LLM query has its own limit (1 here): the second query is refused before it leaves
    first, _, _ = alice.predict("https://example.invalid/v1", "m", "", 1, api_name="/llm_query")
    assert not first.startswith(("Rejected: sign in", "Rejected: rate limit"))
    second, records, _ = alice.predict("https://example.invalid/v1", "m", "", 1, api_name="/llm_query")
    assert second.startswith(f"Rejected: rate limit: 1 LLM queries per 24 h for {USER}; the next is allowed at ")
    assert records["data"] == []
