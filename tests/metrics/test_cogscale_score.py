"""cogscale_score against the cogscale package's compute_score and a literal T-gather oracle."""

from __future__ import annotations

import inspect
import warnings

import cogscale
import numpy as np
import pytest

from rote_hf.metrics import cogscale_score

TASKS = ("simple_copy", "associative_recall", "cross_situation", "continuous_postcasting")


# The shared environment may hold cogscale 0.1.x (compute_score takes the timesteps T) or
# 0.2.0 (no T; -100 marks unscored target steps). Compare against whichever is installed.
HEAD_API = "prediction_timesteps" in inspect.signature(cogscale.compute_score).parameters


@pytest.fixture(scope="module")
def tasks():
    """Seed-0 small test splits: (Y, T or None, category) per task."""
    out = {}
    for name in TASKS:
        data = cogscale.build_task(name, "small", seed=0)
        out[name] = (data["Y_test"], data.get("T_test"), data["category"])
    return out


def _random_outputs(y: np.ndarray, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, 2.0, size=y.shape)


def _reference(y, y_hat, t, category):
    if HEAD_API:
        return float(cogscale.compute_score(y, y_hat, t, category))
    return float(cogscale.compute_score(y, y_hat, category))


@pytest.mark.parametrize("name", TASKS)
def test_equals_installed_cogscale_compute_score(tasks, name):
    y, t, category = tasks[name]
    y_hat = _random_outputs(y, seed=len(name))
    # float64 arrays: both compute in float64
    ours = cogscale_score(y_hat, y, category, prediction_timesteps=t)["score"]
    assert ours == _reference(y, y_hat, t, category)
    # lists: both cast to float32 and compute in float32
    ours32 = cogscale_score(y_hat.tolist(), y.tolist(), category, prediction_timesteps=t)["score"]
    assert ours32 == _reference(y.tolist(), y_hat.tolist(), t, category)
    if HEAD_API:
        # 0.2.0's form of the same data: -100 off T, scored without T
        masked = np.full_like(y, -100.0)
        for i, steps in enumerate(t):
            masked[i, steps] = y[i, steps]
        assert cogscale_score(y_hat, masked, category)["score"] == pytest.approx(ours, rel=1e-12)
    else:
        # 0.1.x's form: T = the steps not masked
        steps = [np.flatnonzero(np.any(row != -100.0, axis=-1)).tolist() for row in y]
        assert cogscale_score(y_hat, y, category, prediction_timesteps=steps)["score"] == ours


def _head_oracle(y, y_hat, t, category, threshold=0.5):
    """CogScale <= 0.1.x semantics written out: gather Y[i, T[i]] in T order, then score."""
    preds = np.stack([y_hat[i, t[i], :] for i in range(len(y))])
    truths = np.stack([y[i, t[i], :] for i in range(len(y))])
    if category == "classification":
        right = (preds.argmax(-1) == truths.argmax(-1)).sum()
        return 1 - right / (len(y) * len(t[0]))
    if category == "multi_classification":
        return 1 - np.mean(((1 / (1 + np.exp(-preds))) >= threshold).astype(int) == truths)
    return np.mean((preds.reshape(-1, y.shape[-1]) - truths.reshape(-1, y.shape[-1])) ** 2)


@pytest.mark.parametrize("category", ["classification", "multi_classification", "regression"])
def test_unsorted_timesteps_match_head_semantics(category):
    rng = np.random.default_rng(5)
    b, steps, outs = 30, 12, 4
    y = (rng.random((b, steps, outs)) > 0.5).astype(np.float32)
    if category == "classification":
        y = np.eye(outs, dtype=np.float32)[rng.integers(0, outs, (b, steps))]
    if category == "regression":
        y = rng.normal(size=(b, steps, outs)).astype(np.float32)
    y_hat = rng.normal(size=(b, steps, outs)).astype(np.float32)
    t = [rng.permutation(steps)[:5].tolist() for _ in range(b)]  # unsorted, like pattern completion
    with np.errstate(over="ignore"):
        expected = float(_head_oracle(y, y_hat, t, category, threshold=0.3))
    assert cogscale_score(y_hat, y, category, prediction_timesteps=t, threshold=0.3)["score"] == expected


def test_sigmoid_threshold_edges():
    y = [[[1.0, 0.0, 1.0]]]
    # sigmoid(0) = 0.5 >= 0.5 -> positive; a huge negative logit underflows to 0 without warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = cogscale_score([[[0.0, -1e4, -1e4]]], y, "multi_classification", [[0]])
    assert out["score"] == pytest.approx(1 / 3)
    assert cogscale_score([[[0.0, 0.0, 0.0]]], y, "multi_classification", [[0]], threshold=0.6)["score"] == pytest.approx(2 / 3)


def test_per_row_scores():
    y = np.zeros((2, 3, 2), dtype=np.float32)
    y[:, :, 0] = 1
    y_hat = y.copy()
    y_hat[1, 2] = [0, 1]
    out = cogscale_score(y_hat, y, "classification", [[1, 2], [1, 2]], return_per_row=True)
    assert out == {"score": 0.25, "scores": [0.0, 0.5]}


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"category": "ranking"}, ValueError, r"category must be one of \['classification', 'multi_classification', 'regression'\]"),
        ({"threshold": 1.5}, ValueError, r"threshold must be a probability in \[0, 1\]"),
        ({"prediction_timesteps": [[5]]}, ValueError, r"prediction_timesteps\[0\] must index the 2 time steps"),
        ({"prediction_timesteps": [[0.5]]}, TypeError, r"prediction_timesteps\[0\] must be a list of integer"),
        ({"prediction_timesteps": [[0], [1]]}, ValueError, r"same number of rows, got 1 and 2"),
        ({"references": [[[1.0, 0.0]]]}, ValueError, r"predictions\[0\] and references\[0\] must have the same shape"),
        ({"references": [[1.0, 0.0]]}, ValueError, r"references\[0\] must have shape \[L, O\]"),
        ({"references": [[["a", "b"], ["c", "d"]]]}, TypeError, r"references\[0\] must be a \[L, O\] array of numbers"),
        ({"prediction_timesteps": [[]]}, ValueError, r"select no time step to score"),
    ],
)
def test_validation(kwargs, error, message):
    args = {
        "predictions": [[[0.2, 0.8], [0.6, 0.4]]],
        "references": [[[0.0, 1.0], [1.0, 0.0]]],
        "category": "classification",
        "prediction_timesteps": [[0, 1]],
    }
    args.update(kwargs)
    with pytest.raises(error, match=message):
        cogscale_score(**args)


def test_empty_input():
    with pytest.raises(ValueError, match="must not be empty"):
        cogscale_score([], [], "regression")
