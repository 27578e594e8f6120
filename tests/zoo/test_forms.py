"""Parallel / chunked forms against step-by-step forms, and the ESN against reservoirpy."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rote_hf.zoo import build_model
from rote_hf.zoo.scan import chunked_scan, sequential_scan

from .tiny import TINY

RECURRENT = ["lstm", "gru", "mingru", "minlstm", "minlstm-rote", "rwkv", "rwkv-rote", "xlstm", "mamba"]


@pytest.mark.parametrize("chunk", [1, 4, 7, 64])
def test_chunked_scan_equals_sequential(chunk):
    gen = torch.Generator().manual_seed(0)
    log_a = -torch.rand(3, 23, 5, 2, generator=gen, dtype=torch.float64) * 12  # up to e^-12 per step
    b = torch.randn(3, 23, 5, 2, generator=gen, dtype=torch.float64)
    h0 = torch.randn(3, 5, 2, generator=gen, dtype=torch.float64)
    ref = sequential_scan(log_a.exp(), b, h0)
    torch.testing.assert_close(chunked_scan(log_a, b, h0, chunk=chunk), ref, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="chunk"):
        chunked_scan(log_a, b, chunk=0)


def test_sequential_scan_is_its_definition_values_and_gradients_bit_for_bit():
    """The scan steps with unbind (fast backward); it must equal h_t = a_t h_{t-1} + b_t written
    with indexing, outputs and gradients bit for bit, so rows trained before the change stand."""
    gen = torch.Generator().manual_seed(1)
    a = torch.rand(4, 17, 6, 3, generator=gen).requires_grad_()
    b = torch.randn(4, 17, 6, 3, generator=gen).requires_grad_()
    h, steps = torch.zeros(4, 6, 3), []
    for t in range(17):
        h = a[:, t] * h + b[:, t]
        steps.append(h)
    definition = torch.stack(steps, dim=1)
    ours = sequential_scan(a, b)
    cotangent = torch.randn(ours.shape, generator=gen)
    assert torch.equal(ours, definition)
    for got, want in zip(torch.autograd.grad(ours, [a, b], cotangent), torch.autograd.grad(definition, [a, b], cotangent)):
        assert torch.equal(got, want)


@pytest.mark.parametrize("name", RECURRENT)
def test_parallel_form_equals_step_by_step(name):
    force = {"scan": "chunked"} if name in ("minlstm-rote", "rwkv-rote", "mamba") else {}
    model = build_model(name, input_size=3, output_size=4, seed=0, **TINY[name], **force).double().eval()
    x = torch.randn(2, 37, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        parallel = model(x)
        step = model.step_by_step(x)
    # transformers' RWKV keeps its WKV state in float32; xLSTM's step kernels accumulate differently
    tol = 1e-5 if name in ("rwkv", "xlstm") else 1e-10
    torch.testing.assert_close(parallel, step, rtol=tol, atol=tol)


def test_mamba_chunk_size_does_not_change_outputs():
    x = torch.randn(2, 29, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    outs = [build_model("mamba", input_size=3, output_size=2, seed=4, d_model=8, scan_chunk=c,
                        scan="chunked").double()(x) for c in (1, 5, 32)]
    outs.append(build_model("mamba", input_size=3, output_size=2, seed=4, d_model=8).double()(x))  # auto: CPU
    torch.testing.assert_close(outs[0], outs[1], rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(outs[0], outs[2], rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(outs[0], outs[3], rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="scan must be one of"):
        build_model("mamba", input_size=3, output_size=2, d_model=8, scan="parallel")


def test_esn_states_and_ridge_match_reservoirpy():
    from reservoirpy import mat_gen
    from reservoirpy.nodes import Reservoir, Ridge

    arch = dict(units=30, leak_rate=0.4, spectral_radius=0.8, input_scaling=0.7, bias_scaling=1.0,
                reservoir_seed=11)
    model = build_model("esn", input_size=2, output_size=3, **arch).double()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 40, 2))
    ours = model.states(torch.as_tensor(x)).numpy()

    def bias_03(units, *, connectivity, **kwargs):  # reservoirpy 0.3's bias: Bernoulli on the input connectivity
        return mat_gen.bernoulli(units, input_scaling=1.0, connectivity=0.1, **kwargs)

    first = Reservoir(30, lr=0.4, sr=0.8, input_scaling=0.7, bias=bias_03, seed=11).run(x[0])
    np.testing.assert_allclose(ours[0], first, rtol=1e-10, atol=1e-12)
    second = Reservoir(30, lr=0.4, sr=0.8, input_scaling=0.7, bias=bias_03, seed=11).run(x[1])
    np.testing.assert_allclose(ours[1], second, rtol=1e-10, atol=1e-12)
    assert ours.shape == (2, 40, 30)

    y = rng.normal(size=(2, 40, 3))
    mask = torch.zeros(2, 40, dtype=torch.bool)
    mask[:, 10:] = True
    model.fit_readout(torch.as_tensor(x), torch.as_tensor(y), mask=mask, ridge=1e-3)
    ridge = Ridge(ridge=1e-3).fit(ours[:, 10:].reshape(-1, 30), y[:, 10:].reshape(-1, 3))
    np.testing.assert_allclose(model.readout.weight.detach().numpy(), np.asarray(ridge.Wout).T, rtol=1e-7,
                               atol=1e-9)
    np.testing.assert_allclose(model.readout.bias.detach().numpy(), np.ravel(ridge.bias), rtol=1e-7, atol=1e-9)
    # the ESN is seeded: same seed, same reservoir; another seed, another one
    again = build_model("esn", input_size=2, output_size=3, **arch)
    other = build_model("esn", input_size=2, output_size=3, **{**arch, "reservoir_seed": 12})
    assert torch.equal(again.W, model.W) and not torch.equal(other.W, again.W)


def test_esn_bias_is_reservoirpy_03s_sparse_bias():
    """CogScale's ESNs were reservoirpy 0.3 reservoirs, whose bias is Bernoulli +-bias_scaling on the
    *input connectivity's* share of the units (10 %); 0.4.2 would draw it on every unit. With a dense
    bias the published hyper-parameters give chance level on simple_copy 10k (0.67, published 0.00)."""
    model = build_model("esn", input_size=2, output_size=1, units=2000, bias_scaling=0.5, reservoir_seed=3)
    assert set(model.bias.unique().tolist()) == {-0.5, 0.0, 0.5}
    assert 0.08 < (model.bias != 0).double().mean().item() < 0.12
    wider = build_model("esn", input_size=2, output_size=1, units=2000, input_connectivity=0.5, reservoir_seed=3)
    assert 0.45 < (wider.bias != 0).double().mean().item() < 0.55
    none = build_model("esn", input_size=2, output_size=1, units=50, bias_scaling=0.0, reservoir_seed=3)
    assert not none.bias.any()


def test_esn_spectral_radius_is_computed_once_per_reservoir_and_matrices_stay_identical(monkeypatch):
    """A search builds the same unscaled reservoir for each candidate: ARPACK runs once for it, and
    every scaled matrix equals the one reservoirpy builds on its own, bit for bit."""
    pytest.importorskip("reservoirpy")
    import reservoirpy.observables as observables
    from reservoirpy.nodes import Reservoir

    from rote_hf.zoo.families import esn

    esn._RADII.clear()
    solves = []
    eigs = observables.eigs
    monkeypatch.setattr(observables, "eigs", lambda *a, **k: (solves.append(1), eigs(*a, **k))[1])
    built = [build_model("esn", input_size=2, output_size=3, units=60, spectral_radius=sr, reservoir_seed=5)
             for sr in (0.9, 1.7, 0.3)]
    assert len(solves) == 1 and len(esn._RADII) == 1
    other = build_model("esn", input_size=2, output_size=3, units=60, reservoir_seed=6)
    assert len(solves) == 2 and not torch.equal(other.W, built[0].W)
    for model, sr in zip(built, (0.9, 1.7, 0.3)):
        own = Reservoir(60, sr=sr, input_connectivity=0.1, rc_connectivity=0.1, input_dim=2, seed=5)
        own.initialize(np.zeros((1, 2)))
        assert torch.equal(model.W, torch.tensor(own.W.toarray(), dtype=torch.float64))
        assert torch.equal(model.W_in, torch.tensor(own.Win.toarray(), dtype=torch.float64))
    assert len(solves) == 5  # reservoirpy's own builds, outside our memo, solved every time
    assert torch.linalg.eigvals(built[1].W).abs().max().item() == pytest.approx(1.7, rel=1e-9)
