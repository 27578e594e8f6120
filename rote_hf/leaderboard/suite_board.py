"""The leaderboard table of any registered suite: the Space asks the suite unit, not its name.

>>> from rote_hf.leaderboard.suite_board import suite_board
>>> suite_board(frame, "cogscale", lr_selection="test")    # == cogscale_board(frame, lr_selection="test")
"""

from __future__ import annotations

from typing import Any

from rote_hf.suites import SUITES, get_suite


def suite_board(frame, suite: str, **filters: Any):
    """The board of ``suite`` (a name in :data:`rote_hf.suites.SUITES`) over ``frame`` (the
    DataFrame of :func:`rote_hf.results.load`, JSON columns decoded); ``filters`` are the suite
    board's own (e.g. ROTE ``n``/``c``/``track``, CogScale ``task``/``budget``)."""
    return get_suite(suite).board(frame, **filters)


def suite_names() -> list[str]:
    """The suites a board can be asked for."""
    return SUITES.names()
