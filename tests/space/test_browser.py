"""Headless Chromium (Debian's package) driven by Playwright: every tab renders its table and plots.

Screenshots go to a temporary folder (``$ROTE_SCREENSHOTS`` keeps them elsewhere)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from playwright import sync_api

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
PLOT = "canvas, svg.marks, .vega-embed, svg.rote-chart"
TIMEOUT_MS = 60_000


def chromium_path() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("Debian's chromium is not installed: `make test` installs it (apt-get install -y chromium)")


def open_page(url: str, timeout_ms: int = TIMEOUT_MS):
    """A headless Chromium page (1400 x 1800) at ``url``, for a module fixture to yield from."""
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1800})
        page.set_default_timeout(timeout_ms)
        page.goto(url)
        yield page
        browser.close()


@pytest.fixture(scope="module")
def page(app):
    yield from open_page(app.url)


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("ROTE_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def cell(page, table: str, row: int, col: int) -> str:
    return page.inner_text(f'#{table} [data-testid="cell-{row}-{col}"]').strip()


def plot_rendered(page, elem: str) -> None:
    page.wait_for_selector(f"#{elem} :is({PLOT})", state="attached")
    assert page.locator(f"#{elem} :is({PLOT})").count() >= 1


def shoot(page, shots: Path, name: str) -> Path:
    path = shots / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 20_000  # a rendered page, not a blank one
    return path


def test_rote_tab(page, shots):
    page.wait_for_selector('#rote-table [data-testid="cell-0-0"]')
    headers = page.inner_text("#rote-table thead")
    assert "DL_mean" in headers and "verified" in headers
    assert (cell(page, "rote-table", 0, 0), cell(page, "rote-table", 0, 2)) == ("ours", "GRU")
    for elem in ("rote-dl-c", "rote-acc-c", "rote-rollout", "rote-pareto", "rote-params"):
        plot_rendered(page, elem)
    shoot(page, shots, "rote")


def test_rote_filter_in_browser(page, shots):
    page.get_by_role("tab", name="ROTE").click()
    source = page.get_by_label("source").first
    source.click()
    page.get_by_role("option", name="paper", exact=True).click()
    page.get_by_role("button", name="Apply filters").first.click()
    page.wait_for_function(
        "() => document.querySelector('#rote-table [data-testid=\"cell-0-0\"]')?.innerText.trim() === 'paper'")
    assert cell(page, "rote-table", 0, 0) == "paper"
    shoot(page, shots, "rote-paper-only")


def test_cogscale_tab(page, shots):
    page.get_by_role("tab", name="CogScale").click()
    page.wait_for_selector('#cogscale-table [data-testid="cell-0-0"]')
    assert cell(page, "cogscale-table", 0, 0) == "adding_problem"
    page.wait_for_selector("#radar-small svg.rote-radar")
    assert page.locator("#radar-small polygon.radar-model").count() == 9  # ours: GRU, Transformer; the paper's 7
    assert page.locator("#radar-medium svg.rote-radar").count() == 1
    assert page.locator("#radar-small text.radar-task").count() == 14  # all 14 tasks
    # the default view: in each cell we ran, our line and the paper's line of the same model together
    assert [cell(page, "cogscale-table", r, c) for r in (1, 2) for c in (3, 5)] == ["GRU", "ours", "GRU", "paper"]
    shoot(page, shots, "cogscale")


def test_llm_tab(page, shots):
    page.get_by_role("tab", name="OEIS-LLM").click()
    page.wait_for_selector('#llm-table [data-testid="cell-0-0"]')
    assert (cell(page, "llm-table", 0, 1), cell(page, "llm-table", 0, 2)) == ("tiny-llm", "clean")
    page.wait_for_selector("#llm-bars svg.rote-bars")
    legend = [t.strip() for t in page.locator("#llm-bars text.bars-legend").all_text_contents()]
    assert sorted(legend) == ["anthropic/claude-sonnet-4.5 (paper)", "meta-llama/llama-3.3-70b-instruct (paper)",
                              "openai/gpt-4o (paper)", "tiny-llm"]
    shoot(page, shots, "oeis-llm")


def test_submit_and_query_tabs(page, shots):
    page.get_by_role("tab", name="Submit results").click()
    page.wait_for_selector("#submit-status")
    assert page.get_by_text("stored **unverified**").count() == 0  # markdown rendered, not raw
    assert page.get_by_text("unverified (submitted)").count() >= 1
    shoot(page, shots, "submit")
    page.get_by_role("tab", name="LLM query").click()
    page.wait_for_selector("#query-status")
    assert page.locator('input[type="password"]').count() == 1
    # empty tables show their real column headers, not "1 2 3"
    assert page.inner_text("#query-records thead").split()[:3] == ["stratum", "a_number", "prompt"]
    assert page.inner_text("#query-metrics thead").split()[:3] == ["stratum", "n_rows", "n_scored"]
    shoot(page, shots, "llm-query")


def test_reload_shows_runs_stored_after_start(page, app, shots):
    from rote_hf.results import ResultRow, ResultStore

    ResultStore(app.results).append(ResultRow(
        run_id="rote-ZZNet-late", suite="rote", task="n4-c30", model="ZZNet", device="cpu",
        task_params={"symbols": 4, "complexity": 30}, metrics={"DL": 0.5, "exact": 0.0}, score_name="DL", score=0.5))
    page.reload()
    page.wait_for_function(
        "() => document.querySelector('#rote-table [data-testid=\"cell-2-2\"]')?.innerText.trim() === 'ZZNet'")
    assert (cell(page, "rote-table", 2, 0), cell(page, "rote-table", 2, 10)) == ("ours", "0.5")  # source, DL_mean
    shoot(page, shots, "rote-after-reload")


def test_an_empty_board_keeps_its_headers(page, shots):
    page.get_by_role("tab", name="ROTE").click()
    page.get_by_label("source").first.click()
    page.get_by_role("option", name="submitted", exact=True).click()
    page.get_by_role("button", name="Apply filters").first.click()
    page.wait_for_function("() => !document.querySelector('#rote-table [data-testid=\"cell-0-0\"]')")
    headers = page.inner_text("#rote-table thead").split()
    assert headers[:4] == ["source", "track", "model", "variant"] and "DL_mean" in headers
    shoot(page, shots, "rote-empty")


def test_a_malformed_stored_row_shows_a_notice_not_an_error(page, app, shots):
    from rote_hf.results import ResultRow, ResultStore

    ResultStore(app.results).append(ResultRow(run_id="x", suite="cogscale", task="t", model="M"))  # issue 12's row
    page.reload()
    page.wait_for_selector('#rote-table [data-testid="cell-0-0"]')
    page.wait_for_function("() => document.querySelector('#board-notice')?.innerText.includes('skipped')")
    notice = page.inner_text("#board-notice")
    assert "1 stored row(s) skipped" in notice and "'x': task must be one of the 14 CogScale tasks" in notice
    assert page.locator(".error, [data-testid='error']").count() == 0
    page.get_by_role("tab", name="CogScale").click()
    page.wait_for_selector('#cogscale-table [data-testid="cell-0-0"]')
    shoot(page, shots, "notice")
