"""xLSTM (NX-AI ``xlstm`` 2.0.6), CogScale's baseline layout:
``Linear(in -> d)`` -> ``xLSTMBlockStack`` (mLSTM block, then sLSTM block at index 1, post-blocks
norm) -> ``LayerNorm`` -> ``Linear`` per step.

Library defaults: mLSTM 4 heads, projection factor 2, conv 4, qkv block 4; sLSTM 4 heads with a gated
FFN of factor 1.3 whose up-dimension is rounded UP to a multiple of 64 (which is why CogScale's
"1k" xLSTM has about 4.4k parameters). The mLSTM causal mask is a (context, context) buffer;
it is grown on demand, so any length works.

sLSTM backend (``slstm_backend``): ``"auto"`` (default) picks the library's ``"cuda"`` kernel when
CUDA is available and a CUDA compiler is found (``nvcc`` on the PATH or under ``$CUDA_HOME``; the
kernel is compiled with ``torch.utils.cpp_extension`` on first use), else ``"twin"``: the library's
pure-torch loop with the CUDA kernel's pointwise arithmetic (:mod:`.slstm_twin`), which keeps the
kernel's NaN handling; that is what lets the d_model-4 ("1k") model train, as it did on CogScale's
GPUs. ``"vanilla"`` is the library's own loop (NaN-propagating: the 1k model's NaN forget bias makes
every output NaN); on a GPU both loops sync with the host once per time step. Numerics differ: the
CUDA kernel keeps its recurrent and input weights, gates and states in **bfloat16** (the library's
default ``dtype="bfloat16"``; biases and accumulation in float32), as CogScale's own GPU runs did;
``twin`` and ``vanilla`` compute in float32 and agree with each other on finite numbers to float
rounding. ``model.slstm_backend`` records the choice; with ``"auto"``, a kernel that fails to
compile falls back to ``"twin"`` with a RuntimeWarning.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import torch
from torch import nn

from ..layers import optional_import
from ..spec import register


SLSTM_BACKENDS = ("auto", "cuda", "twin", "vanilla")


def resolve_slstm_backend(backend: str, *, cuda: bool | None = None, compiler: bool | None = None) -> str:
    """``"auto"`` -> ``"cuda"`` when CUDA and a CUDA compiler are present, else ``"twin"``."""
    if backend not in SLSTM_BACKENDS:
        raise ValueError(f"slstm_backend must be one of {SLSTM_BACKENDS}, got {backend!r}")
    if backend != "auto":
        return backend
    if cuda is None:
        cuda = torch.cuda.is_available()
    if compiler is None:
        home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
        compiler = shutil.which("nvcc") is not None or bool(home and (Path(home) / "bin" / "nvcc").exists())
    return "cuda" if cuda and compiler else "twin"


def _stack(d_model: int, num_blocks: int, slstm_at: tuple[int, ...], context_length: int, backend: str):
    stack_cls = optional_import("xlstm", "xLSTMBlockStack", family="xlstm")
    import xlstm

    cfg = xlstm.xLSTMBlockStackConfig(
        mlstm_block=xlstm.mLSTMBlockConfig(),
        slstm_block=xlstm.sLSTMBlockConfig(
            slstm=xlstm.sLSTMLayerConfig(backend="vanilla" if backend == "twin" else backend)),
        context_length=context_length,
        num_blocks=num_blocks,
        embedding_dim=d_model,
        slstm_at=list(slstm_at),
    )
    stack = stack_cls(cfg)
    if backend == "twin":
        from .slstm_twin import use_twin

        if use_twin(stack) != len(slstm_at):  # a library whose cells moved must not silently run vanilla
            raise RuntimeError(f"xlstm: expected {len(slstm_at)} vanilla sLSTM cells to give the twin step")
    return stack


class XLSTMModel(nn.Module):
    """x: (batch, time, in) -> (batch, time, out); causal."""

    def __init__(self, input_size: int, output_size: int, *, d_model: int, num_blocks: int,
                 slstm_at: tuple[int, ...], context_length: int, slstm_backend: str):
        super().__init__()
        self.encoder = nn.Linear(input_size, d_model)
        self.slstm_backend = resolve_slstm_backend(slstm_backend)
        try:
            self.stack = _stack(d_model, num_blocks, tuple(slstm_at), context_length, self.slstm_backend)
        except Exception as exc:  # noqa: BLE001 — "auto" must never be worse than the twin
            if slstm_backend != "auto" or self.slstm_backend == "twin":
                raise
            warnings.warn(f"xlstm: the CUDA sLSTM kernel could not be built ({type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else ''}); using the twin backend",
                          RuntimeWarning, stacklevel=2)
            self.slstm_backend = "twin"
            self.stack = _stack(d_model, num_blocks, tuple(slstm_at), context_length, "twin")
        self.norm = nn.LayerNorm(d_model)
        self.decoder = nn.Linear(d_model, output_size)

    def _ensure_context(self, length: int) -> None:
        for module in self.stack.modules():
            mask = getattr(module, "causal_mask", None)
            if isinstance(mask, torch.Tensor) and mask.size(0) < length:
                module.causal_mask = torch.ones(length, length, dtype=torch.bool, device=mask.device).tril()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self._ensure_context(x.size(1))
        return self.decoder(self.norm(self.stack(self.encoder(x))))

    @torch.no_grad()
    def step_by_step(self, x: torch.Tensor) -> torch.Tensor:
        """The library's recurrent ``step`` form, one time step at a time."""
        h, state, outs = self.encoder(x), None, []
        for t in range(x.size(1)):
            out, state = self.stack.step(h[:, t : t + 1], state=state)
            outs.append(out)
        return self.decoder(self.norm(torch.cat(outs, dim=1)))


_XLSTM_ARCH = {"num_blocks": 2, "slstm_at": (1,), "context_length": 256, "slstm_backend": "auto"}


@register(
    "xlstm",
    family="xLSTM",
    source="xlstm 2.0.6 (NX-AI xLSTMBlockStack)",
    width_key="d_model",
    defaults={"d_model": 64, **_XLSTM_ARCH},
    presets={"cogscale": {**_XLSTM_ARCH, "_width_step": 4}, "cogscale-paper": dict(_XLSTM_ARCH)},
    width_min=4,
    width_step=4,
    width_max=2048,
)
def build_xlstm(input_size: int, output_size: int, **arch) -> nn.Module:
    """xLSTM stack (mLSTM + sLSTM) with CogScale's input/output maps."""
    return XLSTMModel(input_size, output_size, **arch)
