"""Straightforward test oracles, written from the ROTE paper's equations (A.2, eqs. 11-15).

Deliberately slow and literal: a full dynamic-programming table for the edit distance and an
explicit match/transposition count for Jaro, so that they share nothing with the fast code
under test (rapidfuzz's bit-parallel OSA and Jaro).
"""

from __future__ import annotations


def osa_edits(x, y) -> int:
    """Eq. (11): optimal string alignment distance by the textbook recursion."""
    d = {(i, j): 0 for i in range(len(x) + 1) for j in range(len(y) + 1)}
    for i in range(len(x) + 1):
        for j in range(len(y) + 1):
            if i == 0 or j == 0:
                d[i, j] = i + j
                continue
            options = [
                d[i - 1, j] + 1,
                d[i, j - 1] + 1,
                d[i - 1, j - 1] + (x[i - 1] != y[j - 1]),
            ]
            if i > 1 and j > 1 and x[i - 1] == y[j - 2] and x[i - 2] == y[j - 1]:
                options.append(d[i - 2, j - 2] + 1)
            d[i, j] = min(options)
    return d[len(x), len(y)]


def dl_oracle(x, y) -> float:
    if len(x) == 0 and len(y) == 0:
        return 0.0
    return osa_edits(x, y) / max(len(x), len(y))


def jaro_oracle(x, y) -> float:
    """Eq. (13) with the window max(len)//2 - 1 and floor(transpositions / 2)."""
    if len(x) == 0 and len(y) == 0:
        return 1.0
    if len(x) == 0 or len(y) == 0:
        return 0.0
    window = max(len(x), len(y)) // 2 - 1
    taken = [False] * len(y)
    x_matched = []  # symbols of x that found a partner, in x order
    for i, symbol in enumerate(x):
        for j in range(len(y)):
            if abs(i - j) <= window and not taken[j] and y[j] == symbol:
                taken[j] = True
                x_matched.append(symbol)
                break
    mu = len(x_matched)
    if mu == 0:
        return 0.0
    y_matched = [y[j] for j in range(len(y)) if taken[j]]
    half_transpositions = sum(a != b for a, b in zip(x_matched, y_matched)) // 2
    return (mu / len(x) + mu / len(y) + (mu - half_transpositions) / mu) / 3


def jw_oracle(x, y, p: float = 0.1) -> float:
    """Eqs. (14)-(15) with the prefix bonus at every Jaro value."""
    if list(x) == list(y):
        return 0.0
    jaro = jaro_oracle(x, y)
    ell = 0
    while ell < min(4, len(x), len(y)) and x[ell] == y[ell]:
        ell += 1
    return 1 - (jaro + ell * p * (1 - jaro))
