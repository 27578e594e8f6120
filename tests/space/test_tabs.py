"""The board tabs come from the suite units: a suite registered later gets its own tab in the app,
with a named endpoint serving the unit's board, without an edit to ``space/app.py``."""

from __future__ import annotations

import importlib.util

import pandas as pd
import pytest

from rote_hf.boards.tables import ALL
from rote_hf.leaderboard.serving import BoardService
from rote_hf.leaderboard.tabs import TABS, BoardTab, Control, Output, Step, board_tabs
from rote_hf.suites import SUITES, Suite
from tests.helpers import REPO_ROOT


class ToySuite(Suite):
    name = "toy"
    description = "A toy suite registered by a test."

    def board(self, frame, **filters):
        return pd.DataFrame({"rows_seen": [len(frame)], "toy_rows": [int((frame["suite"] == "toy").sum())]})


@pytest.fixture
def toy_suite(monkeypatch):
    """``toy`` registered for one test (the registry refuses to register a name twice)."""
    monkeypatch.setitem(SUITES._entries, "toy", ToySuite())
    yield


def load_app():
    spec = importlib.util.spec_from_file_location("space_app_under_test", REPO_ROOT / "space" / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_built_in_tabs_cover_every_registered_suite():
    assert [tab.id for tab in board_tabs()] == ["rote", "cogscale", "reproduction", "llm"]
    assert {s for tab in TABS for s in tab.suites} == set(SUITES.names())


def test_a_fourth_suite_gets_its_tab_and_endpoint(toy_suite, tmp_path):
    assert [tab.id for tab in board_tabs()][-1] == "suite-toy"
    service = BoardService(tmp_path / "results", shipped=False)
    demo = load_app().build_demo(tmp_path / "results", service=service)
    titles = [block.label for block in demo.blocks.values() if type(block).__name__ == "Tab"]
    assert titles[:5] == ["ROTE", "CogScale", "Reproduction", "OEIS-LLM", "toy"]
    (fn,) = [f for f in demo.fns.values() if f.api_name == "toy_board"]
    table = fn.fn()
    assert table["rows_seen"].tolist() == [len(service.snapshot().rows)] and table["toy_rows"].tolist() == [0]


def test_a_value_without_rows_falls_back_to_the_default_with_a_warning(tmp_path):
    snap = BoardService(tmp_path / "results", shipped=False).snapshot()
    tab = BoardTab("t", "T", (), (Control("task", "task", choices_key="task"),),
                   (Output("t-out", "markdown"),), (Step("t", lambda s, task: (task,), ("task",), ("t-out",)),))
    assert tab.run(tab.steps[0], snap, {"task": "no_such_task"}) == ((ALL,), ["task = 'no_such_task' no longer has rows; showing all"])
    known = snap.choices["task"][0]
    assert tab.run(tab.steps[0], snap, {"task": known}) == ((known,), [])
    typed = BoardTab("t", "T", (), (Control("config", "config", default="x", choices_key="repro_config", custom=True),),
                     (Output("t-out", "markdown"),), (Step("t", lambda s, config: (config,), ("config",), ("t-out",)),))
    assert typed.run(typed.steps[0], snap, {"config": "no_such_sweep"}) == (("no_such_sweep",), [])  # passed on as typed


def test_tab_descriptions_are_checked():
    with pytest.raises(ValueError, match="exactly one of choices and choices_key"):
        Control("x", "x")
    with pytest.raises(ValueError, match="Output kind must be"):
        Output("x", "plot")
    with pytest.raises(ValueError, match="names unknown controls or outputs"):
        BoardTab("t", "T", (), (), (Output("o", "table"),), (Step("s", lambda s: (1,), ("missing",), ("o",)),))
