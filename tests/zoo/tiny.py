"""Tiny configurations of every registry name, shared by the zoo tests (CPU-cheap)."""

from __future__ import annotations

TINY = {
    "lstm": {"hidden_size": 8},
    "gru": {"hidden_size": 8},
    "mingru": {"hidden_size": 8},
    "minlstm": {"hidden_size": 8},
    "minlstm-rote": {"hidden_size": 8},
    "transformer": {"d_model": 16, "nhead": 2},
    "transformer-ed": {"d_model": 16, "nhead": 2},
    "linear-attention": {"d_model": 16, "nhead": 2},
    "performer": {"d_model": 16, "nhead": 2},
    "rwkv": {"d_model": 16},
    "rwkv-rote": {"d_model": 16},
    "xlstm": {"d_model": 16},
    "mamba": {"d_model": 8},
    "esn": {"units": 24},
}
