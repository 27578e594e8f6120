"""The ROTE protocol on tiny synthetic data: equal to the reference fit, stopping, StepLR, restore."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from rote_hf.train import RoteProtocol, fit_rote
from rote_hf.protocols.rote import evaluate_split
from tests.train.tiny import LastStepGRU, TinyGRU, windows_data

REF_METRICS = (("DL", "rote_benchmark.metrics:normalized_damerau_levenshtein_distance"),
               ("JW", "rote_benchmark.metrics:normalized_jaro_winkler_distance"))
SEED = "ABACBBCA"


def _protocol(**kw):
    base = dict(learning_rate=3e-3, batch_size=16, max_epochs=6, lr_step_size=2, lr_gamma=0.5,
                rollout_metrics=REF_METRICS)
    base.update(kw)
    return RoteProtocol(**base)


def test_equals_reference_fit():
    """Same seed, model and settings: our fit reproduces rote_benchmark's train_and_evaluate exactly."""
    from rote_benchmark.benchmark import prepare_data, train_and_evaluate

    data = windows_data(SEED, 90, 8, 8)
    run = 1
    torch.manual_seed(3407 + run)
    ref_model = LastStepGRU(3, 3)
    args = SimpleNamespace(max_epochs=6, patience=10, stopping_loss=0.05, lr_step_size=2, lr_gamma=0.5,
                           window_size=8, device="cpu")
    ref = train_and_evaluate(ref_model, prepare_data(SEED, 90, 8, 8, "cpu"), args, "AdamW", 3e-3, 0.01, 16)
    state = torch.random.get_rng_state()
    _, fit = fit_rote(lambda: TinyGRU(3, 3), data, _protocol(), run=run)
    assert torch.equal(state, torch.random.get_rng_state())  # the caller's RNG is untouched
    assert fit.epochs == ref["epochs"] == 6
    assert fit.metrics["test_loss"] == ref["test_loss"]
    assert fit.metrics["test_accuracy"] == ref["test_accuracy"]
    assert fit.forecast == ref["forecast"] and len(fit.forecast) == 8
    assert fit.metrics["DL"] == ref["DL"] and fit.metrics["JW"] == ref["JW"]
    assert fit.metrics["exact"] == float(fit.forecast == data.target)


def test_steplr_restore_and_patience():
    data = windows_data(SEED, 90, 8, 8)
    model, fit = fit_rote(lambda: TinyGRU(3, 3), data, _protocol(max_epochs=5))
    # StepLR(2, 0.5) stepped after each training pass: lr used in epochs 1..5
    assert [round(h[2], 10) for h in fit.history] == [3e-3, 3e-3, 1.5e-3, 1.5e-3, 7.5e-4]
    valid = [h[1] for h in fit.history]
    assert fit.best_epoch == 1 + valid.index(min(valid)) and fit.stop_reason == "max_epochs"
    # the returned model carries the best-validation weights
    assert evaluate_split(model, data.x_valid, data.y_valid, 3, 16, "cpu")[0] == pytest.approx(min(valid), abs=1e-12)
    # patience counts epochs without STRICT improvement; here patience 1 stops at the first non-improving epoch
    _, short = fit_rote(lambda: TinyGRU(3, 3), data,
                        _protocol(max_epochs=60, patience=2, learning_rate=0.3, stopping_loss=-1.0))
    vs = [h[1] for h in short.history]
    bad, stop = 0, None
    for i, v in enumerate(vs):
        bad = 0 if v < min(vs[:i], default=float("inf")) else bad + 1
        if bad == 2:
            stop = i + 1
            break
    assert stop is not None and short.stop_reason == "patience" and short.epochs == stop < 60


def test_stopping_loss_is_inclusive():
    data = windows_data(SEED, 90, 8, 8)
    _, probe = fit_rote(lambda: TinyGRU(3, 3), data, _protocol(max_epochs=3))
    second = probe.history[1][1]
    assert second < probe.history[0][1]  # so the threshold below is first met at epoch 2
    _, fit = fit_rote(lambda: TinyGRU(3, 3), data, _protocol(max_epochs=3, stopping_loss=second))
    assert fit.stop_reason == "stopping_loss" and fit.epochs == 2 and fit.best_epoch == 2


def test_divergence_and_bad_settings():
    from tests.train.tiny import Diverging

    data = windows_data(SEED, 90, 8, 8)
    with pytest.raises(ValueError, match="not finite"):
        fit_rote(lambda: Diverging(3, 3), data, _protocol())
    with pytest.raises(ValueError, match="optimizer must be one of"):
        RoteProtocol(optimizer="SGD")
    with pytest.raises(ValueError, match="patience must be an integer >= 1"):
        RoteProtocol(patience=0)
    with pytest.raises(ValueError, match="protocol keys must be among"):
        RoteProtocol.from_dict({"epochs": 3})
