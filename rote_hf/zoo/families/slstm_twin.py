"""The sLSTM CUDA kernel's pointwise arithmetic in PyTorch: xlstm's vanilla loop with the kernel's step.

xlstm 2.0.6 ships two sLSTM backends that agree on finite numbers but not on NaN. CogScale's
"1k" xLSTM has d_model 4, so its sLSTM (4 heads) has one unit per head, and the library's
forget-gate bias initialisation computes ``arange(1) / (head_dim - 1) = 0 / 0``: the bias is NaN
from the start. The CUDA kernel (``cuda/slstm_pointwise.cu``), which CogScale's published runs
used, takes ``max``/``min`` of floats, i.e. ``fmaxf``/``fminf``, which return the other operand
when one is NaN:

- forward: ``m_new = fmax(i_raw, NaN) = i_raw``, so the input gate is ``fmin(1, exp(0)) = 1`` and
  the forget gate ``fmin(1, exp(NaN)) = 1``; the cell becomes a running sum
  ``c_t = c_{t-1} + tanh(z_t)``, ``n_t = n_{t-1} + 1``, ``y_t = o_t c_t / n_t``: finite;
- backward (hand-written in the kernel): the forget gate's gradient carries a factor
  ``1 - fmin(1, sigmoid(f_raw)) = 0``, so no NaN reaches any weight, and the NaN bias stays NaN
  with a zero gradient.

The vanilla backend uses ``torch.max``/``torch.minimum`` (NaN-propagating) and autograd, so every
output is NaN and every 1k run fails at its first step. :func:`twin_pointwise` replaces the
vanilla step with the kernel's arithmetic, forward and backward, so the published 1k runs'
computation runs on a CPU. On finite numbers it equals the vanilla step up to float rounding: the
stabiliser ``m`` cancels in ``c / n``, so the kernel's gradient (``m`` held constant) and
autograd's (through ``m``) agree. Differences that remain: the kernel keeps its weights, gates and
states in bfloat16, the twin in the input's dtype (float32).

:func:`use_twin` gives a cell both forms: :func:`twin_pointwise` for the library's step mode, and
:func:`twin_sequence` for whole sequences, the kernel's loop with its backward through time
written out (:class:`_KernelSequence`), as the CUDA kernel runs it. Its states equal the library's
loop over the twin step bit for bit and its gradients to float rounding (the weight gradients are
summed over time in one product); it skips autograd's ~20 graph nodes per step and runs the
CogScale xLSTM fits 1.05-2.3x faster on CPU. Both loops run under TorchScript's interpreter
(:func:`_interpreted`), bit for bit as Python would run them, the loops 1.2-1.75x and the fits
about 7 % faster again (benchmarks/slstm_twin_speed.md).
"""

from __future__ import annotations

import functools
import warnings

import torch
import torch.nn.functional as F


def _kernel_step_values(raw, c, n, m):
    """The kernel's forward step on plain tensors. raw: (batch, 4, hidden) pre-activations in gate
    order i, f, z, o; c, n, m: (batch, hidden). Returns (y, c, n, m) of the new state and what the
    backward needs: (i_gate, f_gate, f_raw, tanh(z_raw), o_gate)."""
    i_raw, f_raw, z_raw, o_raw = raw.unbind(1)
    log_f_plus_m = m + F.logsigmoid(f_raw)
    m_new = torch.where(n == 0, i_raw, torch.fmax(i_raw, log_f_plus_m))  # per element, as the kernel
    one = torch.ones((), dtype=raw.dtype, device=raw.device)
    o_gate = torch.fmin(one, torch.sigmoid(o_raw))
    i_gate = torch.fmin(one, torch.exp(i_raw - m_new))
    f_gate = torch.fmin(one, torch.exp(log_f_plus_m - m_new))
    z_val = torch.tanh(z_raw)
    c_new = f_gate * c + i_gate * z_val
    n_new = f_gate * n + i_gate
    y_new = o_gate * (c_new / n_new)
    return y_new, c_new, n_new, m_new, (i_gate, f_gate, f_raw, z_val, o_gate)


def _kernel_step_grads(dy, dc, dn, gates: list[torch.Tensor], c, n, n_new, y_new):
    """The kernel's hand-written backward of one step (``m`` held constant). dy, dc, dn: gradients
    into the new y, c, n; ``gates`` as :func:`_kernel_step_values` returns them; c, n the old state.
    Returns (d_raw (batch, 4, hidden), gradient into the old c, gradient into the old n)."""
    i_gate, f_gate, f_raw, z_val, o_gate = gates
    dy_inter = dy / n_new
    dc = dc + dy_inter * o_gate
    dn = dn - dy_inter * y_new
    f_sig = torch.fmin(torch.ones((), dtype=f_raw.dtype, device=f_raw.device), torch.sigmoid(f_raw))
    d_raw = torch.stack([
        i_gate * (z_val * dc + dn),
        f_gate * (dc * c + dn * n) * (1 - f_sig),
        dc * i_gate * (1 - z_val * z_val),
        (1 - o_gate) * (y_new * dy),
    ], 1)
    return d_raw, f_gate * dc, f_gate * dn


class _KernelStep(torch.autograd.Function):
    """One sLSTM step, elementwise, as ``SLSTMPointwiseForward``/``Backward`` compute it.

    raw: (batch, 4, hidden) pre-activations in gate order i, f, z, o; c, n, m: (batch, hidden).
    Returns (y, c, n, m) of the new state and the gates (i, f, z_raw, o) (4, batch, hidden);
    ``m`` (the stabiliser) and the gates have no gradient.
    """

    @staticmethod
    def forward(ctx, raw, c, n, m):
        y_new, c_new, n_new, m_new, kept = _kernel_step_values(raw, c, n, m)
        ctx.save_for_backward(*kept, c, n, n_new, y_new)
        i_gate, f_gate, _, _, o_gate = kept
        gates = torch.stack((i_gate, f_gate, raw[:, 2], o_gate))
        ctx.mark_non_differentiable(m_new, gates)
        return y_new, c_new, n_new, m_new, gates

    @staticmethod
    def backward(ctx, dy, dc, dn, _dm, _dgates):
        *kept, c, n, n_new, y_new = ctx.saved_tensors
        d_raw, d_c, d_n = _kernel_step_grads(dy, dc, dn, kept, c, n, n_new, y_new)
        return d_raw, d_c, d_n, None


def twin_pointwise(Wx: torch.Tensor, Ry: torch.Tensor, b: torch.Tensor, states: torch.Tensor,
                   constants: dict[str, float]) -> tuple[torch.Tensor, torch.Tensor]:
    """Drop-in for xlstm's vanilla ``slstm_forward_pointwise``.

    Wx, Ry: (batch, 4 * hidden); b: (4 * hidden,); states: (4, batch, hidden) = (y, c, n, m).
    Returns the new states (4, batch, hidden) and the gates (i, f, z_raw, o) (4, batch, hidden),
    which the library's loop stores but never differentiates.
    """
    del constants  # the vanilla step ignores them too (no clipping configured)
    raw = (Wx + Ry + b).view(Wx.shape[0], 4, -1)
    _, c, n, m = states.view(4, states.shape[1], -1).unbind(0)
    y_new, c_new, n_new, m_new, gates = _KernelStep.apply(raw, c, n, m)
    return torch.stack((y_new, c_new, n_new, m_new)), gates


def _sequence_forward(x: torch.Tensor, states0: torch.Tensor, r_t: torch.Tensor, b: torch.Tensor, heads: int,
                      gates: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The kernel's loop forward: x (time, batch, 4 * hidden), states0 (4, batch, hidden), r_t the
    recurrent weights laid out as the library's loop uses them (1, heads, head_dim, 4 * head_dim).
    Returns all states (4, time + 1, batch, hidden) and each step's (i, f, f_raw, tanh(z), o)
    (5, time, batch, hidden)."""
    batch = x.size(1)
    y, c, n, m = states0[0], states0[1], states0[2], states0[3]
    states = [[y], [c], [n], [m]]
    kept: list[list[torch.Tensor]] = [[], [], [], [], []]
    for x_t in x.unbind(0):
        ry = (y.reshape(batch, heads, 1, -1).matmul(r_t).reshape(batch, heads, gates, -1)
              .transpose(1, 2).reshape(batch, -1))
        raw = (x_t + ry + b).view(batch, 4, -1)
        y, c, n, m, keep = _kernel_step_values(raw, c, n, m)
        for k, v in enumerate((y, c, n, m)):
            states[k].append(v)
        for k, v in enumerate(keep):
            kept[k].append(v)
    return torch.stack([torch.stack(s) for s in states]), torch.stack([torch.stack(k) for k in kept])


def _sequence_backward(d_out: torch.Tensor, out: torch.Tensor, saved: torch.Tensor,
                       R: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The kernel's backward through time, from the gradients into all states d_out (4, time + 1,
    batch, hidden) and what :func:`_sequence_forward` returned; R: (heads, 4 * head_dim, head_dim).
    Returns the pre-activation gradients (time, batch, 4, hidden) and those into the initial y, c, n."""
    steps, batch, hidden = out.size(1) - 1, out.size(2), out.size(3)
    heads, head_dim = R.size(0), R.size(2)
    d_raws: list[torch.Tensor] = []
    dy, dc, dn = d_out[0, steps], d_out[1, steps], d_out[2, steps]
    for t in range(steps - 1, -1, -1):
        d_raw, d_c, d_n = _kernel_step_grads(dy, dc, dn, saved[:, t].unbind(0), out[1, t], out[2, t],
                                             out[2, t + 1], out[0, t + 1])
        d_raws.append(d_raw)
        # back through ry = y_{t-1} R: (batch, gates, heads, head_dim) -> per head (batch, gates * head_dim)
        d_ry = d_raw.view(batch, 4, heads, head_dim).transpose(1, 2).reshape(batch, heads, -1)
        dy = d_out[0, t] + torch.bmm(d_ry.transpose(0, 1), R).transpose(0, 1).reshape(batch, hidden)
        dc = d_out[1, t] + d_c
        dn = d_out[2, t] + d_n
    d_raws.reverse()
    return torch.stack(d_raws), dy, dc, dn


@functools.cache
def _compiled(loop):
    with warnings.catch_warnings():  # torch 2.13 calls torch.jit.script deprecated; it is still there
        warnings.simplefilter("ignore", DeprecationWarning)
        return torch.jit.script(loop)


def _interpreted(loop, *args):
    """Run ``loop`` (one of the two above) compiled by TorchScript and interpreted without graph
    optimisation: the same ATen operations in the same order as Python runs them, so the same bits
    (nothing is fused, on any device), at less overhead per operation; the loops are ~20 small
    operations a step, so that overhead is most of their cost (benchmarks/slstm_twin_speed.md)."""
    with torch.jit.optimized_execution(False):
        return _compiled(loop)(*args)


class _KernelSequence(torch.autograd.Function):
    """The whole sLSTM loop with the kernel's step, forward and backward through time by hand, as
    the CUDA kernel runs it: no autograd graph of ~20 nodes per step.

    x: (time, batch, 4 * hidden) input pre-activations (gate-major, as xlstm's vanilla loop);
    states0: (4, batch, hidden) = (y, c, n, m); R: (heads, 4 * head_dim, head_dim); b: (4 * hidden,).
    Returns all states (4, time + 1, batch, hidden), as xlstm's ``slstm_forward``; gradients flow
    through y, c and n (the stabiliser m has none, as in :class:`_KernelStep`).
    Forward values equal the per-step twin bit for bit (the same operations in the same order);
    gradients equal it to float rounding (weight gradients are summed over time in one product).
    """

    @staticmethod
    def forward(ctx, x, states0, R, b):
        heads, gate_dim, head_dim = R.shape
        gates = gate_dim // head_dim
        r_t = R.transpose(1, 2).reshape(1, heads, head_dim, gates * head_dim)  # as the library's loop
        out, saved = _interpreted(_sequence_forward, x, states0, r_t, b, heads, gates)
        ctx.save_for_backward(out, saved, R)
        return out

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, d_out):
        out, saved, R = ctx.saved_tensors
        _, steps1, batch, hidden = out.shape
        steps = steps1 - 1
        heads, _, head_dim = R.shape
        d_raw_all, dy, dc, dn = _interpreted(_sequence_backward, d_out, out, saved, R)
        d_x = d_raw_all.reshape(steps, batch, 4 * hidden)
        d_b = d_x.sum((0, 1))
        y_prev = out[0, :steps].reshape(steps * batch, heads, head_dim)
        d_ry_all = d_raw_all.view(steps * batch, 4, heads, head_dim).transpose(1, 2).reshape(steps * batch, heads, -1)
        d_r = torch.einsum("phi,phj->hji", y_prev, d_ry_all)  # (heads, gates * head_dim, head_dim)
        d_states0 = torch.stack((dy, dc, dn, torch.zeros_like(dn)))
        return d_x, d_states0, d_r, d_b


def twin_sequence(cell, training: bool, x: torch.Tensor, states: torch.Tensor) -> torch.Tensor:
    """Drop-in for ``sLSTMCell_vanilla._impl``: all states (4, time + 1, batch, hidden) of the loop."""
    del training
    return _KernelSequence.apply(x, states, cell._recurrent_kernel, cell._bias)


def use_twin(module: torch.nn.Module) -> int:
    """Give every vanilla sLSTM cell of ``module`` the kernel's step (and, for whole sequences, the
    kernel's loop with its hand-written backward); returns how many cells."""
    import types

    from xlstm.blocks.slstm.cell import sLSTMCell_vanilla

    cells = [m for m in module.modules() if isinstance(m, sLSTMCell_vanilla)]
    for cell in cells:
        cell.pointwise = twin_pointwise
        cell._impl = types.MethodType(twin_sequence, cell)
    return len(cells)
