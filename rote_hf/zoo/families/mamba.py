"""Mamba (selective SSM), ours in pure torch, with ``mamba_ssm.Mamba``'s parameter layout so counts
match the CogScale reference: per mixer ``in_proj`` (d -> 2E, no bias), depthwise causal ``conv1d``
(E channels, kernel d_conv, bias), ``x_proj`` (E -> R + 2N, no bias), ``dt_proj`` (R -> E, bias),
``A_log`` (E, N), ``D`` (E), ``out_proj`` (E -> d, no bias); E = expand * d, R = ceil(d / 16).
One mixer has 6d^2 + 4dR + 110d parameters at N = 16, d_conv = 4, expand = 2.

CogScale's model: ``Linear(in -> d)`` -> 2 mixers stacked WITHOUT residuals or norms -> LayerNorm ->
``Linear``. (transformers' ``MambaModel`` adds residuals and RMSNorm, so neither its counts nor its
behaviour match.) ``mamba_ssm``'s CUDA kernels are not needed: the selective scan runs as a chunked
parallel scan (``scan.chunked_scan``) or step by step; both are tested to agree. ``scan="auto"``
picks the step form on CPU (faster there) and the chunked form on accelerators.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ..spec import register
from ..scan import chunked_scan, sequential_scan, use_chunked


class MambaMixer(nn.Module):
    """Selective-SSM mixer (Gu & Dao 2023). x: (batch, time, d) -> (batch, time, d)."""

    def __init__(self, d_model: int, d_state: int = 16, d_conv: int = 4, expand: int = 2,
                 dt_min: float = 1e-3, dt_max: float = 0.1, dt_init_floor: float = 1e-4, chunk: int = 16,
                 scan: str = "auto"):
        super().__init__()
        inner = expand * d_model
        self.inner, self.d_state, self.chunk, self.scan = inner, d_state, chunk, scan
        use_chunked(scan, torch.zeros(0))  # validate early
        self.dt_rank = math.ceil(d_model / 16)
        self.in_proj = nn.Linear(d_model, 2 * inner, bias=False)
        self.conv1d = nn.Conv1d(inner, inner, d_conv, groups=inner, padding=d_conv - 1)
        self.x_proj = nn.Linear(inner, self.dt_rank + 2 * d_state, bias=False)
        self.dt_proj = nn.Linear(self.dt_rank, inner)
        self.out_proj = nn.Linear(inner, d_model, bias=False)
        # mamba_ssm's initialisation: dt log-uniform in [dt_min, dt_max] through an inverse softplus
        # bias; S4D-real A = -(1..N); D = 1.
        nn.init.uniform_(self.dt_proj.weight, -self.dt_rank**-0.5, self.dt_rank**-0.5)
        dt = torch.exp(torch.rand(inner) * (math.log(dt_max) - math.log(dt_min)) + math.log(dt_min))
        dt = dt.clamp(min=dt_init_floor)
        with torch.no_grad():
            self.dt_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))
        self.A_log = nn.Parameter(torch.log(torch.arange(1, d_state + 1, dtype=torch.float32)).repeat(inner, 1))
        self.D = nn.Parameter(torch.ones(inner))

    def forward(self, x: torch.Tensor, step: bool = False) -> torch.Tensor:
        length = x.size(1)
        u, z = self.in_proj(x).chunk(2, dim=-1)
        u = F.silu(self.conv1d(u.transpose(1, 2))[..., :length].transpose(1, 2))
        dt, b, c = self.x_proj(u).split([self.dt_rank, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(self.dt_proj(dt))  # (batch, time, E)
        a = -torch.exp(self.A_log)  # (E, N)
        log_decay = dt.unsqueeze(-1) * a  # (batch, time, E, N), <= 0
        drive = (dt * u).unsqueeze(-1) * b.unsqueeze(2)  # (batch, time, E, N)
        if not step and use_chunked(self.scan, x):
            h = chunked_scan(log_decay, drive, chunk=self.chunk)
        else:
            h = sequential_scan(log_decay.exp(), drive)
        y = (h * c.unsqueeze(2)).sum(-1) + self.D * u
        return self.out_proj(y * F.silu(z))


class MambaStack(nn.Module):
    """CogScale's Mamba baseline. x: (batch, time, in) -> (batch, time, out); causal."""

    def __init__(self, input_size: int, output_size: int, *, d_model: int, num_layers: int, d_state: int,
                 d_conv: int, expand: int, residual: bool, scan_chunk: int, scan: str):
        super().__init__()
        self.encoder = nn.Linear(input_size, d_model)
        self.layers = nn.ModuleList(
            [MambaMixer(d_model, d_state, d_conv, expand, chunk=scan_chunk, scan=scan) for _ in range(num_layers)]
        )
        self.residual = residual
        self.norm = nn.LayerNorm(d_model)
        self.decoder = nn.Linear(d_model, output_size)

    def _run(self, x: torch.Tensor, step: bool) -> torch.Tensor:
        h = self.encoder(x)
        for layer in self.layers:
            y = layer(h, step=step)
            h = h + y if self.residual else y
        return self.decoder(self.norm(h))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._run(x, step=False)

    def step_by_step(self, x: torch.Tensor) -> torch.Tensor:
        """Same outputs with the selective scan run one step at a time."""
        return self._run(x, step=True)


def _mamba_count(i: int, o: int, a) -> int:
    d, n, k, e = a["d_model"], a["d_state"], a["d_conv"], a["expand"] * a["d_model"]
    r = math.ceil(d / 16)
    mixer = d * 2 * e + e * k + e + e * (r + 2 * n) + r * e + e + e * n + e + e * d
    return i * d + d + a["num_layers"] * mixer + 2 * d + d * o + o


_MAMBA_ARCH = {"num_layers": 2, "d_state": 16, "d_conv": 4, "expand": 2, "residual": False, "scan_chunk": 16,
               "scan": "auto"}


@register(
    "mamba",
    family="Mamba",
    source="ours (pure torch; mamba_ssm.Mamba parameter layout)",
    width_key="d_model",
    defaults={"d_model": 64, **_MAMBA_ARCH},
    presets={"cogscale": {**_MAMBA_ARCH, "_width_step": 2}, "cogscale-paper": dict(_MAMBA_ARCH)},
    width_min=2,
    width_step=2,
    width_max=2048,
    count=_mamba_count,
)
def build_mamba(input_size: int, output_size: int, **arch) -> nn.Module:
    """Two Mamba mixers without residuals (CogScale's layout), pure torch."""
    return MambaStack(input_size, output_size, **arch)
