"""Vectorised one-hot writers used by the ``fill`` functions (no per-sample Python loops)."""

from __future__ import annotations

import numpy as np


def put_onehot(out: np.ndarray, symbols: np.ndarray, *, start: int = 0, offset: int = 0) -> None:
    """Set ``out[i, start + t, offset + symbols[i, t]] = 1`` for every sample i and step t.

    ``out`` is ``[n, steps, features]``; ``symbols`` is ``[n, length]`` of integer codes.
    """
    n, length = symbols.shape
    rows = np.arange(n)[:, None]
    steps = np.arange(start, start + length)[None, :]
    out[rows, steps, offset + symbols] = 1.0

