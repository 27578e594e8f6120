"""Closed-loop rollout scores (ROTE paper §3.3, Table 2 and Figure 2).

A rollout row is a forecast string produced greedily from the model's own outputs and the
withheld target string of the same horizon ``k``. Per row we compute

* ``exact``: forecast == target (the paper's "exact 100-step rollout rate" averages it);
* ``dl`` / ``jw``: the two normalised distances of :mod:`rote_hf.metrics.distances`,
  called as (target, forecast) like the reference;
* ``first_error_step``: the 1-based step ``j`` of the first position where the forecast
  differs from the target (or is missing), in ``1 .. len(target)``; an exact row has no
  error within the horizon and gets ``len(target) + 1``, so the mean over rows equals
  ``1 + sum_j Pr(E_j)`` with ``E_j`` = "first j symbols right" (paper eq. 9);
* the cumulative error curve of Figure 2: at horizon ``h`` the mismatches over positions
  ``1..h`` divided by ``h`` (Hamming-style, not DL), averaged over the rows that reach
  ``h``; as in the reference plot, a row reaches ``h`` when ``h <= min(len(target),
  len(forecast))`` and rows with an empty side are left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rote_hf.metrics._checks import Symbols
from rote_hf.metrics.distances import as_pairs, dl_distances, jw_distances


def first_error_step(forecast: Symbols, target: Symbols) -> int:
    """1-based step of the first wrong or missing forecast symbol; ``len(target)+1`` if none."""
    for j, want in enumerate(target):
        if j >= len(forecast) or forecast[j] != want:
            return j + 1
    return len(target) + 1


def cumulative_errors(forecast: Symbols, target: Symbols) -> np.ndarray:
    """Figure 2's curve for one row: float64 [h_max], entry h-1 = mismatches in 1..h / h."""
    h_max = min(len(forecast), len(target))
    misses = np.fromiter((forecast[i] != target[i] for i in range(h_max)), dtype=np.float64, count=h_max)
    return np.cumsum(misses) / np.arange(1, h_max + 1)


def cumulative_error_curve(predictions: Sequence[Symbols], references: Sequence[Symbols]) -> list[float]:
    """Mean cumulative rollout error at each horizon 1..H (Figure 2), H = longest reach.

    Entry ``h-1`` averages the rows that reach ``h`` (see the module docstring).
    """
    preds, refs = as_pairs(predictions, references)
    h_max = max(min(len(f), len(t)) for f, t in zip(preds, refs))
    total = np.zeros(h_max)
    count = np.zeros(h_max)
    for f, t in zip(preds, refs):
        row = cumulative_errors(f, t)
        total[: len(row)] += row
        count[: len(row)] += 1
    with np.errstate(invalid="ignore"):
        return (total / count).tolist()


def exact_rollout(
    predictions: Sequence[Symbols],
    references: Sequence[Symbols],
    *,
    return_per_row: bool = False,
    return_curve: bool = False,
) -> dict[str, object]:
    """Rollout summary over N (forecast, target) rows.

    Returns floats ``exact_match`` (fraction of rows with forecast == target),
    ``dl_distance`` and ``jw_distance`` (means), ``mean_first_error_step`` (censored at
    ``len(target)+1`` for exact rows), ``mean_first_error_step_given_error`` (over rows
    with an error; NaN when every row is exact) and ``cumulative_error`` (the Figure 2
    curve at its last horizon). ``return_curve=True`` adds ``cumulative_error_curve``
    (list, one value per horizon); ``return_per_row=True`` adds the lists ``exact``,
    ``dl_distances``, ``jw_distances`` and ``first_error_steps``.
    """
    preds, refs = as_pairs(predictions, references)
    exact = np.array([f == t for f, t in zip(preds, refs)], dtype=bool)
    dl = dl_distances(preds, refs)
    jw = jw_distances(preds, refs)
    steps = np.array([first_error_step(f, t) for f, t in zip(preds, refs)], dtype=np.int64)
    curve = cumulative_error_curve(preds, refs)  # [] when no row has a non-empty pair
    failed = steps[~exact]
    out: dict[str, object] = {
        "exact_match": float(exact.mean()),
        "dl_distance": float(dl.mean()),
        "jw_distance": float(jw.mean()),
        "mean_first_error_step": float(steps.mean()),
        "mean_first_error_step_given_error": float(failed.mean()) if failed.size else float("nan"),
        "cumulative_error": float(curve[-1]) if curve else float("nan"),
    }
    if return_curve:
        out["cumulative_error_curve"] = curve
    if return_per_row:
        out["exact"] = exact.tolist()
        out["dl_distances"] = dl.tolist()
        out["jw_distances"] = jw.tolist()
        out["first_error_steps"] = steps.tolist()
    return out
