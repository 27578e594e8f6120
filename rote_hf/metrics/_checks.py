"""Input validation shared by the metric functions.

Every check raises ``TypeError`` (wrong kind of value) or ``ValueError`` (right kind, bad
content) with a message that names the argument and what is allowed, so that a user who
passes the wrong column learns which one from the first line of the traceback.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

Symbols = str | Sequence[Any]
"""A symbol string: a ``str`` or a list/tuple of hashable symbols (e.g. token ids)."""


def as_rows(values: Any, name: str) -> list:
    """``values`` as a list of rows; rejects strings, scalars and ``None``.

    Accepts lists, tuples, NumPy arrays and anything else with ``len`` and iteration
    (``datasets.Column`` included).
    """
    if values is None or isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a list of rows, got {type(values).__name__}")
    return list(values)


def check_same_length(columns: dict[str, list]) -> int:
    """The common row count of ``columns``; ``ValueError`` naming both counts if they differ
    and when there are no rows at all."""
    names = list(columns)
    first = names[0]
    n = len(columns[first])
    for other in names[1:]:
        if len(columns[other]) != n:
            raise ValueError(
                f"{first} and {other} must have the same number of rows, "
                f"got {n} and {len(columns[other])}"
            )
    check_not_empty(columns)
    return n


def check_not_empty(columns: dict[str, Any]) -> None:
    """``ValueError`` naming the columns when none of ``columns`` (the inputs given, ``None`` for
    one not given) has a row: the one message every metric and evaluate module gives for empty
    input (evaluate itself would fail on it with an IndexError while reading the first row)."""
    given = [v for v in columns.values() if v is not None]
    if given and all(hasattr(v, "__len__") and len(v) == 0 for v in given):
        raise ValueError(f"{', '.join(columns)} must not be empty: at least one row is needed")


def check_max_length(max_length: Any) -> int | None:
    """``max_length``: ``None`` (no limit) or an integer >= 1; ``ValueError`` naming it otherwise."""
    if max_length is None:
        return None
    if not is_integer(max_length) or max_length < 1:
        raise ValueError(f"max_length must be None (no limit) or an integer >= 1, got {max_length!r}")
    return int(max_length)


def check_lengths(rows: list, name: str, max_length: int | None) -> None:
    """``ValueError`` naming ``name[i]`` and ``max_length`` when a row has more than ``max_length``
    symbols (the distances cost time quadratic in the length: benchmarks/metrics_long_inputs.md)."""
    if max_length is None:
        return
    for i, row in enumerate(rows):
        if len(row) > max_length:
            raise ValueError(f"{name}[{i}] has {len(row):,} symbols, over max_length={max_length:,} "
                             "(the cost grows with the square of the length; pass a larger max_length, "
                             "or None for no limit)")


def check_symbols(value: Any, name: str, row: int | None = None) -> Symbols:
    """A symbol string (``str``) or a list/tuple of symbols; ``TypeError`` otherwise.

    A NaN or infinite float symbol is refused (``ValueError``): NaN equals nothing but, inside a
    list, itself by identity, so it would score as right or wrong depending on object identity."""
    where = f"{name}[{row}]" if row is not None else name
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = value.tolist()
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        if any(isinstance(s, (float, np.floating)) and not math.isfinite(s) for s in value):
            raise ValueError(f"{where} must not hold NaN or infinite symbols")
        return value
    raise TypeError(f"{where} must be a str or a list/tuple of symbols, got {type(value).__name__}")


def check_finite(values: np.ndarray, name: str, row: int, what: str = "") -> None:
    """``ValueError`` naming ``name[row]`` when ``values`` holds NaN or +-inf (a score over them
    could beat the truth: NaN logits argmax to class 0, -inf logits to a confident "no")."""
    if values.size and not np.all(np.isfinite(values)):
        bad = np.asarray(values)[~np.isfinite(values)].ravel()[0]
        raise ValueError(f"{name}[{row}] must be finite{what}, got {bad}")


def check_bool(value: Any, name: str, row: int, *, allow_none: bool = False) -> bool | None:
    """A real ``bool`` (NumPy bools too); ``None`` only when ``allow_none``."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    allowed = "True, False or None" if allow_none else "True or False"
    raise TypeError(f"{name}[{row}] must be {allowed}, got {value!r}")


def is_integer(value: Any) -> bool:
    """True for Python/NumPy integers, False for bools (``True`` is not a term or a score)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
