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


def _autograd_definition(a, b, h0=None):
    """h_t = a_t h_{t-1} + b_t stepped under autograd with indexing: the reference ``sequential_scan``
    must equal bit for bit (its unbind loop, then its hand-written backward, issue 30), so rows trained
    before either change stand."""
    h, steps = (torch.zeros_like(b[:, 0]) if h0 is None else h0), []
    for t in range(a.size(1)):
        h = a[:, t] * h + b[:, t]
        steps.append(h)
    return torch.stack(steps, dim=1)


# Mamba's scans: batch 10; CogScale small/medium lengths (12, 50, 100, 150, 900 at batch 1); E = 8, 40, 160
# (the 1k, 10k, 100k Mamba) x N = 16. Plus random signs (a < 0) and a state of other rank.
SCAN_SHAPES = [(10, 12, 8, 16), (10, 50, 40, 16), (10, 100, 8, 16), (10, 150, 160, 16), (1, 900, 8, 16),
               (4, 17, 6, 3), (3, 1, 5)]


@pytest.mark.parametrize("shape", SCAN_SHAPES)
@pytest.mark.parametrize("with_h0", [False, True])
def test_sequential_scan_is_its_definition_values_and_gradients_bit_for_bit(shape, with_h0):
    gen = torch.Generator().manual_seed(len(shape) * 100 + shape[1])
    mamba_like = shape[-1] == 16
    a = ((-torch.rand(shape, generator=gen)).exp() if mamba_like else torch.randn(shape, generator=gen))
    b = torch.randn(shape, generator=gen)
    h0 = torch.randn(shape[:1] + shape[2:], generator=gen) if with_h0 else None
    cotangent = torch.randn(shape, generator=gen)
    results = []
    for scan in (sequential_scan, _autograd_definition):
        inputs = [a.clone().requires_grad_(), b.clone().requires_grad_()] + ([h0.clone().requires_grad_()] if with_h0 else [])
        h = scan(*inputs)
        results.append([h, *torch.autograd.grad(h, inputs, cotangent)])
    assert len(results[0]) == (4 if with_h0 else 3)
    for got, want in zip(*results):
        assert got.dtype == want.dtype and torch.equal(got, want)


def test_sequential_scan_grads_of_one_input_and_gradcheck():
    gen = torch.Generator().manual_seed(3)
    a, b = torch.rand(2, 6, 3, generator=gen), torch.randn(2, 6, 3, generator=gen).requires_grad_()
    (grad_b,) = torch.autograd.grad(sequential_scan(a, b).sum(), [b])  # a needs no gradient
    assert torch.equal(grad_b, torch.autograd.grad(_autograd_definition(a, b).sum(), [b])[0])
    shape = (2, 5, 3)
    inputs = [torch.rand(shape, generator=gen, dtype=torch.float64).requires_grad_(),
              torch.randn(shape, generator=gen, dtype=torch.float64).requires_grad_(),
              torch.randn(2, 3, generator=gen, dtype=torch.float64).requires_grad_()]
    assert torch.autograd.gradcheck(sequential_scan, inputs)
    assert torch.autograd.gradcheck(lambda a, b: sequential_scan(a, b), inputs[:2])


def test_sequential_scan_with_a_broadcast_decay_as_rwkv_gives_the_definitions_gradient():
    """RWKV scans with its per-channel decay expanded over batch and time (stride 0)."""
    gen = torch.Generator().manual_seed(6)
    decay, kv = torch.randn(5, generator=gen).requires_grad_(), torch.randn(3, 9, 5, generator=gen).requires_grad_()
    results = []
    for scan in (sequential_scan, _autograd_definition):
        h = scan(torch.sigmoid(decay).expand_as(kv), kv)
        results.append([h, *torch.autograd.grad(h.square().sum(), [decay, kv])])
    for got, want in zip(*results):
        assert torch.equal(got, want)


def test_sequential_scan_under_vmap_equals_one_at_a_time():
    """The Mamba fleet runs the scan under ``vmap``; each member's values and gradients stay its own."""
    from torch.func import grad, vmap

    gen = torch.Generator().manual_seed(4)
    a, b = torch.rand(3, 2, 7, 4, generator=gen), torch.randn(3, 2, 7, 4, generator=gen)
    batched = vmap(sequential_scan)(a, b)
    grads = vmap(grad(lambda a, b: sequential_scan(a, b).square().sum()))(a, b)
    for k in range(3):
        assert torch.equal(batched[k], sequential_scan(a[k], b[k]))
        ak = a[k].clone().requires_grad_()
        assert torch.equal(grads[k], torch.autograd.grad(sequential_scan(ak, b[k]).square().sum(), [ak])[0])


def test_sequential_scan_bad_shapes_are_one_line_errors():
    a = torch.rand(2, 4, 3)
    with pytest.raises(ValueError, match="a and b must share shape"):
        sequential_scan(a, torch.rand(2, 4, 1))
    with pytest.raises(ValueError, match="a and b must share shape"):
        sequential_scan(a, torch.rand(2, 4, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match="time >= 1"):
        sequential_scan(a[:, :0], a[:, :0])
    with pytest.raises(ValueError, match="h0 must be"):
        sequential_scan(a, a, torch.zeros(2, 4))


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
