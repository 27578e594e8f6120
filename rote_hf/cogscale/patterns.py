"""Pattern and retrieval tasks: pattern completion, induction heads, associative recall
(docs/cogscale.md)."""

from __future__ import annotations

import numpy as np

from .checks import as_int, as_ratio, require
from .encode import put_onehot
from .registry import Draws, Layout, Params, SampleTask


# -- pattern completion: a base pattern tiled to length L, 20 % of the steps masked ---------------

def _n_masked(p: Params) -> int:
    return int(p["sequence_length"] * p["mask_ratio"])


def _check_pattern(p: Params) -> None:
    as_int("sequence_length", p["sequence_length"], minimum=1)
    as_int("base_length", p["base_length"], minimum=1)
    as_ratio("mask_ratio", p["mask_ratio"])
    if "n_symbols" in p:
        as_int("n_symbols", p["n_symbols"], minimum=1)


def _draw_pattern(rng: np.random.Generator, p: Params, n: int, *, discrete: bool) -> Draws:
    L, B, m = p["sequence_length"], p["base_length"], _n_masked(p)
    base = np.empty((n, B), dtype=np.int64 if discrete else np.float64)
    mask = np.empty((n, m), dtype=np.int64)
    for i in range(n):  # per-sample order: base pattern, then masked positions (kept unsorted)
        base[i] = rng.integers(0, p["n_symbols"], size=B) if discrete else rng.uniform(0, 1, size=B)
        mask[i] = rng.choice(L, m, replace=False)
    return {"base": base, "mask": mask}


def _tiled(base: np.ndarray, length: int) -> np.ndarray:
    """``[n, B]`` base patterns repeated to ``[n, length]``."""
    return base[:, np.arange(length) % base.shape[1]]


def _layout_dpc(p: Params) -> Layout:
    K = p["n_symbols"]
    return Layout(p["sequence_length"], K + 1, K, _n_masked(p))


def _fill_dpc(dr: Draws, p: Params, X: np.ndarray, Y: np.ndarray, T: np.ndarray) -> None:
    K, L = p["n_symbols"], p["sequence_length"]
    seq = _tiled(dr["base"], L)
    masked = seq.copy()
    np.put_along_axis(masked, dr["mask"], K, axis=1)  # mask token K
    put_onehot(X, masked)
    put_onehot(Y, seq)  # the full sequence at every step, scored only at T
    T[:] = dr["mask"]


DISCRETE_PATTERN_COMPLETION = SampleTask(
    "discrete_pattern_completion", "classification", _check_pattern, _layout_dpc,
    lambda rng, p, n: _draw_pattern(rng, p, n, discrete=True), _fill_dpc,
    "a random pattern of base_length symbols repeats; masked steps must be filled in",
)


def _layout_cpc(p: Params) -> Layout:
    return Layout(p["sequence_length"], 1, 1, _n_masked(p))


def _fill_cpc(dr: Draws, p: Params, X: np.ndarray, Y: np.ndarray, T: np.ndarray) -> None:
    seq = _tiled(dr["base"], p["sequence_length"])
    Y[:, :, 0] = seq
    np.put_along_axis(seq, dr["mask"], -1.0, axis=1)  # masked values read -1
    X[:, :, 0] = seq
    T[:] = dr["mask"]


CONTINUOUS_PATTERN_COMPLETION = SampleTask(
    "continuous_pattern_completion", "regression", _check_pattern, _layout_cpc,
    lambda rng, p, n: _draw_pattern(rng, p, n, discrete=False), _fill_cpc,
    "a random real-valued pattern repeats; masked steps (shown as -1) must be filled in",
)


# -- induction_heads: a random half repeated; predict the next token in the second half ----------

def _check_induction(p: Params) -> None:
    L = as_int("sequence_length", p["sequence_length"], minimum=2)
    require(L % 2 == 0, f"sequence_length must be even for induction_heads, got {L}")
    as_int("n_symbols", p["n_symbols"], minimum=1)


def _layout_induction(p: Params) -> Layout:
    L, K = p["sequence_length"], p["n_symbols"]
    return Layout(L, K, K, L // 2 - 1)


def _draw_induction(rng: np.random.Generator, p: Params, n: int) -> Draws:
    return {"half": rng.integers(0, p["n_symbols"], size=(n, p["sequence_length"] // 2))}


def _fill_induction(dr: Draws, p: Params, X: np.ndarray, Y: np.ndarray, T: np.ndarray) -> None:
    half = dr["half"]
    h = half.shape[1]
    put_onehot(X, np.concatenate([half, half], axis=1))
    # Y[t] = token t+1 for t in [h, 2h-1); token t+1 of the second half is half[t+1-h]
    put_onehot(Y, half[:, 1:], start=h)
    T[:] = np.arange(h, 2 * h - 1)


INDUCTION_HEADS = SampleTask(
    "induction_heads", "classification", _check_induction, _layout_induction,
    _draw_induction, _fill_induction,
    "the first half repeats; in the second half predict the next token",
)


# -- associative_recall: key/value pairs, distractors, SEP, a query key -> its value -------------

def _check_recall(p: Params) -> None:
    L = as_int("sequence_length", p["sequence_length"], minimum=1)
    P = as_int("num_pairs", p["num_pairs"], minimum=1)
    K = as_int("n_symbols", p["n_symbols"], minimum=3)
    require(L >= 2 * P + 2, f"sequence_length must be >= 2*num_pairs+2 = {2 * P + 2}, got {L}")
    require(K - 2 >= P, f"n_symbols must be >= num_pairs+2 = {P + 2} (keys are distinct), got {K}")


def _layout_recall(p: Params) -> Layout:
    L, K = p["sequence_length"], p["n_symbols"]
    return Layout(L, K, K, 1)


def _draw_recall(rng: np.random.Generator, p: Params, n: int) -> Draws:
    L, P, K = p["sequence_length"], p["num_pairs"], p["n_symbols"]
    V, n_distract = K - 2, L - 2 * P - 2
    keys = np.empty((n, P), dtype=np.int64)
    values = np.empty((n, P), dtype=np.int64)
    distract = np.empty((n, n_distract), dtype=np.int64)
    query = np.empty(n, dtype=np.int64)
    for i in range(n):  # per-sample order: keys, values, distractors (if any), query
        keys[i] = rng.choice(V, size=P, replace=False)
        values[i] = rng.integers(0, V, size=P)
        if n_distract > 0:
            distract[i] = rng.integers(0, V, size=n_distract)
        query[i] = rng.integers(0, P)
    return {"keys": keys, "values": values, "distract": distract, "query": query}


def _fill_recall(dr: Draws, p: Params, X: np.ndarray, Y: np.ndarray, T: np.ndarray) -> None:
    L, K = p["sequence_length"], p["n_symbols"]
    keys, values, query = dr["keys"], dr["values"], dr["query"]
    n, P = keys.shape
    rows = np.arange(n)
    pairs = np.stack([keys, values], axis=2).reshape(n, 2 * P)
    tail = np.stack([np.full(n, K - 1), keys[rows, query]], axis=1)  # SEP, queried key
    put_onehot(X, np.concatenate([pairs, dr["distract"], tail], axis=1))
    Y[rows, L - 1, values[rows, query]] = 1.0
    T[:] = L - 1


ASSOCIATIVE_RECALL = SampleTask(
    "associative_recall", "classification", _check_recall, _layout_recall,
    _draw_recall, _fill_recall,
    "key/value pairs, distractors, SEP and a query key; answer the key's value on the query step",
)
