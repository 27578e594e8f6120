"""The one contract: (batch, time, in) float -> (batch, time, out), causal unless the name says
otherwise; every family runs forward+backward and trains a few steps on CPU on a ROTE window
batch and on a CogScale batch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from rote_hf.zoo import build_model, get_spec, model_info, names

from .tiny import TINY


def test_every_name_has_a_tiny_config():
    assert set(TINY) == set(names())


@pytest.mark.parametrize("name", sorted(TINY))
def test_shape_causality_and_gradients(name):
    model = build_model(name, input_size=3, output_size=5, seed=0, **TINY[name]).double()
    model.eval()
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(2, 13, 3, generator=gen, dtype=torch.float64)
    y = model(x)
    assert y.shape == (2, 13, 5)
    t = 6
    x2 = x.clone()
    x2[:, t + 1 :] += torch.randn(2, 13 - t - 1, 3, generator=gen, dtype=torch.float64)
    y2 = model(x2)
    early = (y[:, : t + 1] - y2[:, : t + 1]).abs().max().item()
    late = (y[:, t + 1 :] - y2[:, t + 1 :]).abs().max().item()
    assert late > 1e-6  # the perturbation reaches the model
    if get_spec(name).causal:
        assert model_info(model).causal
        assert early == 0.0
    else:  # transformer-ed: encoder and cross-attention see the whole sequence
        assert not model_info(model).causal
        assert early > 1e-6
    model.train()
    model(x).pow(2).mean().backward()
    grads = [p.grad for p in model.parameters() if p.requires_grad]
    assert grads and all(g is not None and torch.isfinite(g).all() for g in grads)


def test_performer_reference_stabiliser_is_flagged_not_causal():
    # the library's global key stabiliser lets step t depend (slightly) on later keys
    model = build_model("performer", input_size=3, output_size=3, seed=0, d_model=16, nhead=2,
                        key_stabilizer="global").double().eval()
    assert model_info(model).causal is False
    x = torch.randn(1, 9, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    x2 = x.clone()
    x2[:, -1] += 3.0
    assert (model(x)[:, :-1] - model(x2)[:, :-1]).abs().max() > 0
    # the rote-paper preset keeps the reference behaviour and says so
    ref = build_model("performer", input_size=3, output_size=3, preset="rote-paper")
    assert model_info(ref).causal is False and model_info(ref).arch["key_stabilizer"] == "global"


def _rote_window_batch(n: int = 4, window: int = 8):
    from rote_benchmark.generation import lzw_string_generator

    seed, _ = lzw_string_generator(n, 10, random_state=3)
    alphabet = sorted(set(seed))
    codes = np.array([alphabet.index(c) for c in (seed * 8)[: 64 + window]])
    idx = np.arange(64)[:, None] + np.arange(window)[None, :]
    x = F.one_hot(torch.as_tensor(codes[idx]), n).float()
    y = torch.as_tensor(codes[np.arange(64) + window])
    return x, y


def _cogscale_batch():
    import cogscale

    task = cogscale.build_task("simple_copy", "small", seed=0)
    x = torch.as_tensor(task["X_train"][:8], dtype=torch.float32)
    y = torch.as_tensor(task["Y_train"][:8], dtype=torch.float32)
    t = torch.as_tensor(task["T_train"][:8])
    return x, y, t


def _train(model, loss_fn, steps: int = 8) -> tuple[float, float]:
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=1e-2)
    model.eval()
    with torch.no_grad():
        before = loss_fn().item()
    model.train()
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        after = loss_fn().item()
    return before, after


@pytest.mark.parametrize("name", sorted(TINY))
def test_trains_on_a_rote_window_batch(name):
    x, y = _rote_window_batch()
    model = build_model(name, input_size=4, output_size=4, seed=0, **TINY[name])
    before, after = _train(model, lambda: F.cross_entropy(model(x)[:, -1], y))  # ROTE reads the last step
    assert np.isfinite(after) and after < before


@pytest.mark.parametrize("name", sorted(TINY))
def test_trains_on_a_cogscale_batch(name):
    x, y, t = _cogscale_batch()
    model = build_model(name, input_size=x.size(-1), output_size=y.size(-1), seed=0, **TINY[name])
    rows = torch.arange(x.size(0))[:, None]

    def loss():  # CogScale reads the prediction timesteps T only
        logits = model(x)[rows, t]
        return F.cross_entropy(logits.reshape(-1, y.size(-1)), y[rows, t].argmax(-1).reshape(-1))

    before, after = _train(model, loss)
    assert np.isfinite(after) and after < before


@pytest.mark.parametrize("name", sorted(TINY))
def test_models_deepcopy_and_pickle(name):
    import copy
    import pickle

    model = build_model(name, input_size=3, output_size=2, seed=0, **TINY[name]).eval()
    x = torch.randn(2, 7, 3, generator=torch.Generator().manual_seed(0))
    clones = [copy.deepcopy(model)]
    if name != "xlstm":  # xlstm 2.0.6's ParameterProxy recurses when unpickled: use state_dict (below)
        clones.append(pickle.loads(pickle.dumps(model)))
    fresh = build_model(name, input_size=3, output_size=2, seed=1, **TINY[name]).eval()
    fresh.load_state_dict(copy.deepcopy(model.state_dict()))
    with torch.no_grad():
        ref = model(x)
        for clone in [*clones, fresh]:
            torch.testing.assert_close(clone(x), ref, rtol=0, atol=0)
        assert all(model_info(c) == model_info(model) for c in clones)
