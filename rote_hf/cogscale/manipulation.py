"""Tasks that manipulate what was read: adding, sorting and bracket matching (docs/cogscale.md)."""

from __future__ import annotations

import numpy as np

from .checks import as_int
from .encode import put_onehot
from .registry import Draws, Layout, Params, SampleTask


# -- adding_problem: add the two marked digits (values 1..m) -------------------------------------

def _check_adding(p: Params) -> None:
    as_int("sequence_length", p["sequence_length"], minimum=2)
    as_int("max_number", p["max_number"], minimum=1)


def _layout_adding(p: Params) -> Layout:
    L, m = p["sequence_length"], p["max_number"]
    return Layout(L + 2, m + 2, 2 * m - 1, 1)


def _draw_adding(rng: np.random.Generator, p: Params, n: int) -> Draws:
    L, m = p["sequence_length"], p["max_number"]
    digits = np.empty((n, L), dtype=np.int64)
    marked = np.empty((n, 2), dtype=np.int64)
    for i in range(n):  # per-sample order: digits, then the marked pair
        digits[i] = rng.integers(0, m, L)
        marked[i] = rng.choice(L, 2, replace=False)
    return {"digits": digits, "marked": marked}


def _fill_adding(dr: Draws, p: Params, X: np.ndarray, Y: np.ndarray, T: np.ndarray) -> None:
    L, m = p["sequence_length"], p["max_number"]
    digits, marked = dr["digits"], dr["marked"]
    rows = np.arange(len(digits))
    put_onehot(X, digits)
    X[rows[:, None], marked, m] = 1.0  # markers
    X[:, L, m + 1] = 1.0  # trigger
    # numbers are digit+1, so the class index (sum - 2) is the sum of the two digits
    Y[rows, L + 1, np.take_along_axis(digits, marked, axis=1).sum(axis=1)] = 1.0
    T[:] = L + 1


ADDING_PROBLEM = SampleTask(
    "adding_problem", "classification", _check_adding, _layout_adding, _draw_adding, _fill_adding,
    "numbers 1..max_number, two of them marked; after the trigger output their sum (a class)",
)


# -- sorting_problem: symbols with one-hot ranks; output them in rank order ------------------------

def _check_sorting(p: Params) -> None:
    as_int("sequence_length", p["sequence_length"], minimum=1)
    as_int("n_symbols", p["n_symbols"], minimum=1)


def _layout_sorting(p: Params) -> Layout:
    L, K = p["sequence_length"], p["n_symbols"]
    return Layout(2 * L + 1, K + L + 1, K, L)


def _draw_sorting(rng: np.random.Generator, p: Params, n: int) -> Draws:
    L, K = p["sequence_length"], p["n_symbols"]
    symbols = np.empty((n, L), dtype=np.int64)
    ranks = np.empty((n, L), dtype=np.int64)
    for i in range(n):  # per-sample order: symbols, then their ranks
        symbols[i] = rng.integers(0, K, L)
        ranks[i] = rng.permutation(L)
    return {"symbols": symbols, "ranks": ranks}


def _fill_sorting(dr: Draws, p: Params, X: np.ndarray, Y: np.ndarray, T: np.ndarray) -> None:
    L, K = p["sequence_length"], p["n_symbols"]
    symbols, ranks = dr["symbols"], dr["ranks"]
    rows = np.arange(len(symbols))[:, None]
    put_onehot(X, symbols)
    put_onehot(X, ranks, offset=K)  # rank slots K..K+L-1; slot K+L is the trigger
    X[:, L, K + L] = 1.0
    Y[rows, L + 1 + ranks, symbols] = 1.0
    T[:] = np.arange(L + 1, 2 * L + 1)


SORTING_PROBLEM = SampleTask(
    "sorting_problem", "classification", _check_sorting, _layout_sorting, _draw_sorting, _fill_sorting,
    "symbols arrive with a one-hot rank; after the trigger output them sorted by rank",
)


# -- bracket_matching: a valid walk, mutated half of the time; label = still valid? --------------

MUTATION_FRACTION = 0.35


def _check_bracket(p: Params) -> None:
    as_int("sequence_length", p["sequence_length"], minimum=1)
    as_int("max_depth", p["max_depth"], minimum=0)


def _layout_bracket(p: Params) -> Layout:
    L = p["sequence_length"]
    return Layout(L + 2, 3, 2, 1)


def _valid_walk(rng: np.random.Generator, length: int, max_depth: int, out: np.ndarray) -> None:
    """Write a random walk of ``length`` brackets into ``out`` (True = '(').

    Open when nothing is open; otherwise open only if more steps remain than are open, the
    depth is below ``max_depth`` and a uniform draw exceeds 0.5. The uniform is drawn only when
    the first two conditions hold: that short-circuit is part of the reference RNG stream.

    Speed: instead of one ``rng.random()`` call per step, ``length`` uniforms are drawn at once
    (each double consumes exactly one 64-bit output, as a scalar call does), the walk uses
    the first ``k`` of them, and the generator is rewound and advanced by ``k`` outputs. PCG64's
    ``advance`` clears the buffered half-word that bounded-integer draws leave behind, so that
    buffer is put back: the stream afterwards is the scalar-call stream, bit for bit.
    """
    bitgen = rng.bit_generator
    saved = bitgen.state
    uniforms = rng.random(length).tolist()
    used = depth = 0
    for t in range(length):
        if depth == 0:
            opened = True
        elif length - t > depth and depth < max_depth:
            opened = uniforms[used] > 0.5
            used += 1
        else:
            opened = False
        if opened:
            out[t] = True
            depth += 1
        else:
            depth -= 1
    bitgen.state = saved
    bitgen.advance(used)
    if saved["has_uint32"]:
        state = bitgen.state
        state["has_uint32"], state["uinteger"] = saved["has_uint32"], saved["uinteger"]
        bitgen.state = state


def _draw_bracket(rng: np.random.Generator, p: Params, n: int) -> Draws:
    L, max_depth = p["sequence_length"], p["max_depth"]
    n_mutated = int(L * MUTATION_FRACTION)
    opens = np.zeros((n, L), dtype=bool)
    for i in range(n):
        row = opens[i]
        _valid_walk(rng, L, max_depth, row)
        if not rng.random() < 0.5:  # mutate: chosen positions become '(' iff a uniform > 0.5
            where = rng.choice(L, n_mutated, replace=False)
            row[where] = rng.random(n_mutated) > 0.5
    return {"opens": opens}


def _fill_bracket(dr: Draws, p: Params, X: np.ndarray, Y: np.ndarray, T: np.ndarray) -> None:
    L = p["sequence_length"]
    opens = dr["opens"]
    rows = np.arange(len(opens))
    put_onehot(X, np.where(opens, 0, 1))
    X[:, L, 2] = 1.0  # marker
    depth = np.cumsum(np.where(opens, 1, -1), axis=1)
    valid = (depth.min(axis=1) >= 0) & (depth[:, -1] == 0)
    Y[rows, L + 1, valid.astype(np.int64)] = 1.0
    T[:] = L + 1


BRACKET_MATCHING = SampleTask(
    "bracket_matching", "classification", _check_bracket, _layout_bracket, _draw_bracket, _fill_bracket,
    "a bracket string (valid, or mutated half of the time); after the marker say if it is balanced",
)
