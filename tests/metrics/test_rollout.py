"""exact_rollout: exact rate, distances, first-error step and ROTE's Figure 2 curve."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from rote_benchmark.metrics import normalized_damerau_levenshtein_distance as ref_dl
from rote_benchmark.metrics import normalized_jaro_winkler_distance as ref_jw

from rote_hf.metrics import cumulative_error_curve, exact_rollout, first_error_step


def test_hand_computed_rows():
    out = exact_rollout(["ABCDABCD", "ABCDABDC", "BCDABCDA"], ["ABCDABCD"] * 3, return_per_row=True, return_curve=True)
    assert out["exact"] == [True, False, False]
    assert out["exact_match"] == 1 / 3
    assert out["first_error_steps"] == [9, 7, 1]  # exact row censored at k + 1 = 9
    assert out["mean_first_error_step"] == pytest.approx(17 / 3)
    assert out["mean_first_error_step_given_error"] == 4.0
    assert out["dl_distances"] == [0.0, 0.125, 0.25]  # one transposition = 1 edit; the phase shift = 2 edits
    assert out["dl_distance"] == 0.125
    # Figure 2 curve: row 2 misses at 7, 8; row 3 misses everywhere except never -> all 8
    row2 = [0, 0, 0, 0, 0, 0, 1 / 7, 2 / 8]
    row3 = [1.0] * 8
    assert out["cumulative_error_curve"] == pytest.approx([(a + b) / 3 for a, b in zip(row2, row3)])
    assert out["cumulative_error"] == pytest.approx((0.25 + 1.0) / 3)


def test_distances_match_reference_called_target_first():
    rng = random.Random(3)
    targets = ["".join(rng.choice("ABCD") for _ in range(30)) for _ in range(200)]
    forecasts = [t[:k] + "".join(rng.choice("ABCD") for _ in range(30 - k)) for t, k in zip(targets, (rng.randint(0, 30) for _ in targets))]
    out = exact_rollout(forecasts, targets, return_per_row=True)
    assert out["dl_distances"] == [ref_dl(t, f) for t, f in zip(targets, forecasts)]
    assert out["jw_distances"] == [ref_jw(t, f) for t, f in zip(targets, forecasts)]
    assert out["jw_distance"] == float(np.mean([ref_jw(t, f) for t, f in zip(targets, forecasts)]))


def test_curve_matches_reference_plot_rule_with_ragged_lengths():
    # The reference plot: per row misses over min(len) positions, cumsum / h, mean per step.
    targets = ["ABCD", "ABCD", "AB", "ABC"]
    forecasts = ["ABCC", "XBCD", "AB", ""]
    curve = cumulative_error_curve(forecasts, targets)
    expected = [
        (0 + 1 + 0) / 3,  # h=1: rows 1-3 (row 4 is empty and left out)
        (0 + 0.5 + 0) / 3,
        (0 + 1 / 3) / 2,  # h=3: only rows 1-2 reach it
        (1 / 4 + 1 / 4) / 2,
    ]
    assert curve == pytest.approx(expected)


def test_first_error_step_edges():
    assert first_error_step("ABC", "ABC") == 4
    assert first_error_step("AB", "ABC") == 3  # missing symbol is an error
    assert first_error_step("ABCD", "ABC") == 4  # extra symbols beyond the horizon ignored
    assert first_error_step("", "ABC") == 1
    assert first_error_step("", "") == 1


def test_all_exact_gives_nan_conditional_step():
    out = exact_rollout(["AB", "CD"], ["AB", "CD"])
    assert out["exact_match"] == 1.0 and out["dl_distance"] == 0.0 and out["cumulative_error"] == 0.0
    assert math.isnan(out["mean_first_error_step_given_error"])
    assert set(out) == {
        "exact_match",
        "dl_distance",
        "jw_distance",
        "mean_first_error_step",
        "mean_first_error_step_given_error",
        "cumulative_error",
    }


def test_validation():
    with pytest.raises(ValueError, match="same number of rows, got 1 and 2"):
        exact_rollout(["A"], ["A", "B"])
    with pytest.raises(ValueError, match="must not be empty"):
        exact_rollout([], [])
    with pytest.raises(TypeError, match=r"predictions\[0\] must be a str"):
        exact_rollout([None], ["A"])
