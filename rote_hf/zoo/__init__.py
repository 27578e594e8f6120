"""rote_hf.zoo -- the architecture zoo: one registry, one contract, fidelity presets, honest budgets.

Contract: every model maps x (batch, time, input_size) float to per-step outputs
(batch, time, output_size); it is causal unless ``get_spec(name).causal`` is False.

>>> from rote_hf.zoo import build_model, names
>>> model = build_model("gru", input_size=4, output_size=4, preset="rote-paper")
"""

from .budget import BUDGET_TOLERANCE, ROTE_MATCHED_GRIDS, count_parameters
from .build import MODEL_PRESETS, BuildInfo, Resolution, build_model, model_info, resolve_arch
from .registry import ModelSpec, get_spec, names, register

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
