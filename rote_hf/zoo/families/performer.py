"""Performer / FAVOR+ (``performer-pytorch`` 1.1.4), ROTE wrapper: ``Linear`` + sinusoidal positions
-> ``Performer(causal=True)`` -> ``Linear``.

Library defaults otherwise: softmax kernel with ``nb_features = int(dh * ln dh)`` random features,
qkv bias, pre-LN, GELU FF of ``ff_mult * d``, no dropout. The random features are drawn at
construction (a buffer, not a parameter) and never redrawn (``auto_check_redraw=False``). Without
the CUDA ``fast_transformers`` kernel the library's causal path is a slow O(T d^2) memory
prefix-sum; it is what runs on CPU (said once, at import of the family, never silently).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import warnings

import torch
from torch import nn

from ..layers import SinusoidalPositions, optional_import, rote_num_heads
from ..registry import register

_WARNED = False


def _say_once_no_kernel() -> None:
    global _WARNED
    if not _WARNED and importlib.util.find_spec("fast_transformers") is None:
        _WARNED = True
        warnings.warn(
            "performer: CUDA kernel `fast_transformers` not installed; using the library's pure-torch "
            "causal path (slower, more memory)",
            RuntimeWarning,
            stacklevel=3,
        )


class PerformerModel(nn.Module):
    """x: (batch, time, in) -> (batch, time, out); causal."""

    def __init__(self, input_size: int, output_size: int, *, d_model: int, num_layers: int, nhead: int | None,
                 dim_head: int | None, ff_mult: int, nb_features: int | None):
        super().__init__()
        performer = optional_import("performer_pytorch", "Performer", family="performer")
        _say_once_no_kernel()
        heads = rote_num_heads(d_model) if nhead is None else nhead
        self.input_proj = nn.Linear(input_size, d_model)
        self.positions = SinusoidalPositions(d_model)
        # the library prints its own "no cuda" notice once per layer; we say it once per process instead
        with contextlib.redirect_stdout(io.StringIO()):
            self.encoder = performer(dim=d_model, depth=num_layers, heads=heads,
                                     dim_head=max(16, d_model // heads) if dim_head is None else dim_head,
                                     causal=True, ff_mult=ff_mult, nb_features=nb_features,
                                     auto_check_redraw=False)
        self.head = nn.Linear(d_model, output_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(self.positions(self.input_proj(x))))


def _performer_count(i: int, o: int, a) -> int:
    d = a["d_model"]
    heads = rote_num_heads(d) if a["nhead"] is None else a["nhead"]
    inner = heads * (max(16, d // heads) if a["dim_head"] is None else a["dim_head"])
    ff = a["ff_mult"] * d
    block = 4 * d * inner + 3 * inner + d + 2 * d * ff + ff + d + 4 * d
    return i * d + d + a["num_layers"] * block + d * o + o


@register(
    "performer",
    family="Performer",
    source="performer-pytorch 1.1.4",
    width_key="d_model",
    defaults={"d_model": 256, "num_layers": 2, "nhead": None, "dim_head": None, "ff_mult": 4, "nb_features": None},
    presets={
        "rote-paper": {"d_model": 256, "num_layers": 2, "nhead": None, "dim_head": None, "ff_mult": 4,
                       "nb_features": None},
        "rote-matched": {"num_layers": 2, "nhead": None, "dim_head": None, "ff_mult": 4, "nb_features": None},
    },
    count=_performer_count,
)
def build_performer(input_size: int, output_size: int, **arch) -> nn.Module:
    """Causal FAVOR+ Performer (library), ROTE wrapper."""
    return PerformerModel(input_size, output_size, **arch)
