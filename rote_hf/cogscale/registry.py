"""The task registry: what every CogScale task must provide to be built, streamed or stored.

Two kinds of task exist. *Sample tasks* (12 of them) draw independent samples one after
another from a single ``numpy.random.Generator``; they are described by four pure functions
(check, layout, draw, fill) so that generation can run in bounded-memory chunks. *Series
tasks* (the two forecasting tasks) are one deterministic sequence cut into nested prefixes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

Params = Mapping[str, Any]
Draws = dict[str, np.ndarray]

CATEGORIES = ("classification", "regression", "multi_classification")


@dataclass(frozen=True)
class Layout:
    """Shape of one sample: ``steps`` time steps, ``n_in`` input and ``n_out`` target features,
    ``n_pred`` scored time steps (the length of its T row)."""

    steps: int
    n_in: int
    n_out: int
    n_pred: int


@dataclass(frozen=True)
class SampleTask:
    """A task made of independent samples.

    - ``check(params)`` raises ``ValueError``/``TypeError`` on inconsistent parameters;
    - ``layout(params)`` gives the per-sample :class:`Layout`;
    - ``draw(rng, params, n)`` makes the RNG draws of ``n`` consecutive samples, in the
      reference order, as compact integer/float arrays (leading axis = sample);
    - ``fill(draws, params, X, Y, T)`` writes those samples into zero-initialised arrays
      ``X [n, steps, n_in]``, ``Y [n, steps, n_out]`` (float64) and ``T [n, n_pred]`` (int64).
    """

    name: str
    category: str
    check: Callable[[Params], None]
    layout: Callable[[Params], Layout]
    draw: Callable[[np.random.Generator, Params, int], Draws]
    fill: Callable[[Draws, Params, np.ndarray, np.ndarray, np.ndarray], None]
    summary: str = ""


@dataclass(frozen=True)
class SeriesTask:
    """A single deterministic sequence (no RNG): ``series(params)`` returns the nine arrays."""

    name: str
    category: str
    check: Callable[[Params], None]
    series: Callable[[Params], dict[str, np.ndarray]]
    summary: str = ""


Task = SampleTask | SeriesTask
