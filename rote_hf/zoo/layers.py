"""Small shared pieces: sinusoidal positions, the ROTE head rule, the optional-import helper."""

from __future__ import annotations

import importlib
import math

import torch
from torch import nn

ROTE_MAX_HEADS = 8


def rote_num_heads(d_model: int) -> int:
    """Largest h <= 8 that divides ``d_model`` (the ROTE reference's head rule)."""
    for heads in range(min(ROTE_MAX_HEADS, d_model), 0, -1):
        if d_model % heads == 0:
            return heads
    return 1


def optional_import(module: str, attr: str, *, family: str):
    """Import ``module.attr``; a missing optional package raises ImportError naming the extra."""
    try:
        return getattr(importlib.import_module(module), attr)
    except ImportError as exc:  # the message says once what is missing and how to get it
        raise ImportError(
            f"the {family!r} architecture needs the package providing {module!r}; "
            "install it with `pip install 'rote-hf[models]'`"
        ) from exc


def sinusoidal_table(length: int, d_model: int, *, device=None, dtype=torch.float32) -> torch.Tensor:
    """(length, d_model) sin/cos table of "Attention is all you need" (odd d_model allowed)."""
    position = torch.arange(length, dtype=torch.float32, device=device).unsqueeze(1)
    div_term = torch.exp(
        torch.arange(0, d_model, 2, dtype=torch.float32, device=device) * (-math.log(10000.0) / d_model)
    )
    table = torch.zeros(length, d_model, device=device)
    table[:, 0::2] = torch.sin(position * div_term)
    table[:, 1::2] = torch.cos(position * div_term[: table[:, 1::2].shape[1]])
    return table.to(dtype)


class SinusoidalPositions(nn.Module):
    """Adds fixed sinusoidal positions to (batch, time, d). No parameters and no length limit:
    the table is a deterministic function of (time, d), so the reference's ``max_len`` buffer
    (5000 or the window) only changes where it would crash, never a value."""

    def __init__(self, d_model: int):
        super().__init__()
        self.d_model = d_model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + sinusoidal_table(x.size(1), self.d_model, device=x.device, dtype=x.dtype)


def causal_mask(length: int, device=None) -> torch.Tensor:
    """(length, length) float mask with -inf above the diagonal (nn.Transformer convention)."""
    return torch.triu(torch.full((length, length), float("-inf"), device=device), diagonal=1)
