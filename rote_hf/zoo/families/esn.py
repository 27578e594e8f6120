"""Echo state network: a fixed random leaky-tanh reservoir (matrices drawn by reservoirpy 0.4.2 from
an explicit seed) and a linear readout.

State update (reservoirpy's ``Reservoir``):
    s_t = (1 - lr) s_{t-1} + lr tanh(W s_{t-1} + W_in u_t + b),   s_0 = 0 for every sequence.
The reservoir is held as buffers (not trained, not counted); the readout ``Linear(units -> out)``
is the only trainable part, so the honest count is (units + 1) * out. CogScale's reference counts
units * out (no bias) and its runs were unseeded; here ``reservoir_seed`` fixes the reservoir.

Training: ``fit_readout`` is the closed-form ridge of reservoirpy's ``Ridge`` (centred, bias not
penalised), fitted only on the selected steps (CogScale's protocol); the readout is also an ordinary
``nn.Linear``, so gradient training works too.
"""

from __future__ import annotations

import functools

import numpy as np
import torch
from torch import nn

from ..spec import register


def _reservoir_matrices(units, input_size, *, leak_rate, spectral_radius, input_scaling, input_connectivity,
                        rc_connectivity, bias_scaling, reservoir_seed):
    from reservoirpy import mat_gen
    from reservoirpy.nodes import Reservoir

    bias = functools.partial(mat_gen.bernoulli, input_scaling=bias_scaling) if bias_scaling else 0.0
    res = Reservoir(units, lr=leak_rate, sr=spectral_radius, input_scaling=input_scaling,
                    input_connectivity=input_connectivity, rc_connectivity=rc_connectivity, bias=bias,
                    input_dim=input_size, seed=reservoir_seed)
    res.initialize(np.zeros((1, input_size)))

    def dense(m):
        return np.asarray(m.toarray() if hasattr(m, "toarray") else m, dtype=np.float64)

    b = np.broadcast_to(np.asarray(res.bias, dtype=np.float64), (units,)).copy()
    return dense(res.W), dense(res.Win), b


class EchoStateNetwork(nn.Module):
    """x: (batch, time, in) -> (batch, time, out); causal; only ``readout`` is trainable."""

    def __init__(self, input_size: int, output_size: int, *, units: int, leak_rate: float, spectral_radius: float,
                 input_scaling: float, input_connectivity: float, rc_connectivity: float, bias_scaling: float,
                 reservoir_seed: int):
        super().__init__()
        if not 0 < leak_rate <= 1:
            raise ValueError(f"leak_rate must be in (0, 1], got {leak_rate}")
        w, w_in, b = _reservoir_matrices(
            units, input_size, leak_rate=leak_rate, spectral_radius=spectral_radius, input_scaling=input_scaling,
            input_connectivity=input_connectivity, rc_connectivity=rc_connectivity, bias_scaling=bias_scaling,
            reservoir_seed=reservoir_seed)
        self.leak_rate = float(leak_rate)
        # float64 buffers keep reservoirpy's exact matrices; forward casts them to the input's dtype
        self.register_buffer("W", torch.tensor(w, dtype=torch.float64))
        self.register_buffer("W_in", torch.tensor(w_in, dtype=torch.float64))
        self.register_buffer("bias", torch.tensor(b, dtype=torch.float64))
        self.readout = nn.Linear(units, output_size)

    def states(self, x: torch.Tensor) -> torch.Tensor:
        """Reservoir states (batch, time, units), reset to zero for every sequence."""
        w, w_in, bias = (m.to(x.dtype) for m in (self.W, self.W_in, self.bias))
        drive = x @ w_in.T + bias
        s = drive.new_zeros(x.size(0), w.size(0))
        outs = []
        for t in range(x.size(1)):
            s = (1 - self.leak_rate) * s + self.leak_rate * torch.tanh(s @ w.T + drive[:, t])
            outs.append(s)
        return torch.stack(outs, dim=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.readout(self.states(x.to(self.readout.weight.dtype)))

    @torch.no_grad()
    def fit_readout(self, x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor | None = None,
                    ridge: float = 1e-6, *, states: torch.Tensor | None = None) -> None:
        """Closed-form ridge readout on the steps where ``mask`` (batch, time) is True (all if None).

        x: (batch, time, in); y: (batch, time, out). Centred least squares; the bias is not penalised.
        ``states``: ``self.states(x)`` computed beforehand (the reservoir is fixed, so a ridge grid
        needs them once); ``x`` is then not read.
        """
        if ridge < 0:
            raise ValueError(f"ridge must be >= 0, got {ridge}")
        s = (self.states(x) if states is None else states).double()
        if mask is None:
            mask = torch.ones(s.shape[:2], dtype=torch.bool, device=s.device)
        feats, targets = s[mask], y.double()[mask]
        f_mean, t_mean = feats.mean(0), targets.mean(0)
        fc, tc = feats - f_mean, targets - t_mean
        gram = fc.T @ fc + ridge * torch.eye(fc.size(1), dtype=fc.dtype, device=fc.device)
        w_out = torch.linalg.solve(gram, fc.T @ tc)  # (units, out)
        self.readout.weight.copy_(w_out.T.to(self.readout.weight.dtype))
        self.readout.bias.copy_((t_mean - f_mean @ w_out).to(self.readout.bias.dtype))


_ESN_ARCH = {"leak_rate": 1.0, "spectral_radius": 0.9, "input_scaling": 1.0, "input_connectivity": 0.1,
             "rc_connectivity": 0.1, "bias_scaling": 1.0, "reservoir_seed": 0}


@register(
    "esn",
    family="ESN",
    source="reservoirpy 0.4.2 (reservoir matrices); state loop and ridge readout ours",
    width_key="units",
    defaults={"units": 100, **_ESN_ARCH},
    presets={"cogscale": dict(_ESN_ARCH), "cogscale-paper": dict(_ESN_ARCH)},
    width_min=2,
    width_max=4096,
    count=lambda i, o, a: (a["units"] + 1) * o,
)
def build_esn(input_size: int, output_size: int, **arch) -> nn.Module:
    """Echo state network with a seeded reservoirpy reservoir and a linear readout."""
    return EchoStateNetwork(input_size, output_size, **arch)
