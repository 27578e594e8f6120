"""The sLSTM twin: the CUDA kernel's step in PyTorch, against xlstm's own vanilla loop."""

from __future__ import annotations

import pytest
import torch

pytest.importorskip("xlstm")

from xlstm.blocks.slstm.src.vanilla import slstm_forward, slstm_pointwise_function_registry  # noqa: E402

from rote_hf.zoo import build_model  # noqa: E402
from rote_hf.zoo.families.slstm_twin import (  # noqa: E402
    _interpreted,
    _sequence_backward,
    _sequence_forward,
    twin_pointwise,
    twin_sequence,
)

VANILLA = slstm_pointwise_function_registry["slstm"]


def _run(pointwise, x, recurrent, bias):
    """The library's sLSTM loop: x (time, batch, 4 * hidden) -> outputs y (time, batch, hidden)."""
    states = torch.zeros(4, x.shape[1], recurrent.shape[0] * recurrent.shape[2])
    return slstm_forward(x, states, recurrent, bias, pointwise)[0][0, 1:]


def _inputs(bias_f=None, heads=2, head_dim=3, seed=0):
    gen = torch.Generator().manual_seed(seed)
    hidden = heads * head_dim
    x = torch.randn(7, 5, 4 * hidden, generator=gen)
    recurrent = torch.randn(heads, 4 * head_dim, head_dim, generator=gen) / head_dim
    bias = torch.randn(4 * hidden, generator=gen)
    if bias_f is not None:
        bias[hidden:2 * hidden] = bias_f
    return [t.requires_grad_() for t in (x, recurrent, bias)]


def test_twin_equals_the_vanilla_step_on_finite_numbers():
    """On finite numbers the kernel's arithmetic (stabiliser held constant in backward) and
    autograd through the vanilla step agree: the stabiliser cancels in c / n."""
    inputs = _inputs()
    twin = _run(twin_pointwise, *inputs)
    vanilla = _run(VANILLA, *inputs)
    torch.testing.assert_close(twin, vanilla, rtol=1e-5, atol=1e-6)
    cotangent = torch.randn(twin.shape, generator=torch.Generator().manual_seed(1))
    grads_twin = torch.autograd.grad(twin, inputs, cotangent)
    grads_vanilla = torch.autograd.grad(vanilla, inputs, cotangent)
    for got, want in zip(grads_twin, grads_vanilla):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    assert max(g.abs().max().item() for g in grads_twin) > 1e-2  # the gradients are not trivially zero


def test_nan_forget_bias_gives_the_kernels_running_mean_cell():
    """head_dim 1 makes xlstm's forget bias NaN. As CUDA's fmaxf/fminf do, the twin drops the NaN:
    m = i_raw, both gates are 1, y_t = sigmoid(o_t) * mean_{s<=t} tanh(z_s); no NaN gradient."""
    x, recurrent, bias = _inputs(bias_f=float("nan"), heads=4, head_dim=1)
    # without recurrent weights the pre-activations are x + b, and the cell has a closed form
    still = _run(twin_pointwise, x.detach(), torch.zeros_like(recurrent), bias.detach())
    raw = (x.detach() + bias.detach()).view(7, 5, 4, 4)
    steps = torch.arange(1, 8, dtype=torch.float32).view(7, 1, 1)
    torch.testing.assert_close(still, torch.sigmoid(raw[:, :, 3]) * torch.tanh(raw[:, :, 2]).cumsum(0) / steps)
    y = _run(twin_pointwise, x, recurrent, bias)
    assert torch.isfinite(y).all()
    hidden = 4
    grads = torch.autograd.grad(y.sum(), [x, recurrent, bias])
    assert all(torch.isfinite(g).all() for g in grads)
    assert torch.equal(grads[2][hidden:2 * hidden], torch.zeros(hidden))  # the forget gate gets none
    assert grads[2][:hidden].abs().sum() > 0  # the input gate gets the kernel's gradient
    assert not torch.isfinite(_run(VANILLA, x, recurrent, bias)).all()  # the library's loop: NaN


@pytest.mark.parametrize("heads, head_dim, bias_f", [(2, 3, None), (4, 1, float("nan")), (4, 5, None)])
def test_the_twin_loop_equals_the_twin_step_loop(heads, head_dim, bias_f):
    """The whole-sequence twin (backward through time by hand, as the kernel) against the library's
    loop over the twin step (autograd): all states bit for bit, gradients to float rounding, and the
    NaN forget bias of head_dim 1 handled the same (no NaN gradient)."""
    x, recurrent, bias = _inputs(bias_f=bias_f, heads=heads, head_dim=head_dim)
    hidden = heads * head_dim
    states = torch.zeros(4, x.shape[1], hidden)
    cell = type("Cell", (), {"_recurrent_kernel": recurrent, "_bias": bias})()
    loop = slstm_forward(x, states, recurrent, bias, twin_pointwise)[0]
    sequence = twin_sequence(cell, True, x, states)
    assert torch.equal(sequence, loop)
    cotangent = torch.randn(loop[:3].shape, generator=torch.Generator().manual_seed(2))  # into y, c and n
    for got, want in zip(torch.autograd.grad(sequence[:3], [x, recurrent, bias], cotangent),
                         torch.autograd.grad(loop[:3], [x, recurrent, bias], cotangent)):
        assert torch.isfinite(got).all()
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("heads, head_dim, bias_f", [(4, 1, float("nan")), (4, 5, None)])
def test_torchscript_runs_the_loops_bit_for_bit(heads, head_dim, bias_f):
    """The loops run under TorchScript's interpreter for speed; it must change no bit, NaN forget
    bias included, on later calls too (past the interpreter's first runs)."""
    x, recurrent, bias = (t.detach() for t in _inputs(bias_f=bias_f, heads=heads, head_dim=head_dim))
    states = torch.zeros(4, x.shape[1], heads * head_dim)
    r_t = recurrent.transpose(1, 2).reshape(1, heads, head_dim, 4 * head_dim)
    forward_args = (x, states, r_t, bias, heads, 4)
    want = _sequence_forward(*forward_args)
    d_out = torch.randn(want[0].shape, generator=torch.Generator().manual_seed(3))
    want_grads = _sequence_backward(d_out, *want, recurrent)
    for _ in range(3):
        got = _interpreted(_sequence_forward, *forward_args)
        got_grads = _interpreted(_sequence_backward, d_out, *got, recurrent)
        for a, b in zip(got + got_grads, want + want_grads):
            torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)
    assert torch.isfinite(got[0]).all() and got_grads[0].abs().sum() > 0


def test_the_models_sequences_run_through_the_twin_loop():
    model = build_model("xlstm", input_size=3, output_size=2, preset="cogscale-paper", budget=10_000)
    cells = [m for m in model.modules() if type(m).__name__ == "sLSTMCell_vanilla"]
    assert len(cells) == 1 and cells[0]._impl.__func__ is twin_sequence
    x = torch.randn(2, 9, 3)
    torch.testing.assert_close(model(x), model.step_by_step(x), rtol=1e-5, atol=1e-6)


def test_cogscale_1k_xlstm_trains_on_cpu_through_the_twin():
    """CogScale's "1k" xLSTM (d_model 4): NaN-initialised forget bias, finite fit with the twin."""
    from rote_hf.train import CogScaleProtocol, fit_cogscale
    from tests.train.test_cogscale_protocol import task

    def build(backend):
        return lambda: build_model("xlstm", input_size=3, output_size=3, preset="cogscale-paper", budget=1000,
                                   slstm_backend=backend)

    model = build("auto")()
    assert model.slstm_backend == "twin"
    assert [n for n, p in model.named_parameters() if p.isnan().any()] == ["stack.blocks.1.xlstm.slstm_cell._bias_"]
    protocol = CogScaleProtocol(learning_rate=1e-2, max_epochs=3, patience=3)
    fitted, fit = fit_cogscale(build("auto"), task(), protocol, seed=0)
    assert fit.epochs == 3 and 0.0 <= fit.metrics["test_score"] <= 1.0
    assert len({round(h[1], 6) for h in fit.history}) > 1  # it learns: the validation score moves
    with pytest.raises(Exception, match="not finite"):
        fit_cogscale(build("vanilla"), task(), protocol, seed=0)
