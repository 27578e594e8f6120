"""No metric input yields a better score than the truth (issue 12, item 17).

Non-finite predictions are refused with an error naming the row; time steps are indices
0..L-1 (negative or repeated steps refused); loose term strings are refused.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rote_hf.metrics import confabulation, cogscale_score, exact_rollout

Y = [[[0.0, 1.0], [1.0, 0.0]]]  # one sample, two steps, two classes


@pytest.mark.parametrize("category", ["classification", "multi_classification", "regression"])
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_predictions_are_refused(category, bad):
    preds = [[[bad, bad], [bad, bad]]]
    with pytest.raises(ValueError, match=r"predictions\[0\] must be finite at every scored step"):
        cogscale_score(preds, Y, category, [[0, 1]])
    with pytest.raises(ValueError, match=r"predictions\[0\] must be finite"):
        cogscale_score(np.array(preds), np.array(Y), category, [[0, 1]])
    with pytest.raises(ValueError, match=r"predictions\[0\] must be finite"):  # the -100 mask form
        cogscale_score(preds, Y, category)


def test_nan_used_to_score_perfectly_and_now_scores_nothing():
    # what the issue saw: all-NaN logits "predicted" class 0 at every step, a perfect 0.0 on these targets
    y = [[[1.0, 0.0], [1.0, 0.0]]]
    with pytest.raises(ValueError, match="finite"):
        cogscale_score([[[math.nan, math.nan]] * 2], y, "classification", [[0, 1]])
    # the truth itself still scores 0.0; a wrong answer scores worse
    assert cogscale_score(y, y, "classification", [[0, 1]])["score"] == 0.0
    assert cogscale_score([[[0.0, 1.0]] * 2], y, "classification", [[0, 1]])["score"] == 1.0


def test_non_finite_outside_scored_steps_is_ignored():
    preds = [[[0.0, 1.0], [math.nan, math.nan]]]  # step 1 is not scored
    assert cogscale_score(preds, Y, "classification", [[0]])["score"] == 0.0


def test_non_finite_references_are_refused():
    with pytest.raises(ValueError, match=r"references\[0\] must be finite"):
        cogscale_score([[[0.0, 1.0], [1.0, 0.0]]], [[[math.nan, 1.0], [1.0, 0.0]]], "regression", [[0, 1]])


@pytest.mark.parametrize("steps", [[-1], [-2], [-3], [0, -1]])
def test_negative_steps_are_refused_one_way(steps):
    with pytest.raises(ValueError, match=r"prediction_timesteps\[0\] must index the 2 time steps .*0\.\.1"):
        cogscale_score(Y, Y, "classification", [steps])


def test_repeated_steps_are_refused():
    # repeating the one right step would dilute the wrong one: 0.5 -> 0.25
    preds = [[[0.0, 1.0], [0.0, 1.0]]]
    assert cogscale_score(preds, Y, "classification", [[0, 1]])["score"] == 0.5
    with pytest.raises(ValueError, match=r"prediction_timesteps\[0\] must not repeat a time step"):
        cogscale_score(preds, Y, "classification", [[0, 0, 0, 1]])


@pytest.mark.parametrize("term", ["1_000", "٣", "+5", "1e3", " 12\n3"])
def test_confabulation_refuses_loose_term_strings(term):
    with pytest.raises(TypeError, match=r"references\[0\] must hold integers"):
        confabulation([[1]], [[term]], [5], [False], [None])


def test_confabulation_reads_plain_decimal_strings():
    out = confabulation([[1000, -2]], [["1000", " -2 "]], [5], [False], [None])
    assert out["accuracy"] == 1.0


def test_exact_rollout_an_overlong_forecast_is_not_exact():
    out = exact_rollout(["ABCD"], ["ABC"], return_per_row=True)
    assert out["exact_match"] == 0.0 and out["dl_distance"] == 0.25
    truth = exact_rollout(["ABC"], ["ABC"])
    assert truth["exact_match"] == 1.0 and truth["dl_distance"] == 0.0


@pytest.mark.parametrize("symbols", [[math.nan, 1.0], [1.0, math.inf]])
def test_rollout_refuses_non_finite_symbols(symbols):
    with pytest.raises(ValueError, match=r"predictions\[0\] must not hold NaN or infinite symbols"):
        exact_rollout([symbols], [[1.0, 1.0]])


def test_evaluate_module_refuses_nan_too(tmp_path):
    import evaluate

    from rote_hf.hub.metric_repos import build_metric_repo

    build_metric_repo(tmp_path, "cogscale_score")  # the module as published, with its generated siblings
    metric = evaluate.load(str(tmp_path / "rote" / "cogscale_score"))
    y = [[[1.0, 0.0], [1.0, 0.0]]]
    with pytest.raises(ValueError, match="finite"):
        metric.compute(predictions=[[[math.nan, math.nan]] * 2], references=y, prediction_timesteps=[[0, 1]],
                       category="classification")
    assert metric.compute(predictions=y, references=y, prediction_timesteps=[[0, 1]],
                          category="classification")["cogscale_score"] == 0.0
