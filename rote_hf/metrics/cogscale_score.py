"""CogScale's task score (paper §3.1; ``cogscale.compute_score``; docs/metrics.md).

Predictions ``Y_hat`` and targets ``Y`` have shape [B, L, O] (per sample: L time steps, O
outputs). Only the prediction timesteps are scored: ``T[i]`` lists the steps of sample ``i``
(CogScale up to 0.1.x / GitHub HEAD). CogScale 0.2.0 dropped ``T`` and marks every
unscored step of ``Y`` with -100 instead; pass ``prediction_timesteps=None`` (or ``None``
for one row) to select the steps whose target is not entirely -100, as 0.2.0 does.

Time steps are indices ``0..L-1`` of the sample, each at most once: negative steps (which
NumPy would read from the end) and repeated steps (which would weigh one answer several
times) are refused with a ``ValueError``. Predictions and targets must be finite at every
scored step: NaN or infinite values are refused, never scored (NaN logits would otherwise
argmax to class 0 and could score a perfect 0.0).

The gathered steps are scored by category (lower is better for all three):

* ``classification``: error rate ``1 - mean(argmax(Y_hat) == argmax(Y))`` over all scored
  steps (``Y_hat`` may be logits or probabilities);
* ``multi_classification``: ``Y_hat`` are logits; ``sigmoid(Y_hat) >= threshold`` is
  compared label-wise with ``Y`` -- the Hamming (label-wise) error, not exact match;
* ``regression``: mean squared error over all scored steps and outputs.

Exactly like the reference, lists are cast to float32 and NumPy arrays keep their dtype,
and the float arithmetic is done in that dtype, so the scores agree bit for bit.
The reference divides the classification count by ``B * len(T[0])``; we divide by the
number of gathered steps, which is the same number whenever every sample has as many
timesteps as the first (always true for CogScale tasks).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from rote_hf.metrics._checks import as_rows, check_finite, check_same_length

MASK_VALUE = -100.0
"""CogScale 0.2.0's marker for unscored target steps."""


def _classification(preds: np.ndarray, truths: np.ndarray, threshold: float) -> float:
    right = np.sum(np.argmax(preds, axis=-1) == np.argmax(truths, axis=-1))
    return float(1 - right / truths.shape[0])


def _multi_classification(preds: np.ndarray, truths: np.ndarray, threshold: float) -> float:
    # sigmoid in the input dtype, as the reference does (large negative logits overflow
    # exp harmlessly to inf -> probability 0).
    with np.errstate(over="ignore"):
        probs = 1 / (1 + np.exp(-preds))
    return float(1 - np.mean((probs >= threshold).astype(int) == truths))


def _regression(preds: np.ndarray, truths: np.ndarray, threshold: float) -> float:
    return float(np.mean((preds - truths) ** 2))


CATEGORIES: dict[str, Callable[[np.ndarray, np.ndarray, float], float]] = {
    "classification": _classification,
    "multi_classification": _multi_classification,
    "regression": _regression,
}
"""Registry: CogScale task category -> score over gathered [N, O] predictions and targets."""


def _as_array(x: Any, dtype: Any, name: str, row: int) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=dtype)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name}[{row}] must be a [L, O] array of numbers: {err}") from None
    if arr.ndim != 2:
        raise ValueError(f"{name}[{row}] must have shape [L, O] (time steps x outputs), got shape {arr.shape}")
    return arr


def _steps(t: Any, y: np.ndarray, row: int) -> np.ndarray:
    if t is None:
        return np.flatnonzero(np.any(y != MASK_VALUE, axis=-1))
    steps = np.asarray(t)
    if steps.ndim == 1 and steps.size == 0:
        return np.zeros(0, dtype=np.intp)
    if steps.ndim != 1 or not np.issubdtype(steps.dtype, np.integer):
        raise TypeError(f"prediction_timesteps[{row}] must be a list of integer time steps, got {t!r}")
    if steps.min() < 0 or steps.max() >= y.shape[0]:
        raise ValueError(
            f"prediction_timesteps[{row}] must index the {y.shape[0]} time steps of the sample as "
            f"0..{y.shape[0] - 1} (negative steps are refused), got {t!r}"
        )
    if np.unique(steps).size != steps.size:  # a repeated step would weigh one answer several times
        raise ValueError(f"prediction_timesteps[{row}] must not repeat a time step, got {t!r}")
    return steps


def gather(
    predictions: Sequence[Any] | np.ndarray,
    references: Sequence[Any] | np.ndarray,
    prediction_timesteps: Sequence[Any] | None = None,
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The scored steps: ``(preds [N, O], truths [N, O], steps per sample)``, in sample order
    and, within a sample, in the order of ``T[i]`` (or ascending for the -100 mask)."""
    both_arrays = isinstance(predictions, np.ndarray) and isinstance(references, np.ndarray)
    preds = as_rows(predictions, "predictions")
    refs = as_rows(references, "references")
    columns = {"predictions": preds, "references": refs}
    if prediction_timesteps is not None:
        columns["prediction_timesteps"] = as_rows(prediction_timesteps, "prediction_timesteps")
    n = check_same_length(columns)
    # Reference rule: if either input is not an ndarray, both become float32.
    p_dtype = predictions.dtype if both_arrays else np.float32
    r_dtype = references.dtype if both_arrays else np.float32
    ts = columns.get("prediction_timesteps", [None] * n)
    out_p, out_r, counts = [], [], []
    for i in range(n):
        y_hat = _as_array(preds[i], p_dtype, "predictions", i)
        y = _as_array(refs[i], r_dtype, "references", i)
        if y_hat.shape != y.shape:
            raise ValueError(f"predictions[{i}] and references[{i}] must have the same shape, got {y_hat.shape} and {y.shape}")
        steps = _steps(ts[i], y, i)
        check_finite(y_hat[steps], "predictions", i, " at every scored step")
        check_finite(y[steps], "references", i, " at every scored step")
        out_p.append(y_hat[steps])
        out_r.append(y[steps])
        counts.append(int(steps.size))
    if not sum(counts):
        raise ValueError("prediction_timesteps (or the -100 mask of references) select no time step to score")
    return np.concatenate(out_p), np.concatenate(out_r), counts


def _check_category(category: Any) -> Callable[[np.ndarray, np.ndarray, float], float]:
    if category not in CATEGORIES:
        raise ValueError(f"category must be one of {sorted(CATEGORIES)}, got {category!r}")
    return CATEGORIES[category]


def _check_threshold(threshold: Any) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be a probability in [0, 1], got {threshold!r}")
    return float(threshold)


def cogscale_score(
    predictions: Sequence[Any] | np.ndarray,
    references: Sequence[Any] | np.ndarray,
    category: str,
    prediction_timesteps: Sequence[Any] | None = None,
    threshold: float = 0.5,
    *,
    return_per_row: bool = False,
) -> dict[str, object]:
    """``{"score": float}`` as CogScale's ``compute_score(Y, Y_hat, T, category, threshold)``.

    Shapes: ``predictions`` and ``references`` [B, L, O] (per-sample lists allowed);
    ``prediction_timesteps`` [B, n_pred] integer steps, or ``None`` for 0.2.0's -100 mask.
    ``return_per_row=True`` adds ``scores``, the same score computed on each sample alone
    (NaN for a sample without scored steps).
    """
    score_fn = _check_category(category)
    threshold = _check_threshold(threshold)
    preds, truths, counts = gather(predictions, references, prediction_timesteps)
    out: dict[str, object] = {"score": score_fn(preds, truths, threshold)}
    if return_per_row:
        bounds = np.cumsum([0, *counts])
        out["scores"] = [
            score_fn(preds[a:b], truths[a:b], threshold) if b > a else float("nan")
            for a, b in zip(bounds[:-1], bounds[1:])
        ]
    return out
