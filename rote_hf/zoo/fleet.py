"""Batched ("fleet") forwards: K independent models of one architecture computed as one pass.

A fleet's parameters are the members' ``state_dict`` tensors stacked on a new leading axis
(``torch.func.stack_module_state``): ``params[name]`` has shape (K, *shape of the member's
tensor*). A fleet forward maps ``(params, x)`` with x (K, batch, time, in) to (K, batch, time,
out) and computes, for each k, what member k's own module computes (same operations in the same
order; the results agree to float rounding, not bit for bit, because batched matrix products
block their sums differently).

Why hand-written instead of ``vmap``: ``nn.GRU``/``nn.LSTM`` have no ``vmap`` rule, so the
recurrences are ``torch.baddbmm`` over stacked weights, stepping with ``unbind`` over time
(indexing ``x[:, :, t]`` makes backward zero-fill a full tensor per step). The Transformer needs
per-member dropout: each member draws its masks from its own generator, in the order and shapes
its own module would (attention weights, then after attention, inside and after the
feed-forward, per layer), so member k's masks equal the one-run masks. ``vmap`` would draw one
mask for the whole fleet from the global generator.

Families with a fleet forward: ``gru``, ``lstm`` (:class:`~rote_hf.zoo.families.rnn.RecurrentReadout`,
any number of layers) and the decoder-only ``transformer``
(:class:`~rote_hf.zoo.families.transformer.DecoderOnlyTransformer`). :func:`fleet_forward`
returns ``None`` for every other module; callers then train those one at a time.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, Sequence

import torch
import torch.nn.functional as F
from torch import nn

Params = Mapping[str, torch.Tensor]
#: ``(params, x, dropout) -> y``: x (K, B, T, in) -> y (K, B, T, out); ``dropout`` is ``None`` in eval mode.
FleetForward = Callable[[Params, torch.Tensor, "MemberDropout | None"], torch.Tensor]


class MemberDropout:
    """Inverted dropout with one generator per member, drawn as ``torch.nn.functional.dropout`` does.

    On CPU, ``F.dropout`` draws ``empty_like(x).bernoulli_(1 - p)`` from the default generator
    and multiplies by the mask divided by ``1 - p``; here member k draws the same call from
    ``generators[k]`` (each generator holds the state member k's global RNG would have).
    """

    def __init__(self, generators: Sequence[torch.Generator]):
        self.generators = list(generators)

    def __call__(self, x: torch.Tensor, p: float, layout: tuple[int, ...] | None = None) -> torch.Tensor:
        """x: (K, ...) -> x with member k's slice dropped by its own mask.

        ``layout``: the member tensor's memory order when the one-run module drops it (a
        permutation of the member axes; ``None`` = contiguous). ``bernoulli_`` fills memory in
        order, so a mask drawn for a transposed tensor is the transposed draw.
        """
        if p <= 0.0:
            return x
        if len(self.generators) != x.shape[0]:
            raise ValueError(f"x has {x.shape[0]} members but there are {len(self.generators)} generators")
        shape = x.shape[1:] if layout is None else tuple(x.shape[1 + i] for i in layout)
        masks = [torch.empty(shape, dtype=x.dtype, device=x.device).bernoulli_(1 - p, generator=g)
                 for g in self.generators]
        if layout is not None:
            inverse = sorted(range(len(layout)), key=layout.__getitem__)
            masks = [m.permute(inverse) for m in masks]
        return x * torch.stack(masks).div_(1 - p)


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    """Per-member ``F.linear``: x (K, ..., in), weight (K, out, in), bias (K, out) -> (K, ..., out)."""
    k, d_in = x.shape[0], x.shape[-1]
    flat = x.reshape(k, -1, d_in)
    if bias is None:
        out = torch.bmm(flat, weight.transpose(1, 2))
    else:
        out = torch.baddbmm(bias.unsqueeze(1), flat, weight.transpose(1, 2))
    return out.reshape(*x.shape[:-1], weight.shape[1])


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """Per-member ``nn.LayerNorm`` over the last axis: x (K, ..., d), weight/bias (K, d)."""
    shape = (x.shape[0],) + (1,) * (x.dim() - 2) + (x.shape[-1],)
    return F.layer_norm(x, x.shape[-1:], eps=eps) * weight.reshape(shape) + bias.reshape(shape)


def _gru_layer(x, w_ih, w_hh, b_ih, b_hh):
    """One GRU layer (PyTorch's gate order r, z, n; zero initial state). x (K, B, T, in) -> (K, B, T, H)."""
    k, b = x.shape[:2]
    hidden = w_hh.shape[-1]
    gi = linear(x, w_ih, b_ih)  # all input gates at once, as torch's CPU GRU precomputes them
    w_hh_t, b_hh = w_hh.transpose(1, 2), b_hh.unsqueeze(1)
    h = x.new_zeros(k, b, hidden)
    outs = []
    # gates are split with split/chunk, never sliced: a slice's backward zero-fills the whole tensor
    for gi_rz, gi_n in zip(*(part.unbind(2) for part in gi.split([2 * hidden, hidden], -1))):
        gh_rz, gh_n = torch.baddbmm(b_hh, h, w_hh_t).split([2 * hidden, hidden], -1)
        r, z = torch.sigmoid(gh_rz + gi_rz).chunk(2, -1)
        n = torch.tanh(gi_n + gh_n * r)
        h = (h - n) * z + n
        outs.append(h)
    return torch.stack(outs, 2)


def _lstm_layer(x, w_ih, w_hh, b_ih, b_hh):
    """One LSTM layer (gate order i, f, g, o; zero initial state). x (K, B, T, in) -> (K, B, T, H)."""
    k, b = x.shape[:2]
    hidden = w_hh.shape[-1]
    gi = linear(x, w_ih, b_ih)
    w_hh_t, b_hh = w_hh.transpose(1, 2), b_hh.unsqueeze(1)
    h = x.new_zeros(k, b, hidden)
    c = x.new_zeros(k, b, hidden)
    outs = []
    for gi_t in gi.unbind(2):
        i, f, g, o = (torch.baddbmm(b_hh, h, w_hh_t) + gi_t).chunk(4, -1)
        i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
        c = f * c + i * g
        h = o * torch.tanh(c)
        outs.append(h)
    return torch.stack(outs, 2)


def _recurrent_forward(cell: str, num_layers: int) -> FleetForward:
    layer_fn = _gru_layer if cell == "gru" else _lstm_layer

    def forward(params: Params, x: torch.Tensor, dropout: MemberDropout | None = None) -> torch.Tensor:
        h = x
        for layer in range(num_layers):  # nn.GRU/LSTM without dropout between layers (the zoo's setting)
            h = layer_fn(h, params[f"rnn.weight_ih_l{layer}"], params[f"rnn.weight_hh_l{layer}"],
                         params[f"rnn.bias_ih_l{layer}"], params[f"rnn.bias_hh_l{layer}"])
        return linear(h, params["head.weight"], params["head.bias"])

    return forward


def _self_attention(params: Params, prefix: str, x: torch.Tensor, heads: int, p: float,
                    dropout: MemberDropout | None) -> torch.Tensor:
    """Causal multi-head self-attention as ``nn.MultiheadAttention`` + SDPA's math path compute it."""
    k, b, t, d = x.shape
    hd = d // heads
    qkv = linear(x, params[prefix + "in_proj_weight"], params[prefix + "in_proj_bias"])
    q, key, v = (part.reshape(k, b, t, heads, hd).transpose(2, 3) for part in qkv.chunk(3, -1))
    scale = math.sqrt(1.0 / math.sqrt(hd))  # SDPA's math path scales q and k by sqrt(scale) each
    attn = torch.matmul(q * scale, key.transpose(-2, -1) * scale)
    mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
    attn = attn.masked_fill(~mask, float("-inf")).softmax(-1)
    if dropout is not None:
        attn = dropout(attn, p)
    out = torch.matmul(attn, v).transpose(2, 3).reshape(k, b, t, d)
    return linear(out, params[prefix + "out_proj.weight"], params[prefix + "out_proj.bias"])


def _transformer_forward(model: nn.Module) -> FleetForward | None:
    layers = list(model.blocks.layers)
    first = layers[0]
    if first.norm_first or first.activation_relu_or_gelu != 1 or not first.self_attn.batch_first:
        return None  # only the zoo's post-norm ReLU layers have a batched twin
    heads = first.self_attn.num_heads
    p_attn, p = first.self_attn.dropout, first.dropout.p
    eps1, eps2 = first.norm1.eps, first.norm2.eps
    final_norm = isinstance(model.norm, nn.LayerNorm)
    scale = model.scale
    d_model = model.positions.d_model

    def forward(params: Params, x: torch.Tensor, dropout: MemberDropout | None = None) -> torch.Tensor:
        from .layers import sinusoidal_table

        h = linear(x, params["embed.weight"], params["embed.bias"]) * scale
        h = h + sinusoidal_table(x.shape[2], d_model, device=x.device, dtype=x.dtype)
        for i in range(len(layers)):
            pre = f"blocks.layers.{i}."
            a = _self_attention(params, pre + "self_attn.", h, heads, p_attn, dropout)
            if dropout is not None:  # nn.MultiheadAttention returns a (time, batch, d) buffer transposed
                a = dropout(a, p, layout=(1, 0, 2))
            h = layer_norm(h + a, params[pre + "norm1.weight"], params[pre + "norm1.bias"], eps1)
            f = torch.relu(linear(h, params[pre + "linear1.weight"], params[pre + "linear1.bias"]))
            if dropout is not None:
                f = dropout(f, p)
            f = linear(f, params[pre + "linear2.weight"], params[pre + "linear2.bias"])
            if dropout is not None:
                f = dropout(f, p)
            h = layer_norm(h + f, params[pre + "norm2.weight"], params[pre + "norm2.bias"], eps2)
        if final_norm:
            h = layer_norm(h, params["norm.weight"], params["norm.bias"], model.norm.eps)
        return linear(h, params["head.weight"], params["head.bias"])

    return forward


def fleet_forward(model: nn.Module) -> FleetForward | None:
    """The fleet forward for models of ``model``'s architecture, or ``None`` when the family has none.

    ``model`` is one member (all members share its architecture and shapes by construction).
    """
    from .families.rnn import RecurrentReadout
    from .families.transformer import DecoderOnlyTransformer

    if type(model) is RecurrentReadout:
        rnn = model.rnn
        if rnn.dropout or rnn.bidirectional or not rnn.batch_first or not rnn.bias or getattr(rnn, "proj_size", 0):
            return None
        return _recurrent_forward("gru" if isinstance(rnn, nn.GRU) else "lstm", rnn.num_layers)
    if type(model) is DecoderOnlyTransformer:
        return _transformer_forward(model)
    return None


#: Zoo names whose models have a fleet forward (the docs' zoo table lists the same).
FLEET_FAMILIES = ("gru", "lstm", "transformer")
