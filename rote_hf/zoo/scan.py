"""Scans for diagonal linear recurrences h_t = a_t * h_{t-1} + b_t (the shared core of the
minLSTM, RWKV-style and Mamba layers).

Two forms that must agree (tests check it): ``sequential_scan`` is the step-by-step definition;
``chunked_scan`` is the parallel form: inside a chunk of C steps every h_t is a weighted sum
sum_{s<=t} exp(A_t - A_s) b_s with A the cumulative log decay (A_t - A_s <= 0, so nothing
overflows however strong the decay), and chunks hand their last state to the next.
Memory is O(batch * C^2 * state) per chunk.
"""

from __future__ import annotations

import torch


def sequential_scan(a: torch.Tensor, b: torch.Tensor, h0: torch.Tensor | None = None) -> torch.Tensor:
    """a, b: (batch, time, *state), same shape, dtype and device; h0: (batch, *state) or None (zeros).
    Returns h (batch, time, *state), contiguous.

    Runs as :class:`_SequentialScan`: the same two elementwise operations per step as the loop
    ``h = a_t * h + b_t`` under autograd, written into one output, and a hand-written backward through
    time doing autograd's own operations (each step's gradient is a two-term sum, and IEEE addition
    and multiplication are commutative), so values and gradients equal the autograd loop bit for bit
    (tests/zoo/test_forms.py) at 1.2-2x less CPU time (benchmarks/mamba_scan_speed.md). Under a
    ``torch.func`` transform (the Mamba fleet's ``vmap``) it runs that loop itself.
    """
    if a.shape != b.shape or a.dtype != b.dtype or a.device != b.device:
        raise ValueError(f"a and b must share shape, dtype and device, got a {tuple(a.shape)} {a.dtype} {a.device} "
                         f"and b {tuple(b.shape)} {b.dtype} {b.device}")
    if a.dim() < 2 or a.size(1) == 0:
        raise ValueError(f"a and b must be (batch, time >= 1, *state), got {tuple(a.shape)}")
    if h0 is not None and (h0.shape != b[:, 0].shape or h0.dtype != b.dtype or h0.device != b.device):
        raise ValueError(f"h0 must be (batch, *state) {tuple(b[:, 0].shape)} {b.dtype} {b.device}, got "
                         f"{tuple(h0.shape)} {h0.dtype} {h0.device}")
    if torch._C._are_functorch_transforms_active():  # a Function would need a vmap rule; keep the fleet's bits
        return _autograd_loop(a, b, h0)
    return _SequentialScan.apply(a, b, h0)


def _autograd_loop(a: torch.Tensor, b: torch.Tensor, h0: torch.Tensor | None) -> torch.Tensor:
    """The recurrence stepped under autograd (the definition; what ``sequential_scan`` ran until issue 30)."""
    h = torch.zeros_like(b[:, 0]) if h0 is None else h0
    outs = []
    # unbind, not a[:, t]: each indexed step's backward zero-fills a full (batch, time, *state)
    # tensor; unbind's is one stack. Same values and gradients, bit for bit; 5-9x faster at Mamba's sizes.
    for a_t, b_t in zip(a.unbind(1), b.unbind(1)):
        h = a_t * h + b_t
        outs.append(h)
    return torch.stack(outs, dim=1)


class _SequentialScan(torch.autograd.Function):
    """h_t = a_t * h_{t-1} + b_t with a backward through time by hand (autograd's operations, fewer dispatches).

    Backward, with g_t the incoming gradient of h_t: dh_T = g_T, dh_t = g_t + dh_{t+1} * a_{t+1};
    grad b = dh; grad a_t = dh_t * h_{t-1} (one vectorised product; h_0 = h0 or zeros); grad h0 = dh_1 * a_1.
    """

    @staticmethod
    def forward(ctx, a: torch.Tensor, b: torch.Tensor, h0: torch.Tensor | None) -> torch.Tensor:
        out = torch.empty_like(b, memory_format=torch.contiguous_format)
        h = torch.zeros_like(b[:, 0]) if h0 is None else h0
        product = torch.empty_like(out[:, 0])
        for a_t, b_t, out_t in zip(a.unbind(1), b.unbind(1), out.unbind(1)):
            torch.mul(a_t, h, out=product)  # a_t * h, then + b_t: the loop's two roundings, in its order
            torch.add(product, b_t, out=out_t)
            h = out_t
        ctx.save_for_backward(a, out, h0)
        return out

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_out: torch.Tensor):
        a, out, h0 = ctx.saved_tensors
        dh = torch.empty_like(out)
        g_s, a_s, dh_s = grad_out.unbind(1), a.unbind(1), dh.unbind(1)
        dh_s[-1].copy_(g_s[-1])
        carried = torch.empty_like(dh_s[0])
        for t in range(len(dh_s) - 2, -1, -1):
            torch.mul(dh_s[t + 1], a_s[t + 1], out=carried)  # MulBackward's grad * other
            torch.add(g_s[t], carried, out=dh_s[t])  # the two contributions autograd accumulates
        grad_a = grad_h0 = None
        if ctx.needs_input_grad[0]:
            grad_a = torch.empty_like(dh)
            torch.mul(dh[:, 1:], out[:, :-1], out=grad_a[:, 1:])
            torch.mul(dh[:, 0], torch.zeros_like(dh[:, 0]) if h0 is None else h0, out=grad_a[:, 0])
        if ctx.needs_input_grad[2]:
            grad_h0 = dh[:, 0] * a[:, 0]
        return grad_a, dh if ctx.needs_input_grad[1] else None, grad_h0


def chunked_scan(
    log_a: torch.Tensor, b: torch.Tensor, h0: torch.Tensor | None = None, chunk: int = 16
) -> torch.Tensor:
    """Parallel-within-chunk form of ``sequential_scan(log_a.exp(), b, h0)``.

    log_a: (batch, time, *state), log of the decay (finite, <= 0 for a decay). b: same shape.
    """
    if chunk < 1:
        raise ValueError(f"chunk must be >= 1, got {chunk}")
    h = torch.zeros_like(b[:, 0]) if h0 is None else h0
    extra = (1,) * (b.dim() - 2)
    outs = []
    for start in range(0, b.size(1), chunk):
        la = log_a[:, start : start + chunk]
        bb = b[:, start : start + chunk]
        n = bb.size(1)
        cum = la.cumsum(dim=1)  # (batch, n, *state)
        diff = cum.unsqueeze(2) - cum.unsqueeze(1)  # [t, s] = A_t - A_s
        keep = torch.ones(n, n, dtype=torch.bool, device=b.device).tril().view(1, n, n, *extra)
        weights = torch.where(keep, diff, torch.full_like(diff, float("-inf"))).exp()
        hc = (weights * bb.unsqueeze(1)).sum(dim=2) + cum.exp() * h.unsqueeze(1)
        h = hc[:, -1]
        outs.append(hc)
    return torch.cat(outs, dim=1)


SCAN_MODES = ("auto", "chunked", "sequential")


def use_chunked(mode: str, x: torch.Tensor) -> bool:
    """Resolve a ``scan`` argument: "auto" runs the chunked parallel form on accelerators and the
    sequential form on CPU, where it measured 1.2-1.9x faster for fwd+bwd (benchmarks/zoo_speed.md)."""
    if mode not in SCAN_MODES:
        raise ValueError(f"scan must be one of {SCAN_MODES}, got {mode!r}")
    return mode == "chunked" or (mode == "auto" and x.device.type != "cpu")
