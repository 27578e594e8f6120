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
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


class _KernelStep(torch.autograd.Function):
    """One sLSTM step, elementwise, as ``SLSTMPointwiseForward``/``Backward`` compute it.

    raw: (batch, 4, hidden) pre-activations in gate order i, f, z, o; c, n, m: (batch, hidden).
    Returns (y, c, n, m) of the new state and the gates (i, f, z_raw, o) (4, batch, hidden);
    ``m`` (the stabiliser) and the gates have no gradient.
    """

    @staticmethod
    def forward(ctx, raw, c, n, m):
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
        ctx.save_for_backward(i_gate, f_gate, f_raw, z_val, o_gate, c, n, n_new, y_new)
        gates = torch.stack((i_gate, f_gate, z_raw, o_gate))
        ctx.mark_non_differentiable(m_new, gates)
        return y_new, c_new, n_new, m_new, gates

    @staticmethod
    def backward(ctx, dy, dc, dn, _dm, _dgates):
        i_gate, f_gate, f_raw, z_val, o_gate, c, n, n_new, y_new = ctx.saved_tensors
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
        return d_raw, f_gate * dc, f_gate * dn, None


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


def use_twin(module: torch.nn.Module) -> int:
    """Give every vanilla sLSTM cell of ``module`` the kernel's step; returns how many cells."""
    from xlstm.blocks.slstm.cell import sLSTMCell_vanilla

    cells = [m for m in module.modules() if isinstance(m, sLSTMCell_vanilla)]
    for cell in cells:
        cell.pointwise = twin_pointwise
    return len(cells)
