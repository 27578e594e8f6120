"""``on_divergence``: "fail" records a diverged fit as failed; "continue" trains on as the
reference's run.py did (no loss check, best weights restored, failed only on a non-finite test score)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch

from rote_hf.train import CogScaleProtocol, fit_cogscale
from rote_hf.protocols.cogscale import gather_steps, score_steps
from rote_hf.protocols.fleet import CogScaleMember, fit_cogscale_fleet
from tests.train.test_cogscale_protocol import task
from tests.train.tiny import TinyGRU


class BlowsUp(TinyGRU):
    """A TinyGRU whose outputs overflow from its ``after``-th training batch on: that batch's loss
    is inf, its gradients put NaN into the weights, and every later output is NaN."""

    def __init__(self, after: int) -> None:
        super().__init__(3, 3, units=6)
        self.after, self.batches = after, 0  # a plain attribute: not in the state dict, not restored

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = super().forward(x)
        if self.training:
            self.batches += 1
            if self.batches > self.after:
                return out * 1e39
        return out


def protocol(on_divergence: str, max_epochs: int = 12) -> CogScaleProtocol:
    return CogScaleProtocol(learning_rate=3e-2, max_epochs=max_epochs, patience=3, on_divergence=on_divergence)


# task(): 40 training samples at batch 10 make 4 batches an epoch; blowing up after 20 batches
# makes epoch 6 the first whose loss is not finite.
AFTER, EPOCH = 20, 6


def test_fail_records_the_diverged_epoch():
    with pytest.raises(ValueError, match=rf"training loss is not finite \(inf\) at epoch {EPOCH}, step 1: diverged"):
        fit_cogscale(lambda: BlowsUp(AFTER), task("regression"), protocol("fail"), seed=0)


def test_continue_restores_the_weights_from_before_the_divergence():
    data = task("regression")
    _, fit = fit_cogscale(lambda: BlowsUp(AFTER), data, protocol("continue"), seed=0)
    # the same fit stopped just before the divergence picks the same best epoch and weights
    _, before = fit_cogscale(lambda: BlowsUp(AFTER), data, protocol("fail", max_epochs=EPOCH - 1), seed=0)
    assert fit.metrics["diverged_epoch"] == EPOCH
    assert fit.best_epoch == before.best_epoch < EPOCH
    assert fit.metrics["test_score"] == before.metrics["test_score"]
    assert fit.metrics["best_val_score"] == before.metrics["best_val_score"]
    # a NaN validation score never improves, so patience ends the fit
    assert all(math.isnan(v) for _, v in fit.history[EPOCH - 1:])
    assert fit.epochs == fit.best_epoch + 3


def test_continue_fails_when_no_finite_weights_were_ever_kept():
    with pytest.raises(ValueError, match=r"not finite from epoch 1 and the test score is nan \(on_divergence='continue'\)"):
        fit_cogscale(lambda: BlowsUp(0), task("regression"), protocol("continue"), seed=0)


def test_continue_scores_a_nan_classifier_as_the_reference_did():
    """NaN logits argmax to class 0 (numpy's argmax of NaN), so a classifier diverged from its first
    batch still gets a finite score, that of always answering class 0, as in the reference."""
    data = task("classification")
    _, fit = fit_cogscale(lambda: BlowsUp(0), data, protocol("continue"), seed=0)
    y = gather_steps(data.Y_test, data.T_test)
    always_first = np.zeros_like(y)
    always_first[..., 0] = 1.0
    assert fit.metrics["diverged_epoch"] == 1
    assert fit.metrics["test_score"] == score_steps(y, always_first, "classification")
    assert 0.5 < fit.metrics["test_score"] < 1.0  # 3 balanced symbols: about 2/3 wrong


def test_a_continue_fleet_fits_one_at_a_time():
    from tests.train.test_fleet import _builder, tiny_data

    build, data = _builder("gru"), tiny_data("regression", 0)  # a family with a batched fleet forward
    members = [CogScaleMember(data, CogScaleProtocol(learning_rate=lr, max_epochs=6, patience=3,
                                                     on_divergence="continue"), 0) for lr in (1e-2, 1e30)]
    kept, lost = fit_cogscale_fleet(build, members)
    _, one = fit_cogscale(build, data, members[0].protocol, seed=0)
    assert kept[1].metrics == one.metrics and kept[1].epochs == one.epochs
    with pytest.raises(ValueError) as error:  # diverged in its first epoch: no finite weights to keep
        fit_cogscale(build, data, members[1].protocol, seed=0)
    assert isinstance(lost, ValueError) and str(lost) == str(error.value)
    assert "not finite from epoch 1" in str(lost)
    failing = CogScaleMember(data, dataclasses.replace(members[0].protocol, on_divergence="fail"), 1)
    with pytest.raises(ValueError, match="members must share protocol.on_divergence"):
        fit_cogscale_fleet(build, [members[0], failing])


def test_on_divergence_is_checked():
    with pytest.raises(ValueError, match=r"on_divergence must be one of \('fail', 'continue'\), got 'ignore'"):
        CogScaleProtocol(on_divergence="ignore")
