"""Batched ("fleet") forwards: K independent models of one architecture computed as one pass.

A fleet's parameters are the members' ``state_dict`` tensors stacked on a new leading axis
(``torch.func.stack_module_state``): ``params[name]`` has shape (K, *shape of the member's
tensor*). A fleet forward maps ``(params, x)`` with x (K, batch, time, in) to (K, batch, time,
out) and computes, for each k, what member k's own module computes (the same operations in the same
order). The results agree to float rounding, not bit for bit: the batched products give the
per-member products' bits in the forward pass, but a member's own module runs fused kernels
(oneDNN's LSTM, ATen's GRU cell, fused attention and layer norm, and their backward) whose
arithmetic these composed operations do not reproduce (``benchmarks/reproducibility.md``).

Why hand-written instead of ``vmap``: ``nn.GRU``/``nn.LSTM`` have no ``vmap`` rule, so the
recurrences are ``torch.baddbmm`` over stacked weights, stepping with ``unbind`` over time
(indexing ``x[:, :, t]`` makes backward zero-fill a full tensor per step). The Transformer needs
per-member dropout: each member draws its masks from its own generator, in the order and shapes
its own module would (attention weights, then after attention, inside and after the
feed-forward, per layer), so member k's masks equal the one-run masks. ``vmap`` would draw one
mask for the whole fleet from the global generator.

Families with a fleet forward (:data:`FLEET_FAMILIES`):

- ``gru``, ``lstm`` (:class:`~rote_hf.zoo.families.rnn.RecurrentReadout`, any number of layers);
- ``transformer`` and ``transformer-ed`` (decoder-only and encoder-decoder, one post-norm block
  twin; the encoder is unmasked, the decoder adds cross-attention; dropout drawn in the one-run order);
- ``mamba``: no dropout, and every operation has a ``vmap`` rule, so its twin is ``vmap`` of the
  member's own forward.

:func:`fleet_forward` returns ``None`` for every other module (xLSTM's library updates tensors in
place, which ``vmap`` refuses); callers then train those one at a time.
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


def _attention(params: Params, prefix: str, x: torch.Tensor, memory: torch.Tensor | None, heads: int, p: float,
               dropout: MemberDropout | None, *, causal: bool) -> torch.Tensor:
    """Multi-head attention as ``nn.MultiheadAttention`` + SDPA's math path compute it in training.

    x (K, B, T, d) gives the queries; keys and values come from ``memory`` (K, B, S, d) for
    cross-attention, from x itself when ``memory`` is None. ``causal`` masks future positions.
    """
    k, b, t, d = x.shape
    hd = d // heads
    if memory is None:
        q, key, v = linear(x, params[prefix + "in_proj_weight"], params[prefix + "in_proj_bias"]).chunk(3, -1)
    else:  # the packed projection split as F.multi_head_attention_forward splits it: q, then k and v together
        w_q, w_kv = params[prefix + "in_proj_weight"].split([d, 2 * d], 1)
        b_q, b_kv = params[prefix + "in_proj_bias"].split([d, 2 * d], 1)
        q = linear(x, w_q, b_q)
        key, v = linear(memory, w_kv, b_kv).chunk(2, -1)
    s = key.shape[2]
    q = q.reshape(k, b, t, heads, hd).transpose(2, 3)
    key, v = (part.reshape(k, b, s, heads, hd).transpose(2, 3) for part in (key, v))
    scale = math.sqrt(1.0 / math.sqrt(hd))  # SDPA's math path scales q and k by sqrt(scale) each
    attn = torch.matmul(q * scale, key.transpose(-2, -1) * scale)
    if causal:
        mask = torch.ones(t, s, dtype=torch.bool, device=x.device).tril()
        attn = attn.masked_fill(~mask, float("-inf"))
    attn = attn.softmax(-1)
    if dropout is not None:
        attn = dropout(attn, p)
    out = torch.matmul(attn, v).transpose(2, 3).reshape(k, b, t, d)
    return linear(out, params[prefix + "out_proj.weight"], params[prefix + "out_proj.bias"])


def _post_norm_block(params: Params, pre: str, h: torch.Tensor, memory: torch.Tensor | None, *, heads: int,
                     p_attn: float, p: float, eps: Sequence[float], causal: bool,
                     dropout: MemberDropout | None) -> torch.Tensor:
    """One post-norm ReLU ``nn.TransformerEncoderLayer`` (``memory`` None) or ``nn.TransformerDecoderLayer``
    (self-attention, then cross-attention to ``memory``), with its dropout draws in the layer's order."""
    sublayers = [("self_attn.", None, causal)] + ([] if memory is None else [("multihead_attn.", memory, False)])
    for j, (attn, source, masked) in enumerate(sublayers):
        a = _attention(params, pre + attn, h, source, heads, p_attn, dropout, causal=masked)
        if dropout is not None:  # nn.MultiheadAttention returns a (time, batch, d) buffer transposed
            a = dropout(a, p, layout=(1, 0, 2))
        h = layer_norm(h + a, params[f"{pre}norm{j + 1}.weight"], params[f"{pre}norm{j + 1}.bias"], eps[j])
    f = torch.relu(linear(h, params[pre + "linear1.weight"], params[pre + "linear1.bias"]))
    if dropout is not None:
        f = dropout(f, p)
    f = linear(f, params[pre + "linear2.weight"], params[pre + "linear2.bias"])
    if dropout is not None:
        f = dropout(f, p)
    last = len(sublayers) + 1  # norm2 after an encoder layer's feed-forward, norm3 after a decoder layer's
    return layer_norm(h + f, params[f"{pre}norm{last}.weight"], params[f"{pre}norm{last}.bias"], eps[last - 1])


def _post_norm_relu(layers: Sequence[nn.Module]) -> bool:
    """Whether every layer is the zoo's post-norm ReLU batch-first kind (the kind with a batched twin)."""
    return all(not layer.norm_first and layer.activation is F.relu and layer.self_attn.batch_first
               for layer in layers)


def _layer_settings(layer: nn.Module) -> dict:
    """The keyword arguments of :func:`_post_norm_block` for ``layer`` (``eps``: norm1, norm2[, norm3])."""
    norms = [getattr(layer, f"norm{i}") for i in (1, 2, 3) if hasattr(layer, f"norm{i}")]
    return {"heads": layer.self_attn.num_heads, "p_attn": layer.self_attn.dropout, "p": layer.dropout.p,
            "eps": [m.eps for m in norms]}


def _transformer_forward(model: nn.Module) -> FleetForward | None:
    layers = list(model.blocks.layers)
    if not _post_norm_relu(layers):
        return None  # only the zoo's post-norm ReLU layers have a batched twin
    settings = [_layer_settings(layer) for layer in layers]
    final_norm = isinstance(model.norm, nn.LayerNorm)
    scale = model.scale
    d_model = model.positions.d_model

    def forward(params: Params, x: torch.Tensor, dropout: MemberDropout | None = None) -> torch.Tensor:
        from .layers import sinusoidal_table

        h = linear(x, params["embed.weight"], params["embed.bias"]) * scale
        h = h + sinusoidal_table(x.shape[2], d_model, device=x.device, dtype=x.dtype)
        for i, kw in enumerate(settings):
            h = _post_norm_block(params, f"blocks.layers.{i}.", h, None, causal=True, dropout=dropout, **kw)
        if final_norm:
            h = layer_norm(h, params["norm.weight"], params["norm.bias"], model.norm.eps)
        return linear(h, params["head.weight"], params["head.bias"])

    return forward


def _encoder_decoder_forward(model: nn.Module) -> FleetForward | None:
    """The twin of :class:`~rote_hf.zoo.families.transformer.EncoderDecoderTransformer`: the encoder
    (unmasked) over the source, its final norm, then the decoder (causal self-attention, cross-attention
    to the encoder's output) over the target; dropout draws in the one-run order (encoder first)."""
    encoder, decoder = list(model.transformer.encoder.layers), list(model.transformer.decoder.layers)
    if not _post_norm_relu(encoder + decoder):
        return None
    enc_settings = [_layer_settings(layer) for layer in encoder]
    dec_settings = [_layer_settings(layer) for layer in decoder]
    enc_eps, dec_eps = model.transformer.encoder.norm.eps, model.transformer.decoder.norm.eps
    final_norm = isinstance(model.norm, nn.LayerNorm)
    shared = model.tgt_embed is None
    scale = model.scale
    d_model = model.positions.d_model

    def forward(params: Params, x: torch.Tensor, dropout: MemberDropout | None = None) -> torch.Tensor:
        from .layers import sinusoidal_table

        positions = sinusoidal_table(x.shape[2], d_model, device=x.device, dtype=x.dtype)
        src = linear(x, params["src_embed.weight"], params["src_embed.bias"]) * scale + positions
        tgt = src if shared else linear(x, params["tgt_embed.weight"], params["tgt_embed.bias"]) * scale + positions
        memory = src
        for i, kw in enumerate(enc_settings):
            memory = _post_norm_block(params, f"transformer.encoder.layers.{i}.", memory, None, causal=False,
                                      dropout=dropout, **kw)
        memory = layer_norm(memory, params["transformer.encoder.norm.weight"], params["transformer.encoder.norm.bias"],
                            enc_eps)
        h = tgt
        for i, kw in enumerate(dec_settings):
            h = _post_norm_block(params, f"transformer.decoder.layers.{i}.", h, memory, causal=True, dropout=dropout,
                                 **kw)
        h = layer_norm(h, params["transformer.decoder.norm.weight"], params["transformer.decoder.norm.bias"], dec_eps)
        if final_norm:
            h = layer_norm(h, params["norm.weight"], params["norm.bias"], model.norm.eps)
        return linear(h, params["head.weight"], params["head.bias"])

    return forward


def _vmapped_forward(model: nn.Module) -> FleetForward:
    """``vmap`` of the member's own forward over the stacked parameters, for families whose training
    forward draws no random numbers (``randomness="error"`` makes a draw fail loudly instead of
    sharing one mask across members). x (K, B, T, in) -> (K, B, T, out)."""
    from torch.func import functional_call, vmap

    batched = vmap(lambda p, x: functional_call(model, p, (x,)), randomness="error")

    def forward(params: Params, x: torch.Tensor, dropout: MemberDropout | None = None) -> torch.Tensor:
        return batched(dict(params), x)

    return forward


def fleet_forward(model: nn.Module) -> FleetForward | None:
    """The fleet forward for models of ``model``'s architecture, or ``None`` when the family has none.

    ``model`` is one member (all members share its architecture and shapes by construction).
    """
    from .families.mamba import MambaStack
    from .families.rnn import RecurrentReadout
    from .families.transformer import DecoderOnlyTransformer, EncoderDecoderTransformer

    if type(model) is RecurrentReadout:
        rnn = model.rnn
        if rnn.dropout or rnn.bidirectional or not rnn.batch_first or not rnn.bias or getattr(rnn, "proj_size", 0):
            return None
        return _recurrent_forward("gru" if isinstance(rnn, nn.GRU) else "lstm", rnn.num_layers)
    if type(model) is DecoderOnlyTransformer:
        return _transformer_forward(model)
    if type(model) is EncoderDecoderTransformer:
        return _encoder_decoder_forward(model)
    if type(model) is MambaStack:  # no dropout, and every operation has a vmap rule
        return _vmapped_forward(model)
    return None


#: Zoo names whose models have a fleet forward (the docs' zoo table lists the same).
FLEET_FAMILIES = ("gru", "lstm", "transformer", "transformer-ed", "mamba")
