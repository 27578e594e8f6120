"""What a visitor sees with the rows shipped with the package (``space/app.py`` without
``--no-shipped``), in headless Chromium: every tab settles, the CogScale table shows a cell of the
shipped rows, the legends name ours and the paper, and the reproduction shows its headline.

Every expected value is computed from the project's own functions over the rows the app reads
(the shipped rows, the papers' rows and a small store of our ROTE runs, so that the ROTE plots
have ours beside the paper's). The app takes ~30-40 s to start with the shipped rows and its
requests are slow: the timeouts are generous, and no timing is asserted."""

from __future__ import annotations

import random
import re

import pytest

from rote_hf.boards.tables import RUNS, rote_frame
from rote_hf.leaderboard import cogscale_board, load_board_rows, plots, rote_board
from rote_hf.leaderboard.reproduction import reproduction_view
from rote_hf.results import ResultStore
from tests.space.conftest import serve_app
from tests.space.rows import rote_rows
from tests.space.test_browser import cell, open_page, shoot, shots  # noqa: F401 -- shots: fixture

TIMEOUT_MS = 120_000
"""Playwright's wait for one element or one request's answer (ms)."""
SETTLE_MS = 240_000
"""The longest wait for every panel of a tab to stop showing 'processing' (ms)."""
TABS = ("ROTE", "CogScale", "OEIS-LLM", "Submit results", "LLM query")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    base = tmp_path_factory.mktemp("shipped")
    results = base / "results"
    store = ResultStore(results)
    for row in rote_rows(random.Random(0)):  # ours on the ROTE plots; CogScale is the shipped rows alone
        store.append(row)
    with serve_app(base, results, shipped=True) as running:
        yield running


@pytest.fixture(scope="module")
def rows(app):
    """The rows the app shows: the store, the papers' and the shipped rows."""
    return load_board_rows(app.results, shipped=True)[0]


@pytest.fixture(scope="module")
def page(app):
    yield from open_page(app.url, TIMEOUT_MS)


QUIET_MS = 3_000
"""How long no panel may show 'processing' before a tab counts as settled (ms): a request starts a
moment after its click (the page's own load request after the page), so one quiet look is not enough."""


def settle(page) -> None:
    """Wait (at most :data:`SETTLE_MS`) until no panel has shown Gradio's 'processing' status for
    :data:`QUIET_MS`."""
    page.evaluate("window.__roteQuietSince = null")
    page.wait_for_function(
        """quietMs => {
            if (document.body.innerText.toLowerCase().includes('processing')) {
                window.__roteQuietSince = null;
                return false;
            }
            window.__roteQuietSince = window.__roteQuietSince || Date.now();
            return Date.now() - window.__roteQuietSince >= quietMs;
        }""", arg=QUIET_MS, timeout=SETTLE_MS, polling=250)


def open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()
    settle(page)


def legend(page, elem: str) -> list[str]:
    return [t.strip() for t in page.locator(f"#{elem} text.chart-legend").all_text_contents()]


def test_every_tab_opens_and_settles(page, shots):
    for name in TABS:
        open_tab(page, name)
        assert page.get_by_role("tab", name=name, exact=True).get_attribute("aria-selected") == "true"
        assert page.locator(".toast-body.error").count() == 0  # no error toast
        shoot(page, shots, "shipped-" + name.lower().replace(" ", "-"))


def test_cogscale_table_shows_the_shipped_rows(page, rows):
    board = cogscale_board(rows)  # the app's first view: LR chosen on validation, the cells we ran
    first = board.iloc[0]
    open_tab(page, "CogScale")
    page.wait_for_selector('#cogscale-table [data-testid="cell-0-0"]')
    shown = {col: cell(page, "cogscale-table", 0, list(board.columns).index(col))
             for col in ("task", "difficulty", "budget", "model", "source", "mean ± std", "ci95")}
    assert shown == {col: str(first[col]) for col in shown}


def test_rote_legends_name_ours_and_the_paper(page, rows):
    curves = plots.complexity_curves(plots.one_track(rote_frame(rows)))
    expected = {"ours", "paper"}
    assert set(curves["source"]) == expected  # the rows hold both (else the test would prove nothing)
    open_tab(page, "ROTE")
    page.wait_for_selector("#rote-dl-c text.chart-legend")
    for elem in ("rote-dl-c", "rote-acc-c"):
        assert sorted(legend(page, elem)) == sorted(set(curves["series"]))
    assert "GRU (ours)" in legend(page, "rote-dl-c") and "GRU (paper)" in legend(page, "rote-dl-c")
    board = rote_board(rows)  # the app's first view: every filter at "all", the lines from the runs
    points = plots.pareto(plots.one_track(board[board["table"] == RUNS]))
    assert sorted(page.locator("#rote-pareto text.point-label").all_text_contents()) == sorted(points["label"])
    assert {"ours", "paper"} <= set(points["source"])


def test_cogscale_radars_name_ours_and_the_paper(page, rows):
    open_tab(page, "CogScale")
    page.wait_for_selector("#radar-small svg.rote-radar")
    key = page.locator("#radar-small text.radar-key").text_content()  # SVG text: not an HTMLElement
    assert "our runs" in key and "paper" in key
    models = sorted(set(plots.radar_data(rows, difficulty="small", source="both")["model"]), key=str.lower)
    assert page.locator("#radar-small text.radar-legend").all_text_contents() == models


def test_reproduction_shows_its_headline(page, rows):
    _, text = reproduction_view(rows, view="by model")
    expected = " ".join(re.sub(r"\*\*|`", "", text).split("se = sqrt")[0].split())  # the markdown as rendered
    open_tab(page, "Reproduction")
    page.get_by_role("button", name="Show reproduction").click()
    page.wait_for_function("() => document.querySelector('#reproduction-headline')?.innerText.includes('of our runs')",
                           timeout=SETTLE_MS, polling=500)
    settle(page)
    shown = " ".join(page.inner_text("#reproduction-headline").split())
    assert expected in shown and "Within 2 standard errors" in shown
    page.wait_for_selector('#reproduction-table [data-testid="cell-0-0"]')
