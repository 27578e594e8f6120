"""The two single-sequence forecasting tasks: sinus and Lorenz (docs/cogscale.md). No RNG."""

from __future__ import annotations

import numpy as np

from .checks import as_int, as_ratio, require
from .registry import Params, SeriesTask

LORENZ_SIGMA, LORENZ_RHO, LORENZ_BETA = 10.0, 28.0, 2.667  # beta 2.667, not 8/3, as the reference
LORENZ_DT = 0.01
LORENZ_START = (0.0, 1.0, 1.05)


def _check_forecasting(p: Params) -> None:
    as_int("sequence_length", p["sequence_length"], minimum=1)
    as_int("forecast_length", p["forecast_length"], minimum=1)
    tr, va, te = (as_ratio(k, p[k]) for k in ("training_ratio", "validation_ratio", "testing_ratio"))
    # the reference's exact float test (train + test + valid != 1)
    require(tr + te + va == 1, f"training_ratio + validation_ratio + testing_ratio must be 1, got {tr}, {va}, {te}")


def _split(inputs: np.ndarray, targets: np.ndarray, p: Params) -> dict[str, np.ndarray]:
    """Nested prefixes of one ``[1, L, F]`` sequence; disjoint scored windows (docs/cogscale.md)."""
    L, h = p["sequence_length"], p["forecast_length"]
    train_end = int(L * p["training_ratio"])
    valid_end = int(L * (p["training_ratio"] + p["validation_ratio"]))
    return {
        "X_train": inputs[:, :train_end, :], "Y_train": targets[:, :train_end, :],
        "T_train": np.arange(h, train_end).reshape(1, -1),
        "X_valid": inputs[:, :valid_end, :], "Y_valid": targets[:, :valid_end, :],
        "T_valid": np.arange(train_end, valid_end).reshape(1, -1),
        "X_test": inputs, "Y_test": targets,
        "T_test": np.arange(valid_end, L).reshape(1, -1),
    }


def sinus_signal(n_points: int) -> np.ndarray:
    """``s(t) = sin(2*pi*10*t + sin(2*pi*0.5*t))`` at ``linspace(0, n_points/100, n_points)``, shape [n_points]."""
    t = np.linspace(0, n_points / 100, n_points)
    modulator = np.sin(2 * np.pi * 0.5 * t)
    return np.sin(2 * np.pi * 10 * t + modulator)


def _sinus(p: Params) -> dict[str, np.ndarray]:
    L, h = p["sequence_length"], p["forecast_length"]
    s = sinus_signal(L + h)
    return _split(s[:-h].reshape(1, -1, 1), s[h:].reshape(1, -1, 1), p)


def lorenz_states(n_points: int) -> np.ndarray:
    """Explicit-Euler Lorenz trajectory from (0, 1, 1.05), dt 0.01, each coordinate scaled to
    (v - mean) / (3 std) over the whole trajectory; shape [n_points, 3]."""
    x, y, z = LORENZ_START
    xs, ys, zs = [x], [y], [z]
    for _ in range(n_points - 1):
        dx = LORENZ_SIGMA * (y - x)
        dy = LORENZ_RHO * x - y - x * z
        dz = x * y - LORENZ_BETA * z
        x, y, z = x + dx * LORENZ_DT, y + dy * LORENZ_DT, z + dz * LORENZ_DT
        xs.append(x)
        ys.append(y)
        zs.append(z)
    cols = [np.array(v) for v in (xs, ys, zs)]
    return np.column_stack([(v - np.mean(v)) / (3 * np.std(v)) for v in cols])


def _chaotic(p: Params) -> dict[str, np.ndarray]:
    L, h = p["sequence_length"], p["forecast_length"]
    s = lorenz_states(L + h)
    return _split(s[:-h].reshape(1, -1, 3), s[h:].reshape(1, -1, 3), p)


SINUS_FORECASTING = SeriesTask(
    "sinus_forecasting", "regression", _check_forecasting, _sinus,
    "a frequency-modulated sine; predict the value forecast_length steps ahead",
)
CHAOTIC_FORECASTING = SeriesTask(
    "chaotic_forecasting", "regression", _check_forecasting, _chaotic,
    "a normalised Lorenz trajectory (3 coordinates); predict the state forecast_length steps ahead",
)
