"""Memory tasks: discrete/continuous postcasting, simple copy and selective copy (docs/cogscale.md)."""

from __future__ import annotations

import numpy as np

from .checks import as_int, require
from .encode import put_onehot
from .registry import Draws, Layout, Params, SampleTask


# -- discrete_postcasting: Y[t] = X[t - delay] over K one-hot symbols ---------------------------

def _check_postcasting(p: Params) -> None:
    length = as_int("sequence_length", p["sequence_length"], minimum=2)
    delay = as_int("delay", p["delay"], minimum=1)
    require(delay < length, f"delay must be < sequence_length ({length}), got {delay}")
    if "n_symbols" in p:
        as_int("n_symbols", p["n_symbols"], minimum=1)


def _layout_discrete_post(p: Params) -> Layout:
    L, d, K = p["sequence_length"], p["delay"], p["n_symbols"]
    return Layout(L, K, K, L - d)


def _draw_discrete_post(rng: np.random.Generator, p: Params, n: int) -> Draws:
    # One call per sample in the reference; a batched call yields the same integers.
    return {"seq": rng.integers(0, p["n_symbols"], size=(n, p["sequence_length"]))}


def _fill_discrete_post(dr: Draws, p: Params, X: np.ndarray, Y: np.ndarray, T: np.ndarray) -> None:
    L, d = p["sequence_length"], p["delay"]
    put_onehot(X, dr["seq"])
    Y[:, d:, :] = X[:, : L - d, :]
    T[:] = np.arange(d, L)


DISCRETE_POSTCASTING = SampleTask(
    "discrete_postcasting", "classification", _check_postcasting, _layout_discrete_post,
    _draw_discrete_post, _fill_discrete_post,
    "reproduce the one-hot input seen `delay` steps earlier, at every step from `delay` on",
)


# -- continuous_postcasting: same with uniform(-0.8, 0.8) scalars --------------------------------

def _layout_cont_post(p: Params) -> Layout:
    L, d = p["sequence_length"], p["delay"]
    return Layout(L, 1, 1, L - d)


def _draw_cont_post(rng: np.random.Generator, p: Params, n: int) -> Draws:
    return {"values": rng.uniform(-0.8, 0.8, size=(n, p["sequence_length"]))}


def _fill_cont_post(dr: Draws, p: Params, X: np.ndarray, Y: np.ndarray, T: np.ndarray) -> None:
    L, d = p["sequence_length"], p["delay"]
    X[:, :, 0] = dr["values"]
    Y[:, d:, 0] = dr["values"][:, : L - d]
    T[:] = np.arange(d, L)


CONTINUOUS_POSTCASTING = SampleTask(
    "continuous_postcasting", "regression", _check_postcasting, _layout_cont_post,
    _draw_cont_post, _fill_cont_post,
    "reproduce the real-valued input seen `delay` steps earlier",
)


# -- simple_copy: read L symbols, wait `delay`, trigger, write them back --------------------------

def _check_simple_copy(p: Params) -> None:
    as_int("sequence_length", p["sequence_length"], minimum=1)
    as_int("delay", p["delay"], minimum=0)
    as_int("n_symbols", p["n_symbols"], minimum=1)


def _layout_simple_copy(p: Params) -> Layout:
    L, d, K = p["sequence_length"], p["delay"], p["n_symbols"]
    return Layout(2 * L + d + 1, K + 1, K, L)


def _draw_simple_copy(rng: np.random.Generator, p: Params, n: int) -> Draws:
    return {"seq": rng.integers(0, p["n_symbols"], size=(n, p["sequence_length"]))}


def _fill_simple_copy(dr: Draws, p: Params, X: np.ndarray, Y: np.ndarray, T: np.ndarray) -> None:
    L, d, K = p["sequence_length"], p["delay"], p["n_symbols"]
    put_onehot(X, dr["seq"])
    X[:, L + d, K] = 1.0  # trigger
    put_onehot(Y, dr["seq"], start=L + d + 1)
    T[:] = np.arange(L + d + 1, 2 * L + d + 1)


SIMPLE_COPY = SampleTask(
    "simple_copy", "classification", _check_simple_copy, _layout_simple_copy,
    _draw_simple_copy, _fill_simple_copy,
    "read L symbols, stay silent `delay` steps, then on the trigger write the L symbols back",
)


# -- selective_copy: copy back only the marked symbols ----------------------------------------------

def _check_selective_copy(p: Params) -> None:
    L = as_int("sequence_length", p["sequence_length"], minimum=1)
    as_int("delay", p["delay"], minimum=0)
    as_int("n_symbols", p["n_symbols"], minimum=1)
    m = as_int("n_markers", p["n_markers"], minimum=1)
    require(m <= L, f"n_markers must be <= sequence_length ({L}), got {m}")


def _layout_selective_copy(p: Params) -> Layout:
    L, d, m, K = p["sequence_length"], p["delay"], p["n_markers"], p["n_symbols"]
    return Layout(L + d + 1 + m, K + 2, K, m)


def _draw_selective_copy(rng: np.random.Generator, p: Params, n: int) -> Draws:
    L, m, K = p["sequence_length"], p["n_markers"], p["n_symbols"]
    seq = np.empty((n, L), dtype=np.int64)
    marks = np.empty((n, m), dtype=np.int64)
    for i in range(n):  # per-sample order: symbols, then marker positions
        seq[i] = rng.integers(0, K, size=L)
        marks[i] = rng.choice(L, m, replace=False)
    marks.sort(axis=1)
    return {"seq": seq, "marks": marks}


def _fill_selective_copy(dr: Draws, p: Params, X: np.ndarray, Y: np.ndarray, T: np.ndarray) -> None:
    L, d, m, K = p["sequence_length"], p["delay"], p["n_markers"], p["n_symbols"]
    seq, marks = dr["seq"], dr["marks"]
    rows = np.arange(len(seq))[:, None]
    put_onehot(X, seq)
    X[rows, marks, K] = 1.0  # marker flag
    X[:, L + d, K + 1] = 1.0  # trigger
    put_onehot(Y, np.take_along_axis(seq, marks, axis=1), start=L + d + 1)
    T[:] = np.arange(L + d + 1, L + d + 1 + m)


SELECTIVE_COPY = SampleTask(
    "selective_copy", "classification", _check_selective_copy, _layout_selective_copy,
    _draw_selective_copy, _fill_selective_copy,
    "read L symbols, n_markers of them flagged; after the trigger write the flagged ones in order",
)
