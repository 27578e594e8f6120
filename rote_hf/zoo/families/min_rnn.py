"""minGRU (minGRU-pytorch) and minLSTM (ours), in the ROTE wrapper:
``Linear(in -> H)`` -> L min-RNN layers -> ``LayerNorm(H)`` -> ``Linear(H -> out)``, every step.

Names:
- ``mingru``: the library's ``minGRU(dim)`` (log-space parallel scan, g() activation, zero h0,
  one bias-free ``Linear(H -> 2H)`` per layer). This is also the ROTE paper's minGRU.
- ``minlstm``: the published minLSTM (Feng et al. 2024, log-space form of its appendix):
  f' = s(f)/(s(f)+s(i)), i' = s(i)/(s(f)+s(i)), candidate g(Linear(x)) with no tanh.
- ``minlstm-rote``: the ROTE reference's variant: candidate tanh(Linear(x)) and normaliser
  f + i + 1e-6 (so f' + i' < 1).
Both minLSTMs use one biased ``Linear(H -> 2H)`` for the gates and one biased ``Linear(H -> H)``
for the candidate, so their counts agree (6H^2 + 2Hn + 9H + n at 2 layers).
The reference stacks layers without residuals or per-layer norms; ``residual=True`` adds
``x + layer(x)`` (the minRNN paper's language-model blocks use residuals).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..layers import optional_import
from ..spec import register
from ..scan import chunked_scan, sequential_scan, use_chunked

_MIN_PRESETS = {
    "rote-paper": {"hidden_size": 128, "num_layers": 2, "residual": False},
    "rote-matched": {"num_layers": 2, "residual": False},
}


def _g(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x >= 0, x + 0.5, x.sigmoid())


def _log_g(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x >= 0, (F.relu(x) + 0.5).log(), -F.softplus(-x))


class MinLSTMLayer(nn.Module):
    """One minLSTM layer; ``variant`` is "paper" or "rote". x: (batch, time, H) -> (batch, time, H)."""

    def __init__(self, dim: int, variant: str, scan: str = "auto"):
        super().__init__()
        if variant not in ("paper", "rote"):
            raise ValueError(f"variant must be 'paper' or 'rote', got {variant!r}")
        use_chunked(scan, torch.zeros(0))  # validate early
        self.variant, self.scan = variant, scan
        self.gates = nn.Linear(dim, 2 * dim)
        self.candidate = nn.Linear(dim, dim)

    def coefficients(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(log a_t, b_t) of the recurrence h_t = a_t h_{t-1} + b_t."""
        f_pre, i_pre = self.gates(x).chunk(2, dim=-1)
        if self.variant == "rote":
            f, i = torch.sigmoid(f_pre), torch.sigmoid(i_pre)
            z = f + i + 1e-6
            return (f / z).log(), (i / z) * torch.tanh(self.candidate(x))
        diff = F.softplus(-f_pre) - F.softplus(-i_pre)
        return -F.softplus(diff), (-F.softplus(-diff)).exp() * _g(self.candidate(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.variant == "paper":
            # log-space Heinsen scan (the paper's appendix): every term positive, no chunking
            f_pre, i_pre = self.gates(x).chunk(2, dim=-1)
            diff = F.softplus(-f_pre) - F.softplus(-i_pre)
            log_f, log_i = -F.softplus(diff), -F.softplus(-diff)
            log_values = log_i + _log_g(self.candidate(x))
            a_star = log_f.cumsum(dim=1)
            return (a_star + (log_values - a_star).logcumsumexp(dim=1)).exp()
        log_a, b = self.coefficients(x)
        if use_chunked(self.scan, x):
            return chunked_scan(log_a, b)
        return sequential_scan(log_a.exp(), b)

    def step_by_step(self, x: torch.Tensor) -> torch.Tensor:
        """The recurrence's definition, one step at a time (the reference's Python loop)."""
        log_a, b = self.coefficients(x)
        return sequential_scan(log_a.exp(), b)


class MinRNN(nn.Module):
    """ROTE's wrapper around a stack of min-RNN layers. x: (batch, time, in) -> (batch, time, out)."""

    def __init__(self, layers: list[nn.Module], input_size: int, output_size: int, hidden_size: int, residual: bool):
        super().__init__()
        self.input_proj = nn.Linear(input_size, hidden_size)
        self.layers = nn.ModuleList(layers)
        self.norm = nn.LayerNorm(hidden_size)
        self.head = nn.Linear(hidden_size, output_size)
        self.residual = residual

    def _run(self, x: torch.Tensor, step: bool) -> torch.Tensor:
        x = self.input_proj(x)
        for layer in self.layers:
            y = _layer_step_by_step(layer, x) if step else layer(x)
            x = x + y if self.residual else y
        return self.head(self.norm(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._run(x, step=False)

    def step_by_step(self, x: torch.Tensor) -> torch.Tensor:
        """Same outputs with every layer run one step at a time (checks the parallel scans)."""
        return self._run(x, step=True)


def _layer_step_by_step(layer: nn.Module, x: torch.Tensor) -> torch.Tensor:
    if isinstance(layer, MinLSTMLayer):
        return layer.step_by_step(x)
    # minGRU-pytorch: a length-1 input takes its sequential branch with ``prev_hidden``
    hidden, outs = None, []
    for t in range(x.size(1)):
        out, hidden = layer(x[:, t : t + 1], prev_hidden=hidden, return_next_prev_hidden=True)
        outs.append(out)
    return torch.cat(outs, dim=1)


def _min_count(per_layer_sq: int, per_layer_lin: int):
    def count(i: int, o: int, a) -> int:
        h, n_layers = a["hidden_size"], a["num_layers"]
        return i * h + h + n_layers * (per_layer_sq * h * h + per_layer_lin * h) + 2 * h + h * o + o

    return count


@register(
    "mingru",
    family="minGRU",
    source="minGRU-pytorch 0.2.1 (minGRU layer); wrapper ours",
    width_key="hidden_size",
    defaults={"hidden_size": 128, "num_layers": 2, "residual": False},
    presets=_MIN_PRESETS,
    count=_min_count(2, 0),
)
def build_mingru(input_size: int, output_size: int, *, hidden_size: int, num_layers: int, residual: bool) -> nn.Module:
    """minGRU stack (library layer, log-space parallel scan)."""
    min_gru = optional_import("minGRU_pytorch", "minGRU", family="mingru")
    layers = [min_gru(hidden_size) for _ in range(num_layers)]
    return MinRNN(layers, input_size, output_size, hidden_size, residual)


@register(
    "minlstm",
    family="minLSTM",
    source="ours (published log-space minLSTM)",
    width_key="hidden_size",
    defaults={"hidden_size": 128, "num_layers": 2, "residual": False},
    presets=_MIN_PRESETS,
    count=_min_count(3, 3),
)
def build_minlstm(input_size: int, output_size: int, *, hidden_size: int, num_layers: int, residual: bool) -> nn.Module:
    """Published minLSTM: normalised gates, g() candidate, log-space parallel scan."""
    layers = [MinLSTMLayer(hidden_size, "paper") for _ in range(num_layers)]
    return MinRNN(layers, input_size, output_size, hidden_size, residual)


@register(
    "minlstm-rote",
    family="minLSTM",
    source="ours (ROTE reference variant)",
    width_key="hidden_size",
    defaults={"hidden_size": 128, "num_layers": 2, "residual": False, "scan": "auto"},
    presets=_MIN_PRESETS,
    count=_min_count(3, 3),
)
def build_minlstm_rote(
    input_size: int, output_size: int, *, hidden_size: int, num_layers: int, residual: bool, scan: str
) -> nn.Module:
    """ROTE reference minLSTM: tanh candidate, f+i+1e-6 normaliser (``scan``: auto/chunked/sequential)."""
    layers = [MinLSTMLayer(hidden_size, "rote", scan) for _ in range(num_layers)]
    return MinRNN(layers, input_size, output_size, hidden_size, residual)
