"""Echo state network: a fixed random leaky-tanh reservoir (matrices drawn by reservoirpy 0.4.2 from
an explicit seed) and a linear readout.

State update (reservoirpy's ``Reservoir``):
    s_t = (1 - lr) s_{t-1} + lr tanh(W s_{t-1} + W_in u_t + b),   s_0 = 0 for every sequence.
b is Bernoulli +-bias_scaling on a share ``input_connectivity`` of the units, as reservoirpy 0.3
(CogScale's version) drew it; 0.4.2 would draw it on every unit.
The reservoir is held as buffers (not trained, not counted); the readout ``Linear(units -> out)``
is the only trainable part, so the honest count is (units + 1) * out. CogScale's reference counts
units * out (no bias) and its runs were unseeded; here ``reservoir_seed`` fixes the reservoir.

Training: ``fit_readout`` is the closed-form ridge of reservoirpy's ``Ridge`` (centred, bias not
penalised), fitted only on the selected steps (CogScale's protocol); ``fit_readouts`` walks a ridge
grid over normal equations formed once. The readout is also an ordinary ``nn.Linear``, so gradient
training works too.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator, Sequence

import numpy as np
import torch
from torch import nn

from ..spec import register


_RADII: dict[str, float] = {}  # content hash of an unscaled reservoir matrix -> its spectral radius
_RADII_KEPT = 16


@contextlib.contextmanager
def _remembered_spectral_radii() -> Iterator[None]:
    """reservoirpy scales each drawn W to the wanted radius by its ARPACK spectral radius, started
    from ``v0 = ones``: a pure function of W. An ESN search draws the same unscaled W (same units,
    connectivity and seed) for every candidate, and that eigen-solve was a quarter of a 10k search's
    time; here it runs once per matrix and the matrices stay bit-identical."""
    from reservoirpy import mat_gen

    computed = mat_gen.spectral_radius

    def remembered(w, maxiter=None):
        if maxiter is not None or not hasattr(w, "indptr"):
            return computed(w, maxiter)
        digest = hashlib.sha256()
        for part in (np.asarray(w.shape), w.data, w.indices, w.indptr):
            digest.update(np.ascontiguousarray(part).tobytes())
        digest.update(str((w.data.dtype, w.indices.dtype)).encode())
        key = digest.hexdigest()
        if key not in _RADII:
            if len(_RADII) >= _RADII_KEPT:
                _RADII.pop(next(iter(_RADII)))
            _RADII[key] = computed(w)
        return _RADII[key]

    mat_gen.spectral_radius = remembered
    try:
        yield
    finally:
        mat_gen.spectral_radius = computed


def _reservoir_matrices(units, input_size, *, leak_rate, spectral_radius, input_scaling, input_connectivity,
                        rc_connectivity, bias_scaling, reservoir_seed):
    from reservoirpy import mat_gen
    from reservoirpy.nodes import Reservoir

    def bias(units, *, connectivity, **kwargs):  # 0.4.2 asks for a dense bias (connectivity=1.0)
        del connectivity  # reservoirpy 0.3 (CogScale's runs) drew the bias with the input connectivity
        return mat_gen.bernoulli(units, input_scaling=bias_scaling, connectivity=input_connectivity, **kwargs)

    res = Reservoir(units, lr=leak_rate, sr=spectral_radius, input_scaling=input_scaling,
                    input_connectivity=input_connectivity, rc_connectivity=rc_connectivity,
                    bias=bias if bias_scaling else 0.0, input_dim=input_size, seed=reservoir_seed)
    with _remembered_spectral_radii():
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

    def fit_readout(self, x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor | None = None,
                    ridge: float = 1e-6, *, states: torch.Tensor | None = None) -> None:
        """Closed-form ridge readout on the steps where ``mask`` (batch, time) is True (all if None).

        x: (batch, time, in); y: (batch, time, out). Centred least squares; the bias is not penalised.
        ``states``: ``self.states(x)`` computed beforehand; ``x`` is then not read.
        """
        for _ in self.fit_readouts(x, y, mask, (ridge,), states=states):
            pass

    @torch.no_grad()
    def fit_readouts(self, x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor | None,
                     ridges: Sequence[float], *, states: torch.Tensor | None = None) -> Iterator[float]:
        """Set the readout of each ridge of ``ridges`` in turn, yielding that ridge once it is set.

        The reservoir is fixed, so the states and the centred normal equations are formed once for the
        whole grid; each ridge then costs one solve, and its readout equals ``fit_readout`` with that
        ridge bit for bit (the same products, the ridge added after them).
        """
        for ridge in ridges:
            if ridge < 0:
                raise ValueError(f"ridge must be >= 0, got {ridge}")
        s = (self.states(x) if states is None else states).double()
        if mask is None:
            mask = torch.ones(s.shape[:2], dtype=torch.bool, device=s.device)
        feats, targets = s[mask], y.double()[mask]
        f_mean, t_mean = feats.mean(0), targets.mean(0)
        fc, tc = feats - f_mean, targets - t_mean
        gram, cross = fc.T @ fc, fc.T @ tc
        eye = torch.eye(fc.size(1), dtype=fc.dtype, device=fc.device)
        for ridge in ridges:
            w_out = torch.linalg.solve(gram + ridge * eye, cross)  # (units, out)
            self.readout.weight.copy_(w_out.T.to(self.readout.weight.dtype))
            self.readout.bias.copy_((t_mean - f_mean @ w_out).to(self.readout.bias.dtype))
            yield ridge


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
