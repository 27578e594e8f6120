"""Argument checks shared by the task definitions: clear ``ValueError``/``TypeError`` messages."""

from __future__ import annotations

import operator
from typing import Any


def as_int(name: str, value: Any, *, minimum: int | None = None) -> int:
    """``value`` as a Python int (bools and floats refused), at least ``minimum`` if given."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got bool {value!r}")
    try:
        out = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}") from None
    if minimum is not None and out < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {out}")
    return out


def as_ratio(name: str, value: Any) -> float:
    """``value`` as a float in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a float in [0, 1], got {type(value).__name__} {value!r}")
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name} must be a float in [0, 1], got {value!r}")
    return float(value)


def require(condition: bool, message: str) -> None:
    """Raise ``ValueError(message)`` unless ``condition``."""
    if not condition:
        raise ValueError(message)
