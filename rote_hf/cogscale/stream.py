"""An unbounded stream of fresh samples: sample ``i`` depends only on ``(seed, i)``.

Sample ``i`` is drawn from ``default_rng(SeedSequence(seed, spawn_key=(i,)))``, i.e. the
``i``-th child of ``SeedSequence(seed).spawn``, with the task's per-sample draw order. The
stream is independent of the fixed splits of :func:`build_task` (which share one RNG stream),
so it gives the paper's "infinite data" regime; any slice can be regenerated on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from .build import check_seed, empty_arrays, get_task, resolve_params
from .checks import as_int
from .registry import SampleTask


def sample_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of stream sample ``index`` for ``seed``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))


def stream_samples(
    name: str, difficulty: str = "small", seed: int = 0, *, start: int = 0, stop: int | None = None, **params: Any
) -> Iterator[dict[str, Any]]:
    """Yield ``{"index", "inputs" [steps, n_in], "targets" [steps, n_out], "timesteps" [n_pred]}``
    for samples ``start, start+1, ...`` (forever when ``stop`` is None).

    The forecasting tasks are single deterministic series, so they have no stream
    (``ValueError``). Split sizes in ``params`` are ignored.
    """
    seed = check_seed(seed)
    task = get_task(name)
    if not isinstance(task, SampleTask):
        raise ValueError(f"task name must be a multi-sample task for streaming; {name!r} is one deterministic series")
    start = as_int("start", start, minimum=0)
    if stop is not None:
        stop = as_int("stop", stop, minimum=start)
    p = resolve_params(name, difficulty, **params)
    lay = task.layout(p)
    i = start
    while stop is None or i < stop:
        X, Y, T = empty_arrays(1, lay)
        task.fill(task.draw(sample_rng(seed, i), p, 1), p, X, Y, T)
        yield {"index": i, "inputs": X[0], "targets": Y[0], "timesteps": T[0]}
        i += 1
