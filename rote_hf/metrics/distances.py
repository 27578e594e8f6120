"""ROTE's two rollout distances: normalised Damerau-Levenshtein and Jaro-Winkler.

Both follow the ROTE paper (appendix A.2, eqs. 11-15) and its reference implementation
``rote_benchmark.metrics``, value for value:

* ``dl_distance``: optimal string alignment (restricted Damerau-Levenshtein: insert,
  delete, substitute and adjacent transposition all cost 1, no substring edited twice)
  divided by the longer length. rapidfuzz's ``OSA`` computes exactly this (bit-parallel,
  in C++); its unrestricted ``DamerauLevenshtein`` does not and is not used.
* ``jw_distance``: ``1 - (J + l * p * (1 - J))`` with the Jaro similarity ``J`` (match
  radius ``max(len)//2 - 1``, ``floor(t/2)`` transpositions), common prefix ``l`` capped at
  4 and ``p = 0.1``. The Winkler prefix bonus is applied at **every** Jaro value. The usual
  library Jaro-Winkler (rapidfuzz, jellyfish) adds the bonus only when ``J > 0.7``, so it
  differs from ROTE's whenever ``J <= 0.7`` and the strings share a first symbol; we take
  rapidfuzz's Jaro (which agrees with the reference bit for bit) and add the bonus ourselves.

Identical strings (two empty ones included) have distance 0; exactly one empty string
has distance 1. Strings may be ``str`` or lists/tuples of hashable symbols.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rapidfuzz.distance import OSA, Jaro
from rapidfuzz.process import cpdist

from rote_hf.metrics._checks import (
    Symbols, as_rows, check_lengths, check_max_length, check_same_length, check_symbols,
)

WINKLER_PREFIX_CAP = 4
"""Longest common prefix that earns the Winkler bonus (paper: l <= 4)."""

WINKLER_P = 0.1
"""The standard prefix scaling factor (paper: rho = 0.1)."""


def _check_p(p: float) -> float:
    # p * 4 <= 1 keeps the similarity in [0, 1]; the paper and reference use 0.1.
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= float(p) <= 0.25:
        raise ValueError(f"p must be a number in [0, 0.25] (the paper uses 0.1), got {p!r}")
    return float(p)


def common_prefix_length(a: Symbols, b: Symbols, cap: int = WINKLER_PREFIX_CAP) -> int:
    """Number of equal leading symbols of ``a`` and ``b``, at most ``cap``."""
    n = 0
    for left, right in zip(a[:cap], b[:cap]):
        if left != right:
            break
        n += 1
    return n


def dl_distance(a: Symbols, b: Symbols) -> float:
    """Restricted Damerau-Levenshtein (OSA) edits between ``a`` and ``b`` / max length.

    In [0, 1]; symmetric. ``dl_distance("AB", "BA") == 0.5`` (one transposition).
    """
    a = check_symbols(a, "a")
    b = check_symbols(b, "b")
    return float(OSA.normalized_distance(a, b))


def jaro_similarity(a: Symbols, b: Symbols) -> float:
    """Jaro similarity (paper eq. 13): 0 when nothing matches, 1 for identical strings."""
    a = check_symbols(a, "a")
    b = check_symbols(b, "b")
    return float(Jaro.similarity(a, b))


def jw_distance(a: Symbols, b: Symbols, p: float = WINKLER_P) -> float:
    """ROTE's Jaro-Winkler distance ``1 - S_JW`` (paper eqs. 13-15), no 0.7 threshold.

    ``jw_distance("martha", "marhta") == 0.03888888888888886``;
    ``jw_distance("AB", "BA") == 1.0`` (match radius 0 at length 2).
    """
    p = _check_p(p)
    a = check_symbols(a, "a")
    b = check_symbols(b, "b")
    jaro = Jaro.similarity(a, b)
    prefix = common_prefix_length(a, b)
    return 1 - (jaro + prefix * p * (1 - jaro))


def as_pairs(
    predictions: Sequence[Symbols], references: Sequence[Symbols], max_length: int | None = None
) -> tuple[list, list]:
    """Validated (predictions, references) lists of symbol strings with equal, non-zero length,
    none longer than ``max_length`` symbols (``None``: no limit)."""
    max_length = check_max_length(max_length)
    preds = as_rows(predictions, "predictions")
    refs = as_rows(references, "references")
    check_same_length({"predictions": preds, "references": refs})
    preds = [check_symbols(x, "predictions", i) for i, x in enumerate(preds)]
    refs = [check_symbols(x, "references", i) for i, x in enumerate(refs)]
    check_lengths(preds, "predictions", max_length)
    check_lengths(refs, "references", max_length)
    return preds, refs


def dl_distances(
    predictions: Sequence[Symbols], references: Sequence[Symbols], max_length: int | None = None
) -> np.ndarray:
    """``dl_distance`` for every (prediction, reference) pair: float64 array of shape [N].

    One call into rapidfuzz for the whole batch (about 1 microsecond per pair of length
    100, see ``benchmarks/metrics_speed.md``). The time grows with the product of the two
    lengths (``benchmarks/metrics_long_inputs.md``);
    ``max_length`` (default ``None``: no limit) refuses longer rows with a ``ValueError``.
    """
    preds, refs = as_pairs(predictions, references, max_length)
    return cpdist(refs, preds, scorer=OSA.normalized_distance, dtype=np.float64, workers=1)


def jw_distances(
    predictions: Sequence[Symbols], references: Sequence[Symbols], p: float = WINKLER_P,
    max_length: int | None = None,
) -> np.ndarray:
    """``jw_distance`` for every (prediction, reference) pair: float64 array of shape [N];
    ``max_length`` as for :func:`dl_distances`."""
    p = _check_p(p)
    preds, refs = as_pairs(predictions, references, max_length)
    jaro = cpdist(refs, preds, scorer=Jaro.similarity, dtype=np.float64, workers=1)
    prefix = np.fromiter(
        (common_prefix_length(r, f) for r, f in zip(refs, preds)), dtype=np.float64, count=len(refs)
    )
    # Same operation order as the scalar formula, so batch and scalar agree bit for bit.
    return 1 - (jaro + prefix * p * (1 - jaro))
