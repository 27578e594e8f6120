"""RWKV: the published RWKV-4 blocks (transformers' ``RwkvModel``) and the ROTE reference's
"RWKV-style" block (ours).

- ``rwkv``: ``Linear(in -> d)`` -> transformers ``RwkvModel`` blocks fed ``inputs_embeds`` (token
  shift, WKV attention with per-channel decay, bonus ``time_first`` and normaliser, squared-ReLU
  channel mixing, pre-LN, ``ln_out``) -> ``Linear``. Its vocabulary embedding is removed (never used,
  so it would inflate the count). CPU runs transformers' pure-torch WKV loop; the CUDA kernel is an
  optional acceleration.
- ``rwkv-rote``: the reference's toy block: pre-LN -> token shift (zero at t = 0) -> learned mixes
  ``time_mix_{r,k,v}`` (init ``torch.rand``) -> r = s(W_r .), k = s(W_k .), v = W_v . ->
  s_t = s(time_decay) s_{t-1} + k v (init decay 0.5; no normaliser, no bonus) -> ``W_o(r s_t)``
  added to the residual -> x + FFN(x) with FFN = LN -> Linear(d, 4d) -> GELU -> Linear(4d, d).
  Model: ``Linear(in -> d)`` (no positions) -> blocks -> LayerNorm -> ``Linear``.
"""

from __future__ import annotations

import torch
from torch import nn

from ..spec import register
from ..scan import chunked_scan, sequential_scan, use_chunked


class RoteRWKVBlock(nn.Module):
    """One RWKV-style block of the ROTE reference. x: (batch, time, d) -> same."""

    def __init__(self, dim: int, hidden_size: int, scan: str = "auto"):
        super().__init__()
        use_chunked(scan, torch.zeros(0))  # validate early
        self.scan = scan
        self.time_mix_r = nn.Parameter(torch.rand(dim))
        self.time_mix_k = nn.Parameter(torch.rand(dim))
        self.time_mix_v = nn.Parameter(torch.rand(dim))
        self.time_decay = nn.Parameter(torch.zeros(dim))
        self.receptance = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.output = nn.Linear(dim, dim)
        self.ffn = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, hidden_size), nn.GELU(), nn.Linear(hidden_size, dim))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor, step: bool = False) -> torch.Tensor:
        residual = x
        x = self.norm(x)
        prev = torch.cat([torch.zeros_like(x[:, :1]), x[:, :-1]], dim=1)

        def mix(m: torch.Tensor) -> torch.Tensor:
            return x * m + prev * (1.0 - m)

        r = torch.sigmoid(self.receptance(mix(self.time_mix_r)))
        k = torch.sigmoid(self.key(mix(self.time_mix_k)))
        v = self.value(mix(self.time_mix_v))
        kv = k * v
        if not step and use_chunked(self.scan, x):
            state = chunked_scan(nn.functional.logsigmoid(self.time_decay).expand_as(kv), kv)
        else:
            state = sequential_scan(torch.sigmoid(self.time_decay).expand_as(kv), kv)
        x = residual + self.output(r * state)
        return x + self.ffn(x)


class RoteRWKV(nn.Module):
    """x: (batch, time, in) -> (batch, time, out); causal."""

    def __init__(self, input_size: int, output_size: int, *, d_model: int, num_layers: int, ff_mult: int,
                 scan: str = "auto"):
        super().__init__()
        self.input_proj = nn.Linear(input_size, d_model)
        self.blocks = nn.ModuleList([RoteRWKVBlock(d_model, ff_mult * d_model, scan) for _ in range(num_layers)])
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, output_size)

    def _run(self, x: torch.Tensor, step: bool) -> torch.Tensor:
        x = self.input_proj(x)
        for block in self.blocks:
            x = block(x, step=step)
        return self.head(self.norm(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._run(x, step=False)

    def step_by_step(self, x: torch.Tensor) -> torch.Tensor:
        """Same outputs with the state recurrence run one step at a time (the reference's loop)."""
        return self._run(x, step=True)


class RWKV4(nn.Module):
    """Published RWKV-4 blocks (transformers). x: (batch, time, in) -> (batch, time, out); causal."""

    def __init__(self, input_size: int, output_size: int, *, d_model: int, num_layers: int, ff_mult: int):
        super().__init__()
        from transformers import RwkvConfig, RwkvModel

        config = RwkvConfig(vocab_size=1, hidden_size=d_model, num_hidden_layers=num_layers,
                            attention_hidden_size=d_model, intermediate_size=ff_mult * d_model,
                            context_length=1 << 20, rescale_every=0, use_cache=False)
        self.input_proj = nn.Linear(input_size, d_model)
        self.rwkv = RwkvModel(config)
        self.rwkv.embeddings = None  # inputs arrive as embeddings; an unused table is not a parameter we train
        self.head = nn.Linear(d_model, output_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.rwkv(inputs_embeds=self.input_proj(x), use_cache=False).last_hidden_state
        return self.head(h)

    @torch.no_grad()
    def step_by_step(self, x: torch.Tensor) -> torch.Tensor:
        """One token at a time through the library's recurrent state.

        Sequences go one by one: transformers' one-token path broadcasts its shift state (batch, d)
        against (batch, 1, d), which is only right for batch 1.
        """
        rows = []
        for row in self.input_proj(x).split(1, dim=0):
            state, outs = None, []
            for t in range(row.size(1)):
                out = self.rwkv(inputs_embeds=row[:, t : t + 1], state=state, use_cache=True)
                state = out.state
                outs.append(self.head(out.last_hidden_state))
            rows.append(torch.cat(outs, dim=1))
        return torch.cat(rows, dim=0)


@register(
    "rwkv-rote",
    family="RWKV",
    source="ours (ROTE reference RWKV-style block)",
    width_key="d_model",
    defaults={"d_model": 256, "num_layers": 2, "ff_mult": 4, "scan": "auto"},
    presets={"rote-paper": {"d_model": 256, "num_layers": 2, "ff_mult": 4},
             "rote-matched": {"num_layers": 2, "ff_mult": 4}},
    count=lambda i, o, a: i * a["d_model"] + a["d_model"]
    + a["num_layers"] * (4 * a["d_model"] ** 2 + 2 * a["ff_mult"] * a["d_model"] ** 2
                         + (4 + 4 + 4 + a["ff_mult"] + 1) * a["d_model"])
    + 2 * a["d_model"] + a["d_model"] * o + o,
)
def build_rwkv_rote(input_size: int, output_size: int, **arch) -> nn.Module:
    """The ROTE reference's RWKV-style model (no positions, toy decay-only state)."""
    return RoteRWKV(input_size, output_size, **arch)


@register(
    "rwkv",
    family="RWKV",
    source="transformers 5.24 RwkvModel blocks (RWKV-4)",
    width_key="d_model",
    defaults={"d_model": 256, "num_layers": 2, "ff_mult": 4},
    presets={"rote-paper": {"d_model": 256, "num_layers": 2, "ff_mult": 4},
             "rote-matched": {"num_layers": 2, "ff_mult": 4}},
    count=lambda i, o, a: i * a["d_model"] + a["d_model"]
    + a["num_layers"] * ((5 + 2 * a["ff_mult"]) * a["d_model"] ** 2 + 11 * a["d_model"])
    + 2 * a["d_model"] + 2 * a["d_model"] + a["d_model"] * o + o,
)
def build_rwkv(input_size: int, output_size: int, **arch) -> nn.Module:
    """Published RWKV-4 (transformers' RwkvModel blocks) with linear input/output maps."""
    return RWKV4(input_size, output_size, **arch)
