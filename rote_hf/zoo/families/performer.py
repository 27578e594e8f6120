"""Performer / FAVOR+ (``performer-pytorch`` 1.1.4), ROTE wrapper: ``Linear`` + sinusoidal positions
-> ``Performer(causal=True)`` -> ``Linear``.

Library defaults otherwise: softmax kernel with ``nb_features = int(dh * ln dh)`` random features,
qkv bias, pre-LN, GELU FF of ``ff_mult * d``, no dropout. The random features are drawn at
construction (a buffer, not a parameter) and never redrawn (``auto_check_redraw=False``).

Which causal path runs: the library uses EPFL's causal-product kernel only when the compiled
extension ``fast_transformers.causal_product.causal_product_cuda`` imports (the package
``fast_transformers`` alone is not enough); otherwise it runs ``causal_linear_attention_noncuda``,
a prefix sum in a Python loop over ``t.chunk(128)`` pieces (one piece per step for T <= 128: 100
iterations per layer at ROTE's w = 100). :func:`causal_path` says which, ``model.attention_path``
records it, and the fallback is announced once per process with a RuntimeWarning.

Causality: the library stabilises the key features with their max over the whole sequence, so
step t depends slightly on later keys (see ``_bounded_key_features``). ``key_stabilizer="bound"``
(the default) uses a data-independent bound and is exactly causal; ``"global"`` is the library's
(and the ROTE reference's) behaviour, used by the ``rote-paper``/``rote-matched`` presets: it is
exact where ROTE reads (the last step, which has no future), but not causal per step, and
``model_info(model).causal`` says so.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import warnings

import torch
from torch import nn

from ..layers import SinusoidalPositions, optional_import, rote_num_heads
from ..spec import register

_WARNED = False
KERNEL_MODULE = "fast_transformers.causal_product.causal_product_cuda"
KERNEL_PATH = "fast_transformers causal-product kernel"
FALLBACK_PATH = "pure-torch prefix sum (performer-pytorch causal_linear_attention_noncuda, a Python loop over time)"


def causal_path() -> str:
    """Which causal attention performer-pytorch runs here: :data:`KERNEL_PATH` when the compiled
    ``fast_transformers.causal_product.causal_product_cuda`` imports (the library's own test),
    else :data:`FALLBACK_PATH`."""
    try:
        importlib.import_module(KERNEL_MODULE)
    except ImportError:
        return FALLBACK_PATH
    return KERNEL_PATH


def _say_once_no_kernel() -> str:
    global _WARNED
    path = causal_path()
    if not _WARNED and path == FALLBACK_PATH:
        _WARNED = True
        warnings.warn(
            f"performer: `{KERNEL_MODULE}` does not import; the causal attention runs the library's "
            "pure-torch prefix sum (a Python loop over time: slower, more memory)",
            RuntimeWarning,
            stacklevel=3,
        )
    return path


def _bounded_key_features(k: torch.Tensor, projection: torch.Tensor, eps: float = 1e-4) -> torch.Tensor:
    """FAVOR+ positive softmax features of the keys with a data-independent stabiliser.

    The library subtracts the max of the key features over ALL positions, a constant that cancels
    in the attention ratio except against its ``+ eps`` term, so earlier outputs depend (slightly)
    on later keys. The exponent w.(c k) - |c k|^2 / 2 = |w|^2 / 2 - |c k - w|^2 / 2 never exceeds
    max_j |w_j|^2 / 2, a bound that depends on the random features only: subtracting it keeps every
    exponent <= 0 (no overflow in any dtype) and the model exactly causal.
    k: (batch, heads, time, dh); projection: (m, dh). Returns (batch, heads, time, m).
    """
    c = k.shape[-1] ** -0.25
    ratio = projection.shape[0] ** -0.5
    proj = projection.type_as(k)
    dash = torch.einsum("...id,jd->...ij", c * k, proj)
    diag = (k**2).sum(-1, keepdim=True) * (c**2) / 2.0
    bound = (proj**2).sum(-1).max().detach() / 2.0
    return ratio * (torch.exp(dash - diag - bound) + eps)


class CausalFastAttention(nn.Module):
    """Wraps the library's ``FastAttention`` (kept as ``inner``, with its random features) and
    computes the key features with ``_bounded_key_features``. A module, not a patched method, so
    models deep-copy and pickle."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        from performer_pytorch.performer_pytorch import softmax_kernel

        projection = self.inner.projection_matrix
        q = softmax_kernel(q, projection_matrix=projection, is_query=True, device=q.device)
        return self.inner.causal_linear_fn(q, _bounded_key_features(k, projection), v)


class PerformerModel(nn.Module):
    """x: (batch, time, in) -> (batch, time, out); causal."""

    def __init__(self, input_size: int, output_size: int, *, d_model: int, num_layers: int, nhead: int | None,
                 dim_head: int | None, ff_mult: int, nb_features: int | None, key_stabilizer: str):
        super().__init__()
        performer = optional_import("performer_pytorch", "Performer", family="performer")
        self.attention_path = _say_once_no_kernel()
        heads = rote_num_heads(d_model) if nhead is None else nhead
        self.input_proj = nn.Linear(input_size, d_model)
        self.positions = SinusoidalPositions(d_model)
        # the library prints its own "no cuda" notice once per layer; we say it once per process instead
        with contextlib.redirect_stdout(io.StringIO()):
            self.encoder = performer(dim=d_model, depth=num_layers, heads=heads,
                                     dim_head=max(16, d_model // heads) if dim_head is None else dim_head,
                                     causal=True, ff_mult=ff_mult, nb_features=nb_features,
                                     auto_check_redraw=False)
        if key_stabilizer not in ("global", "bound"):
            raise ValueError(f"key_stabilizer must be 'global' or 'bound', got {key_stabilizer!r}")
        self.causal = key_stabilizer == "bound"
        if self.causal:
            for module in list(self.encoder.modules()):
                inner = getattr(module, "fast_attention", None)
                if type(inner).__name__ == "FastAttention":
                    module.fast_attention = CausalFastAttention(inner)
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
    defaults={"d_model": 256, "num_layers": 2, "nhead": None, "dim_head": None, "ff_mult": 4, "nb_features": None,
              "key_stabilizer": "bound"},
    presets={
        "rote-paper": {"d_model": 256, "num_layers": 2, "nhead": None, "dim_head": None, "ff_mult": 4,
                       "nb_features": None, "key_stabilizer": "global"},
        "rote-matched": {"num_layers": 2, "nhead": None, "dim_head": None, "ff_mult": 4, "nb_features": None,
                         "key_stabilizer": "global"},
    },
    count=_performer_count,
    monotone=False,  # the head rule and the dim_head floor of 16 make the count jump with d
)
def build_performer(input_size: int, output_size: int, **arch) -> nn.Module:
    """Causal FAVOR+ Performer (library), ROTE wrapper."""
    return PerformerModel(input_size, output_size, **arch)
