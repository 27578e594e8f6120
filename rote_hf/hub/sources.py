"""Where the files of the metric Spaces and the leaderboard Space come from.

One source of truth: ``eval_suite/metrics/`` and ``space/`` at the top of the source checkout.
A wheel cannot reach the checkout, so the wheel build (``setup.py``'s ``build_py``) copies those
two folders into the package as ``rote_hf/_bundled/{metrics,space}``; nothing is committed
twice. :func:`source_dir` prefers the bundled copy (an installed wheel) and falls back to the
checkout (a source tree or an editable install).
"""

from __future__ import annotations

from pathlib import Path

BUNDLED = "_bundled"
SOURCES: dict[str, str] = {"metrics": "eval_suite/metrics", "space": "space"}
"""Bundled name -> folder of the source checkout it is copied from."""


def source_dir(kind: str) -> Path:
    """The folder holding the ``kind`` sources (``"metrics"`` or ``"space"``).

    ``FileNotFoundError`` when neither the bundled copy nor a source checkout has it.
    """
    if kind not in SOURCES:
        raise ValueError(f"kind must be one of {sorted(SOURCES)}, got {kind!r}")
    package = Path(__file__).resolve().parents[1]
    bundled = package / BUNDLED / kind
    if bundled.is_dir():
        return bundled
    checkout = package.parent / SOURCES[kind]
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"{SOURCES[kind]}/ not found: neither bundled in {bundled} (a wheel install) nor in a source checkout at {checkout}"
    )
