"""The fixed 52-letter ROTE alphabet and input validation shared by the symbolic core."""

from __future__ import annotations

import numbers

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
"""``A``–``Z`` then ``a``–``z``; the active alphabet of size n is ``ALPHABET[:n]``."""

_LETTERS = frozenset(ALPHABET)


def check_symbols(s: object, name: str = "s") -> str:
    """Return ``s`` if it is a string over the 52 letters; ``TypeError``/``ValueError`` otherwise."""
    if not isinstance(s, str):
        raise TypeError(f"{name} must be a str of letters A-Z/a-z, got {type(s).__name__}")
    bad = set(s) - _LETTERS
    if bad:
        shown = "".join(sorted(bad))[:10]
        raise ValueError(f"{name} must contain only the 52 letters A-Z and a-z, found {shown!r}")
    return s


def check_int(value: object, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as ``int`` if it is an integer (not bool) within ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(f"{name} must be in {lo}..{hi}, got {value}")
    return value
