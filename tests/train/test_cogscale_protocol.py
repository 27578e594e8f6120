"""The CogScale protocol on tiny synthetic tasks: scores equal the reference, stopping and restore."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from rote_hf.train import CogScaleData, CogScaleProtocol, fit_cogscale, fit_esn
from rote_hf.protocols.cogscale import best_exact_match_threshold, gather_steps, predict, score_steps
from tests.train.tiny import TinyGRU


def delayed_copy(n: int, length: int = 12, k: int = 3, delay: int = 2, seed: int = 0) -> tuple:
    """Y[t] = X[t - delay] on T = [delay, length): a small classification task."""
    rng = np.random.default_rng(seed)
    sym = rng.integers(0, k, size=(n, length))
    X = np.eye(k)[sym]
    Y = np.zeros_like(X)
    Y[:, delay:] = X[:, :-delay]
    T = np.tile(np.arange(delay, length), (n, 1))
    return X, Y, T


def task(category: str = "classification"):
    parts = [delayed_copy(n, seed=s) for n, s in ((40, 0), (10, 1), (20, 2))]
    if category == "regression":
        parts = [(x, y * 0.5, t) for x, y, t in parts]
    return CogScaleData.from_build([a for p in parts for a in p] + [category])


@pytest.mark.parametrize("category", ["classification", "regression", "multi_classification"])
def test_score_equals_reference_compute_score(category):
    from cogscale import compute_score  # the pinned test oracle, cogscale 0.1.1 (takes T)

    rng = np.random.default_rng(5)
    Y = (rng.random((6, 9, 4)) > 0.6).astype(float) if category != "regression" else rng.normal(size=(6, 9, 4))
    Y_hat = rng.normal(size=(6, 9, 4))
    T = np.stack([rng.choice(9, 3, replace=False) for _ in range(6)])
    ours = score_steps(gather_steps(Y, T), gather_steps(Y_hat, T), category, 0.3)
    ref = compute_score(Y, Y_hat, T, category, threshold=0.3)
    assert ours == pytest.approx(float(ref), abs=1e-12)


def test_fit_stops_on_validation_score_and_restores_best():
    data = task()
    model, fit = fit_cogscale(lambda: TinyGRU(3, 3, units=8), data, CogScaleProtocol(learning_rate=3e-2, max_epochs=40,
                                                                                      patience=3), seed=4)
    scores = [h[1] for h in fit.history]
    assert fit.metrics["best_val_score"] == min(scores) and fit.best_epoch == 1 + scores.index(min(scores))
    # patience 3 on strict improvement of the validation score
    assert fit.epochs == 40 or (fit.epochs - fit.best_epoch == 3)
    valid = score_steps(gather_steps(data.Y_valid, data.T_valid),
                        gather_steps(predict(model, data.X_valid, 10, "cpu"), data.T_valid), "classification")
    assert valid == fit.metrics["best_val_score"]  # best weights restored
    assert 0.0 <= fit.metrics["test_score"] <= 1.0
    # learning happened: below the 2/3 chance error of 3 symbols
    assert fit.metrics["best_val_score"] < 0.55
    # same seed, same result; another seed differs
    _, again = fit_cogscale(lambda: TinyGRU(3, 3, units=8), data, CogScaleProtocol(learning_rate=3e-2, max_epochs=40,
                                                                                  patience=3), seed=4)
    assert again.metrics == fit.metrics and again.history == fit.history


def test_multilabel_threshold_is_tuned_for_exact_match():
    y = np.array([[[1.0, 0.0]], [[1.0, 1.0]]])
    logits = np.log(np.array([[[0.7, 0.2]], [[0.6, 0.4]]]) / (1 - np.array([[[0.7, 0.2]], [[0.6, 0.4]]])))
    t = best_exact_match_threshold(y, logits)
    assert 0.2 < t <= 0.4  # the first grid value giving exact matches for both samples
    assert t == pytest.approx(np.linspace(0.01, 0.99, 100)[np.argmax(np.linspace(0.01, 0.99, 100) > 0.2)])


class RidgeReadout(nn.Module):
    """A tiny stand-in with the zoo ESN's interface: fixed random features + closed-form ridge readout."""

    def __init__(self, inp: int, out: int, units: int = 16) -> None:
        super().__init__()
        self.register_buffer("w_in", torch.randn(inp, units))
        self.readout = nn.Linear(units, out)

    def states(self, x):
        return torch.tanh(torch.cumsum(x @ self.w_in, dim=1) * 0.3)

    def forward(self, x):
        return self.readout(self.states(x))

    def fit_readouts(self, x, y, mask, ridges, *, states=None):
        h, t = (self.states(x) if states is None else states)[mask], y[mask]
        h1 = torch.cat([h, torch.ones(len(h), 1)], 1)
        for ridge in ridges:
            w = torch.linalg.solve(h1.T @ h1 + ridge * torch.eye(h1.shape[1]), h1.T @ t)
            with torch.no_grad():
                self.readout.weight.copy_(w[:-1].T)
                self.readout.bias.copy_(w[-1])
            yield ridge


def test_esn_path_picks_ridge_on_validation_and_is_seeded():
    data = task("regression")
    _, fit = fit_esn(lambda: RidgeReadout(3, 3), data, seed=1)
    ridges = [h[0] for h in fit.history]
    assert ridges == [10.0 ** -i for i in range(1, 10)]
    best = min(fit.history, key=lambda h: h[1])
    assert fit.metrics["ridge"] == best[0] and fit.metrics["best_val_score"] == best[1]
    _, same = fit_esn(lambda: RidgeReadout(3, 3), data, seed=1)
    _, other = fit_esn(lambda: RidgeReadout(3, 3), data, seed=2)
    assert same.metrics == fit.metrics and other.metrics["test_score"] != fit.metrics["test_score"]


def test_bad_inputs():
    with pytest.raises(ValueError, match="category must be one of"):
        CogScaleData.from_build([np.zeros((1, 2, 1))] * 9 + ["ranking"])
    with pytest.raises(ValueError, match="learning_rate must be a number > 0"):
        CogScaleProtocol(learning_rate=0)
    with pytest.raises(ValueError, match="built must have 10 items"):
        CogScaleData.from_build([np.zeros(1)] * 3)


def test_esn_random_search_is_seeded_and_chosen_on_validation():
    from rote_hf.protocols.cogscale import search_esn

    data = task("regression")

    def build_for(hp):
        scale = hp.get("input_scaling", 1.0)

        def build():
            m = RidgeReadout(3, 3)
            m.w_in.mul_(scale)
            return m
        return build

    model, fit, hp = search_esn(build_for, data, seed=1, trials=4, search_seed=7,
                                ranges={"input_scaling": (0.01, 10.0)})
    scores = []
    for _, draw in fit.history:
        _, f = fit_esn(build_for(draw), data, seed=1)
        scores.append(f.metrics["best_val_score"])
    assert hp == fit.history[scores.index(min(scores))][1] and fit.metrics["best_val_score"] == min(scores)
    _, again, hp2 = search_esn(build_for, data, seed=1, trials=4, search_seed=7, ranges={"input_scaling": (0.01, 10.0)})
    assert hp2 == hp and again.metrics == fit.metrics
    assert fit.history[0][1] == {} and len(fit.history) == 5  # the base configuration is candidate 0
    assert all(0.01 <= d["input_scaling"] <= 10.0 for _, d in fit.history[1:])
    with pytest.raises(ValueError, match="trials must be an integer >= 1"):
        search_esn(build_for, data, trials=0)


def _esn_per_ridge_reference(build, data, seed):
    """fit_esn as it was before the states and normal equations were cached: reservoir states and
    the ridge system recomputed for every ridge (``fit_readout``, one ridge at a time)."""
    import math

    from rote_hf.protocols.cogscale import RIDGE_GRID, _final_scores

    torch.manual_seed(seed)
    model = build()
    X = torch.as_tensor(data.X_train, dtype=torch.float32)
    Y = torch.as_tensor(data.Y_train, dtype=torch.float32)
    mask = torch.zeros(X.shape[:2], dtype=torch.bool)
    mask[torch.arange(X.shape[0])[:, None], torch.as_tensor(data.T_train)] = True
    best, best_ridge, best_state, history = math.inf, None, None, []
    for ridge in RIDGE_GRID:
        model.fit_readout(X, Y, mask=mask, ridge=ridge)
        score = score_steps(gather_steps(data.Y_valid, data.T_valid),
                            gather_steps(predict(model, data.X_valid, 10, "cpu"), data.T_valid), data.category)
        history.append((ridge, score))
        if score < best:
            best, best_ridge = score, ridge
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
    model.load_state_dict(best_state)
    return {**_final_scores(model, data, 10, "cpu", best), "ridge": best_ridge}, history


@pytest.mark.parametrize("category", ["regression", "classification"])
def test_esn_states_computed_once_per_trial_with_identical_results(category):
    """Issue 16.11: the zoo ESN's reservoir states (and its normal equations) are computed once per
    fit (train and validation), not once per ridge value, and every number equals the per-ridge
    recomputation bit for bit."""
    pytest.importorskip("reservoirpy")
    from rote_hf.zoo import build_model

    data = task(category)
    calls = []

    def build():
        model = build_model("esn", input_size=3, output_size=3, units=30, reservoir_seed=3)
        inner = model.states
        model.states = lambda x: (calls.append(len(x)), inner(x))[1]  # count the reservoir passes
        return model

    _, fit = fit_esn(build, data, seed=1)
    # train once (40 sequences), validation once (10), then the final test in chunks of 10 (20); none per ridge
    assert calls == [40, 10, 10, 10] and len(fit.history) == 9
    calls.clear()
    metrics, history = _esn_per_ridge_reference(build, data, seed=1)
    assert len(calls) == 9 * (1 + 1) + 2  # the old way: 9 x (train + validation) + 2 test chunks
    assert fit.history == history and fit.metrics == metrics  # identical, not approximately
