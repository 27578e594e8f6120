"""Decimal text <-> Python ints of any size, without touching the interpreter's global limit.

Python refuses ``int(text)`` and ``str(n)`` beyond ``sys.get_int_max_str_digits()`` digits
(4300 by default; a guard against quadratic-time conversions). OEIS terms can be longer, and
the library must not switch the guard off for the whole process (the limit is global state
that the caller owns). These helpers split long numbers into pieces below the
limit (divide and conquer, so the cost stays near the built-in's) and leave the limit alone.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

_FALLBACK_CHUNK = 4000  # digits per piece when no limit is set (any size converts directly then)


def _limit() -> int:
    """Digits a single built-in conversion may handle now (0 = unlimited)."""
    get = getattr(sys, "get_int_max_str_digits", None)
    return get() if get is not None else 0


def parse_int(text: str) -> int:
    """``int(text)`` for a decimal integer string of any length (optional sign, no spaces)."""
    text = text.strip()
    limit = _limit()
    if not limit or len(text) <= limit:
        return int(text)
    sign = -1 if text[0] == "-" else 1
    digits = text.lstrip("+-")
    if not digits.isdigit():
        raise ValueError(f"text must be a decimal integer, got {text[:40]!r}...")
    return sign * _parse_digits(digits, min(limit, _FALLBACK_CHUNK))


def _parse_digits(digits: str, chunk: int) -> int:
    if len(digits) <= chunk:
        return int(digits)
    k = len(digits) // 2
    return _parse_digits(digits[:-k], chunk) * 10**k + _parse_digits(digits[-k:], chunk)


def format_int(n: int) -> str:
    """``str(n)`` for an int of any size."""
    limit = _limit()
    if not limit or abs(n).bit_length() * 0.30103 < limit - 2:  # surely below the limit
        return str(n)
    if n < 0:
        return "-" + format_int(-n)
    return _format_digits(n, min(limit, _FALLBACK_CHUNK) - 2)


def _format_digits(n: int, chunk: int) -> str:
    if n.bit_length() * 0.30103 < chunk:
        return str(n)
    k = int(n.bit_length() * 0.30103) // 2
    hi, lo = divmod(n, 10**k)
    return _format_digits(hi, chunk) + _format_digits(lo, chunk).rjust(k, "0")


def dumps_int_rows(rows: Iterable[Iterable[int]]) -> str:
    """``json.dumps([list(r) for r in rows])`` (same text, default separators) for ints of any size."""
    return "[" + ", ".join("[" + ", ".join(format_int(c) for c in row) + "]" for row in rows) + "]"


def dumps_json(obj, **kwargs) -> str:
    """``json.dumps(obj, **kwargs)`` that also writes ints longer than the limit (as JSON numbers)."""
    import json
    import re

    big: list[str] = []
    bits = int((_limit() or 10**9) / 0.30103) - 16  # below this many bits str() is surely allowed

    def walk(o):
        if isinstance(o, int) and not isinstance(o, bool) and abs(o).bit_length() > bits:
            big.append(format_int(o))
            return f"\x00big{len(big) - 1}\x00"
        if isinstance(o, dict):
            return {k: walk(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [walk(v) for v in o]
        return o

    text = json.dumps(walk(obj), **kwargs)
    return re.sub(r'"\\u0000big(\d+)\\u0000"', lambda m: big[int(m.group(1))], text) if big else text


__all__ = ["dumps_int_rows", "dumps_json", "format_int", "parse_int"]
