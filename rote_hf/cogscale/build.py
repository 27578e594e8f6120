"""``build_task``: the reference's nine arrays + category, generated in bounded memory.

Sample tasks draw every sample from one ``numpy.random.default_rng(seed)`` in the reference
order (train, then valid, then test), in chunks: the draws of a chunk are compact index
arrays, which are then written straight into preallocated float64 outputs. The returned
splits are views of one ``[N_total, steps, features]`` array per X/Y/T, as in the reference.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from .checks import as_int
from .presets import DIFFICULTIES, PRESETS
from .registry import Layout, SampleTask, SeriesTask, Task
from .tasks import EXTRA_PARAMS, TASK_REGISTRY

SPLITS = ("train", "valid", "test")
CHUNK_BYTES = 32 * 2**20  # output bytes generated per chunk; bounds temporaries


def get_task(name: str) -> Task:
    """The task called ``name``; ``ValueError`` listing the 14 names otherwise."""
    return TASK_REGISTRY.get(name)


def check_seed(seed: Any) -> int:
    """Seeds must be non-negative ints: ``None`` (fresh entropy) is refused for reproducibility."""
    if seed is None or isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int >= 0, got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed}")
    return int(seed)


def resolve_params(name: str, difficulty: str = "small", **overrides: Any) -> dict[str, Any]:
    """A fresh, checked copy of the preset of (``name``, ``difficulty``) with ``overrides`` merged.

    Never mutates the presets, so an override cannot leak into later calls.
    """
    task = get_task(name)
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {list(DIFFICULTIES)}, got {difficulty!r}")
    params = dict(PRESETS[difficulty][name])
    allowed = list(params) + list(EXTRA_PARAMS.get(name, ()))
    unknown = sorted(set(overrides) - set(allowed))
    if unknown:
        raise TypeError(f"unknown parameter(s) {unknown} for task {name!r}; allowed: {allowed}")
    params.update(overrides)
    if isinstance(task, SampleTask):
        for key in ("n_train", "n_valid", "n_test"):
            params[key] = as_int(key, params[key], minimum=0)
        if params["n_train"] + params["n_valid"] + params["n_test"] < 1:
            raise ValueError("n_train + n_valid + n_test must be >= 1")
    for key, value in params.items():  # normalise ints (e.g. numpy ints) for the generators
        if isinstance(value, np.integer):
            params[key] = int(value)
    task.check(params)
    return params


def split_sizes(params: Mapping[str, Any]) -> dict[str, int]:
    return {s: params[f"n_{s}"] for s in SPLITS}


def layout(name: str, difficulty: str = "small", **params: Any) -> Layout:
    """Per-sample shape of a sample task (``ValueError`` for the forecasting tasks)."""
    task = get_task(name)
    if not isinstance(task, SampleTask):
        raise ValueError(f"task name must be a multi-sample task, not the single-sequence {name!r}")
    return task.layout(resolve_params(name, difficulty, **params))


def _chunk_size(lay: Layout) -> int:
    per_sample = 8 * lay.steps * (lay.n_in + lay.n_out) + 8 * lay.n_pred
    return max(1, min(8192, CHUNK_BYTES // per_sample))


def empty_arrays(n: int, lay: Layout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Zero arrays for ``n`` samples of layout ``lay``: X (n, steps, n_in) and Y (n, steps, n_out)
    float64, T (n, n_pred) int64."""
    return (
        np.zeros((n, lay.steps, lay.n_in)),
        np.zeros((n, lay.steps, lay.n_out)),
        np.zeros((n, lay.n_pred), dtype=np.int64),
    )


def iter_chunks(
    task: SampleTask, params: Mapping[str, Any], seed: int, chunk: int | None = None, only: str | None = None
) -> Iterator[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """``(split, X, Y, T)`` chunks of consecutive samples of the seeded stream, never spanning
    two splits. Each chunk holds at most ``chunk`` samples (default: about 32 MB of output).
    With ``only``, the other splits are drawn (to advance the RNG) but neither encoded nor yielded."""
    lay = task.layout(params)
    chunk = chunk or _chunk_size(lay)
    rng = np.random.default_rng(seed)
    for split, n in split_sizes(params).items():
        for start in range(0, n, chunk):
            m = min(chunk, n - start)
            if only is not None and split != only:
                task.draw(rng, params, m)
                continue
            X, Y, T = empty_arrays(m, lay)
            task.fill(task.draw(rng, params, m), params, X, Y, T)
            yield split, X, Y, T


def build_task(name: str, difficulty: str = "small", seed: int = 0, **params: Any) -> dict[str, Any]:
    """Generate one CogScale task exactly as the reference ``cogscale`` 0.1.x ``build_task``.

    Returns a dict with ``X_train, Y_train, T_train, X_valid, Y_valid, T_valid, X_test, Y_test,
    T_test`` (X, Y float64 ``[batch, time, features]``; T int64 ``[batch, n_pred]``, the scored
    steps) and ``category``. ``params`` override preset parameters (e.g. ``n_train=5``) for this
    call only. ``seed`` must be an int (the reference's ``None`` is not reproducible).
    For cross_situation, ``column_order="alphabetical"`` (default) or ``"legacy"``.
    """
    seed = check_seed(seed)
    task = get_task(name)
    p = resolve_params(name, difficulty, **params)
    if isinstance(task, SeriesTask):
        out: dict[str, Any] = task.series(p)
        out["category"] = task.category
        return out
    lay = task.layout(p)
    sizes = split_sizes(p)
    X, Y, T = empty_arrays(sum(sizes.values()), lay)
    chunk = _chunk_size(lay)
    rng = np.random.default_rng(seed)
    for start in range(0, len(X), chunk):
        stop = min(start + chunk, len(X))
        task.fill(task.draw(rng, p, stop - start), p, X[start:stop], Y[start:stop], T[start:stop])
    out = {}
    start = 0
    for split in SPLITS:
        stop = start + sizes[split]
        out[f"X_{split}"], out[f"Y_{split}"], out[f"T_{split}"] = X[start:stop], Y[start:stop], T[start:stop]
        start = stop
    out["category"] = task.category
    return out
