"""argparse types shared by every ``commands`` module: strict plain integers in a range.

A leaf module (it imports nothing of the package), so the core rooms' command modules may use
it like :mod:`rote_hf.registry`.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

PLAIN_INT = re.compile(r"-?[0-9]+")
"""A plain decimal integer: no ``_``, spaces, ``+`` or non-ASCII digits."""


def int_in(low: int, high: int, name: str = "value") -> Callable[[str], int]:
    """argparse type: a plain decimal integer in ``low..high``, checked before any work;
    argparse prefixes the error with ``argument --flag:``."""

    def parse(text: str) -> int:
        if not PLAIN_INT.fullmatch(text):
            raise argparse.ArgumentTypeError(f"invalid int value: {text[:40]!r}")
        if not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"{name} must be in {low}..{high}, got {text[:40]}")
        return int(text)

    return parse
