"""Causal linear attention (``linear-attention-transformer`` 0.19.1), ROTE wrapper:
``Linear(in -> d)`` + sinusoidal positions (no scaling) -> ``LinearAttentionTransformer`` -> ``Linear``.

The library's blocks are pre-LN with a 4x GELU feed-forward; it has no feed-forward width argument
(the ROTE reference passes one and it is ignored), q/k/v without bias, output projection with bias.
"""

from __future__ import annotations

import torch
from torch import nn

from ..layers import SinusoidalPositions, optional_import, rote_num_heads
from ..spec import register

_ATTN_PRESETS = {
    "rote-paper": {"d_model": 256, "num_layers": 2, "nhead": None},
    "rote-matched": {"num_layers": 2, "nhead": None},
}


class LinearAttentionModel(nn.Module):
    """x: (batch, time, in) -> (batch, time, out); causal."""

    def __init__(self, input_size: int, output_size: int, *, d_model: int, num_layers: int, nhead: int | None):
        super().__init__()
        lat = optional_import("linear_attention_transformer", "LinearAttentionTransformer", family="linear-attention")
        heads = rote_num_heads(d_model) if nhead is None else nhead
        if d_model % heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by nhead ({heads})")
        self.input_proj = nn.Linear(input_size, d_model)
        self.positions = SinusoidalPositions(d_model)
        # max_seq_len only sizes local/linformer attention, both off here: any length works
        self.encoder = lat(dim=d_model, depth=num_layers, max_seq_len=1, heads=heads, causal=True,
                           ff_dropout=0.0, attn_dropout=0.0, n_local_attn_heads=0)
        self.head = nn.Linear(d_model, output_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(self.positions(self.input_proj(x))))


@register(
    "linear-attention",
    family="LinearAttention",
    source="linear-attention-transformer 0.19.1",
    width_key="d_model",
    defaults={"d_model": 256, "num_layers": 2, "nhead": None},
    presets=_ATTN_PRESETS,
    count=lambda i, o, a: i * a["d_model"] + a["d_model"]
    + a["num_layers"] * (12 * a["d_model"] ** 2 + 10 * a["d_model"]) + a["d_model"] * o + o,
)
def build_linear_attention(input_size: int, output_size: int, **arch) -> nn.Module:
    """Causal global linear attention (library), ROTE wrapper."""
    return LinearAttentionModel(input_size, output_size, **arch)
