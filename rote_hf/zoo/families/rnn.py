"""LSTM and GRU (torch.nn), read out at every step.

ROTE: 2 layers, H = 128, ``Linear(H -> n)`` on the top layer (the reference reads ``h_n[-1]``,
which equals the last step of the per-step output). CogScale: one layer, H from the budget.
"""

from __future__ import annotations

import torch
from torch import nn

from ..spec import register

_RNN_PRESETS = {
    "rote-paper": {"hidden_size": 128, "num_layers": 2},
    "rote-matched": {"num_layers": 2},
    "cogscale": {"num_layers": 1},
    "cogscale-paper": {"num_layers": 1},
}


class RecurrentReadout(nn.Module):
    """``nn.LSTM``/``nn.GRU`` (batch_first, zero initial state, no dropout) -> ``Linear`` per step.

    x: (batch, time, input_size) -> (batch, time, output_size).
    """

    def __init__(self, cell: str, input_size: int, output_size: int, hidden_size: int, num_layers: int):
        super().__init__()
        rnn_cls = {"lstm": nn.LSTM, "gru": nn.GRU}[cell]
        self.rnn = rnn_cls(input_size, hidden_size, num_layers=num_layers, batch_first=True)
        self.head = nn.Linear(hidden_size, output_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.rnn(x)
        return self.head(out)

    @torch.no_grad()
    def step_by_step(self, x: torch.Tensor) -> torch.Tensor:
        """The same outputs computed one time step at a time, carrying the state."""
        state, outs = None, []
        for t in range(x.size(1)):
            out, state = self.rnn(x[:, t : t + 1], state)
            outs.append(self.head(out))
        return torch.cat(outs, dim=1)


@register(
    "lstm",
    family="LSTM",
    source="torch.nn.LSTM",
    width_key="hidden_size",
    defaults={"hidden_size": 128, "num_layers": 2},
    presets=_RNN_PRESETS,
    count=lambda i, o, a: 4 * a["hidden_size"] * (i + a["hidden_size"] + 2)
    + (a["num_layers"] - 1) * 4 * a["hidden_size"] * (2 * a["hidden_size"] + 2)
    + a["hidden_size"] * o
    + o,
)
def build_lstm(input_size: int, output_size: int, *, hidden_size: int, num_layers: int) -> nn.Module:
    """Stacked LSTM with a per-step linear readout."""
    return RecurrentReadout("lstm", input_size, output_size, hidden_size, num_layers)


@register(
    "gru",
    family="GRU",
    source="torch.nn.GRU",
    width_key="hidden_size",
    defaults={"hidden_size": 128, "num_layers": 2},
    presets=_RNN_PRESETS,
    count=lambda i, o, a: 3 * a["hidden_size"] * (i + a["hidden_size"] + 2)
    + (a["num_layers"] - 1) * 3 * a["hidden_size"] * (2 * a["hidden_size"] + 2)
    + a["hidden_size"] * o
    + o,
)
def build_gru(input_size: int, output_size: int, *, hidden_size: int, num_layers: int) -> nn.Module:
    """Stacked GRU with a per-step linear readout."""
    return RecurrentReadout("gru", input_size, output_size, hidden_size, num_layers)
