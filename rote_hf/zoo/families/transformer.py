"""Softmax-attention Transformers built on ``torch.nn`` (post-norm, ReLU, FF = 4d by default).

- ``transformer`` (decoder-only, causal): ``Linear`` embedding (+ optional x sqrt(d)), sinusoidal
  positions, L ``nn.TransformerEncoderLayer`` with a causal mask, optional final LayerNorm, ``Linear``
  per step. CogScale's "DO" baseline is this with 2 heads, dropout 0.1 and a final LayerNorm.
- ``transformer-ed`` (encoder-decoder, NOT causal): the same input feeds both sides; only the
  decoder self-attention is masked, so the encoder and cross-attention see the whole sequence and
  output t depends on inputs after t. ROTE's "Transformer" (shared input ``Linear`` x sqrt(d),
  8 heads, dropout 0.1) reads only the last step, where this cannot leak; CogScale's "ED"
  (separate src/tgt embeddings, 2 heads, extra final LayerNorm) reads every step and does leak.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ..layers import SinusoidalPositions, causal_mask, rote_num_heads
from ..spec import register


def _heads(d_model: int, nhead: int | None) -> int:
    heads = rote_num_heads(d_model) if nhead is None else nhead
    if d_model % heads:
        raise ValueError(f"d_model ({d_model}) must be divisible by nhead ({heads})")
    return heads


class DecoderOnlyTransformer(nn.Module):
    """Causal Transformer. x: (batch, time, in) -> (batch, time, out)."""

    def __init__(self, input_size, output_size, *, d_model, num_layers, nhead, dim_feedforward, dropout,
                 scale_embedding, final_norm):
        super().__init__()
        self.scale = math.sqrt(d_model) if scale_embedding else 1.0
        self.embed = nn.Linear(input_size, d_model)
        self.positions = SinusoidalPositions(d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, _heads(d_model, nhead), dim_feedforward or 4 * d_model, dropout, batch_first=True
        )
        self.blocks = nn.TransformerEncoder(layer, num_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model) if final_norm else nn.Identity()
        self.head = nn.Linear(d_model, output_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.positions(self.embed(x) * self.scale)
        mask = causal_mask(x.size(1), x.device)
        return self.head(self.norm(self.blocks(h, mask=mask, is_causal=True)))


class EncoderDecoderTransformer(nn.Module):
    """``nn.Transformer`` fed the same sequence as source and target. x: (batch, time, in) -> (batch, time, out)."""

    def __init__(self, input_size, output_size, *, d_model, num_layers, nhead, dim_feedforward, dropout,
                 scale_embedding, final_norm, shared_embedding):
        super().__init__()
        self.scale = math.sqrt(d_model) if scale_embedding else 1.0
        self.src_embed = nn.Linear(input_size, d_model)
        self.tgt_embed = None if shared_embedding else nn.Linear(input_size, d_model)
        self.positions = SinusoidalPositions(d_model)
        self.transformer = nn.Transformer(
            d_model=d_model,
            nhead=_heads(d_model, nhead),
            num_encoder_layers=num_layers,
            num_decoder_layers=num_layers,
            dim_feedforward=dim_feedforward or 4 * d_model,
            dropout=dropout,
            batch_first=True,
        )
        self.norm = nn.LayerNorm(d_model) if final_norm else nn.Identity()
        self.head = nn.Linear(d_model, output_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        src = self.positions(self.src_embed(x) * self.scale)
        tgt = src if self.tgt_embed is None else self.positions(self.tgt_embed(x) * self.scale)
        mask = causal_mask(x.size(1), x.device)
        return self.head(self.norm(self.transformer(src, tgt, tgt_mask=mask, tgt_is_causal=True)))


def _layer_count(d: int, ff: int, cross: bool) -> int:
    attn = 4 * d * d + 4 * d
    blocks = attn * (2 if cross else 1) + 2 * d * ff + ff + d + (3 if cross else 2) * 2 * d
    return blocks


@register(
    "transformer",
    family="Transformer",
    source="torch.nn.TransformerEncoder (causal mask)",
    width_key="d_model",
    defaults={"d_model": 256, "num_layers": 2, "nhead": None, "dim_feedforward": None, "dropout": 0.1,
              "scale_embedding": False, "final_norm": True},
    presets={
        "rote-paper": {"d_model": 256, "num_layers": 2, "nhead": None, "dim_feedforward": None,
                       "dropout": 0.1, "scale_embedding": True, "final_norm": True},
        "rote-matched": {"num_layers": 2, "nhead": None, "dim_feedforward": None, "dropout": 0.1,
                         "scale_embedding": True, "final_norm": True},
        "cogscale": {"num_layers": 2, "nhead": 2, "dim_feedforward": None, "dropout": 0.1,
                     "scale_embedding": False, "final_norm": True, "_width_step": 2},
        "cogscale-paper": {"num_layers": 2, "nhead": 2, "dim_feedforward": None, "dropout": 0.1,
                           "scale_embedding": False, "final_norm": True},
    },
    count=lambda i, o, a: i * a["d_model"] + a["d_model"]
    + a["num_layers"] * _layer_count(a["d_model"], a["dim_feedforward"] or 4 * a["d_model"], False)
    + (2 * a["d_model"] if a["final_norm"] else 0) + a["d_model"] * o + o,
)
def build_transformer(input_size: int, output_size: int, **arch) -> nn.Module:
    """Decoder-only (causal) Transformer."""
    return DecoderOnlyTransformer(input_size, output_size, **arch)


@register(
    "transformer-ed",
    family="Transformer",
    source="torch.nn.Transformer (encoder-decoder, same input on both sides)",
    width_key="d_model",
    causal=False,
    defaults={"d_model": 256, "num_layers": 2, "nhead": None, "dim_feedforward": None, "dropout": 0.1,
              "scale_embedding": True, "final_norm": False, "shared_embedding": True},
    presets={
        "rote-paper": {"d_model": 256, "num_layers": 2, "nhead": None, "dim_feedforward": None,
                       "dropout": 0.1, "scale_embedding": True, "final_norm": False, "shared_embedding": True},
        "rote-matched": {"num_layers": 2, "nhead": None, "dim_feedforward": None, "dropout": 0.1,
                         "scale_embedding": True, "final_norm": False, "shared_embedding": True},
        "cogscale": {"num_layers": 2, "nhead": 2, "dim_feedforward": None, "dropout": 0.1,
                     "scale_embedding": False, "final_norm": True, "shared_embedding": False, "_width_step": 2},
        "cogscale-paper": {"num_layers": 2, "nhead": 2, "dim_feedforward": None, "dropout": 0.1,
                           "scale_embedding": False, "final_norm": True, "shared_embedding": False},
    },
    count=lambda i, o, a: (1 if a["shared_embedding"] else 2) * (i * a["d_model"] + a["d_model"])
    + a["num_layers"] * (_layer_count(a["d_model"], a["dim_feedforward"] or 4 * a["d_model"], False)
                         + _layer_count(a["d_model"], a["dim_feedforward"] or 4 * a["d_model"], True))
    + 2 * 2 * a["d_model"] + (2 * a["d_model"] if a["final_norm"] else 0) + a["d_model"] * o + o,
)
def build_transformer_ed(input_size: int, output_size: int, **arch) -> nn.Module:
    """Encoder-decoder Transformer fed the same input twice (non-causal)."""
    return EncoderDecoderTransformer(input_size, output_size, **arch)
