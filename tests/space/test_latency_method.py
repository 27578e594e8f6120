"""The arithmetic of benchmarks/space_latency.py: the board's own cost read from the app's log, and an
upload's effect judged against a control app (issue 25)."""

from __future__ import annotations

import importlib.util
import logging

import pytest

from tests.helpers import REPO_ROOT

_spec = importlib.util.spec_from_file_location("space_latency", REPO_ROOT / "benchmarks" / "space_latency.py")
space_latency = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(space_latency)
relative_change, served_costs = space_latency.relative_change, space_latency.served_costs


def test_served_costs_reads_only_new_lines_of_the_apps_format(tmp_path):
    log = tmp_path / "app.log"
    handler = logging.FileHandler(log)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s"))  # the benchmark's app format
    logger = logging.getLogger("rote_hf.leaderboard.test_latency_method")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        logger.debug("served /%s in %.6f CPU-s", "rote_board", 0.000012)
        logger.debug("computed ('rote',) for rows (1, 2, 3) in 0.500 s")
        handler.flush()
        first, end = served_costs(log, 0)
        logger.debug("served /%s in %.6f CPU-s", "cogscale_board", 0.000034)
        handler.flush()
        second, _ = served_costs(log, end)
    finally:
        logger.removeHandler(handler)
        handler.close()
    assert first == [("/rote_board", 0.000012)]
    assert second == [("/cogscale_board", 0.000034)]  # from the offset on: the first line is not read again


def test_relative_change_cancels_what_both_apps_saw():
    before, control_before = {"/a": {"m": 0.010}}, {"/a": {"m": 0.020}}
    # the machine got 50% slower for both apps, and the first app 10% slower on top of that
    after, control_after = {"/a": {"m": 0.010 * 1.5 * 1.1}}, {"/a": {"m": 0.020 * 1.5}}
    assert relative_change(after, control_after, before, control_before, "m")["/a"] == pytest.approx(0.10)
    # a measure that is zero (nothing logged) is left out rather than judged
    assert relative_change({"/a": {"m": 0.0}}, control_after, before, control_before, "m") == {}
