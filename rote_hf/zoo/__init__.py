"""rote_hf.zoo -- the architecture zoo: one registry, one contract, fidelity presets, honest budgets.

Contract: every model maps x (batch, time, input_size) float to per-step outputs
(batch, time, output_size); it is causal unless ``get_spec(name).causal`` is False.

>>> from rote_hf.zoo import build_model, names
>>> model = build_model("gru", input_size=4, output_size=4, preset="rote-paper")
"""

import importlib
from typing import Any

# The builders and registry load on first use (module ``__getattr__``), so that the torch-free
# parts of the zoo (``rote_hf.zoo.display``, used by the leaderboard Space) import without torch.
_LAZY = {
    "BUDGET_TOLERANCE": "budget", "ROTE_MATCHED_GRIDS": "budget", "count_parameters": "budget",
    "MODEL_PRESETS": "build", "BuildInfo": "build", "Resolution": "build", "build_model": "build",
    "model_info": "build", "resolve_arch": "build",
    "ModelSpec": "registry", "get_spec": "registry", "names": "registry", "register": "registry",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The ROTE paper's eight models, in the paper's order (use with preset="rote-paper").
ROTE_PAPER_MODELS = (
    "lstm", "gru", "mingru", "minlstm-rote", "transformer-ed", "linear-attention", "performer", "rwkv-rote",
)
#: ROTE reference display names of those eight.
ROTE_REFERENCE_NAMES = {
    "lstm": "LSTM", "gru": "GRU", "mingru": "minGRU", "minlstm-rote": "minLSTM",
    "transformer-ed": "Transformer", "linear-attention": "LinearAttention", "performer": "Performer",
    "rwkv-rote": "RWKV",
}
#: CogScale's baselines by reference name -> registry name (ESN's readout is fitted, not trained).
COGSCALE_MODELS = {"LSTM": "lstm", "GRU": "gru", "Transformer_DO": "transformer",
                   "Transformer_ED": "transformer-ed", "Mamba": "mamba", "xLSTM": "xlstm", "ESN": "esn"}

__all__ = [
    "BUDGET_TOLERANCE", "BuildInfo", "COGSCALE_MODELS", "MODEL_PRESETS", "ModelSpec", "ROTE_MATCHED_GRIDS",
    "ROTE_PAPER_MODELS", "ROTE_REFERENCE_NAMES", "Resolution", "build_model", "count_parameters", "get_spec",
    "model_info", "names", "register", "resolve_arch",
]
