"""Sweep configs (YAML) and their expansion into runs.

A YAML file maps 1:1 onto :class:`SweepConfig`; :func:`expand` turns it into a deterministic
list of :class:`RunSpec` (one per fit), each with a run id that hashes everything defining the
run, so a resumed sweep recognises finished runs whatever process ran them.

ROTE (``suite: rote`` or ``rote_matched``)::

    name: rote_smoke
    suite: rote
    data:
      seeds: {source: paper, track: main, symbols: [2], complexities: [10], seed_count: 1}
      # or: seeds: {source: list, strings: [ABBA..., ...]}
      sequence_length: 3500
      window: 100
      horizon: 100
    models: [{name: gru, preset: rote-paper}]     # zoo name (or "module:factory") + build kwargs
    protocol: {max_epochs: 200}                   # RoteProtocol fields
    runs: 2                                       # init repetitions per (seed, model)

CogScale (``suite: cogscale``)::

    name: cogscale_smoke
    suite: cogscale
    data: {tasks: [simple_copy], difficulties: [small], seeds: [0, 1]}
    models: [{name: gru, preset: cogscale, budget: 1000}, {name: esn, budget: 1000, units: 100}]
    learning_rates: [1.0e-2, 1.0e-3]              # ignored by the ESN (one configuration)
    protocol: {max_epochs: 200, patience: 10}     # CogScaleProtocol fields except learning_rate

Loop order (ROTE, as the reference): seed cell -> model -> run. CogScale: model -> task ->
difficulty -> lr -> seed (as ``run.py``'s ``itertools.product``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from rote_hf.results.schema import canonical_json, config_hash, make_run_id

SUITES = ("rote", "rote_matched", "cogscale")
ESN_MODELS = ("esn",)
_TOP_KEYS = {"name", "suite", "data", "models", "protocol", "runs", "learning_rates", "description"}


@dataclass(frozen=True)
class RunSpec:
    """One fit: everything needed to run it and to recognise it again.

    ``task_params``: suite data parameters (ROTE: seed string, n, c, seed index, lengths;
    CogScale: task, difficulty, seed). ``model``: ``{"name": ..., **build kwargs}``.
    ``protocol``: protocol fields. ``run``: init repetition (ROTE) or seed (CogScale).
    """

    suite: str
    config_name: str
    index: int
    task: str
    task_params: Mapping[str, Any]
    model: Mapping[str, Any]
    protocol: Mapping[str, Any]
    run: int

    def identity(self) -> dict[str, Any]:
        """What defines the run (the config name and position do not)."""
        return {"suite": self.suite, "task": self.task, "task_params": dict(self.task_params),
                "model": dict(self.model), "protocol": dict(self.protocol), "run": self.run}

    @property
    def run_id(self) -> str:
        return make_run_id(self.suite, self.model["name"], self.task, self.identity())

    @property
    def config_hash(self) -> str:
        return config_hash(self.identity())


@dataclass(frozen=True)
class SweepConfig:
    """A parsed sweep config (see the module docstring for the YAML layout)."""

    name: str
    suite: str
    data: Mapping[str, Any]
    models: tuple[Mapping[str, Any], ...]
    protocol: Mapping[str, Any] = field(default_factory=dict)
    runs: int = 1
    learning_rates: tuple[float, ...] = ()
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        if self.suite not in SUITES:
            raise ValueError(f"suite must be one of {SUITES}, got {self.suite!r}")
        if not self.models:
            raise ValueError("models must list at least one model")
        for m in self.models:
            if not isinstance(m, Mapping) or not isinstance(m.get("name"), str):
                raise ValueError(f"each entry of models must be a mapping with a 'name', got {m!r}")
        if isinstance(self.runs, bool) or not isinstance(self.runs, int) or self.runs < 1:
            raise ValueError(f"runs must be an integer >= 1, got {self.runs!r}")
        if self.suite == "cogscale":
            if not self.learning_rates and any(m["name"] not in ESN_MODELS for m in self.models):
                raise ValueError("learning_rates must list at least one learning rate for gradient models")
            for key in ("tasks", "difficulties", "seeds"):
                if not self.data.get(key):
                    raise ValueError(f"data.{key} must be a non-empty list for suite 'cogscale'")
        else:
            if not isinstance(self.data.get("seeds"), Mapping):
                raise ValueError("data.seeds must be a mapping with 'source' ('paper' or 'list')")
        # protocol keys are validated by constructing the protocol once
        from rote_hf.train.suites import protocol_for

        protocol_for(self.suite, dict(self.protocol), learning_rate=(self.learning_rates or (1e-3,))[0])

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "SweepConfig":
        if not isinstance(raw, Mapping):
            raise TypeError(f"config must be a mapping, got {type(raw).__name__}")
        unknown = set(raw) - _TOP_KEYS
        if unknown:
            raise ValueError(f"config keys must be among {sorted(_TOP_KEYS)}, got unknown {sorted(unknown)}")
        return cls(name=raw.get("name", ""), suite=raw.get("suite", ""), data=dict(raw.get("data") or {}),
                   models=tuple(dict(m) for m in raw.get("models") or ()), protocol=dict(raw.get("protocol") or {}),
                   runs=raw.get("runs", 1), learning_rates=tuple(float(x) for x in raw.get("learning_rates") or ()),
                   description=raw.get("description", ""))

    @classmethod
    def from_yaml(cls, path: str | Path) -> "SweepConfig":
        import yaml

        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"config file not found: {path}")
        return cls.from_dict(yaml.safe_load(path.read_text()))


def _rote_seeds(seeds: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Seed cells of a ROTE config: dicts with seed, symbols, complexity, seed_index, name."""
    source = seeds.get("source")
    if source == "paper":
        from rote_hf.symbolic import paper_seeds

        symbols = set(seeds.get("symbols") or (2, 4, 6, 8))
        complexities = set(seeds.get("complexities") or (10, 30, 50, 70, 90))
        count = int(seeds.get("seed_count", 2))
        return [{"seed": s.seed, "symbols": s.n_symbols, "complexity": s.complexity, "seed_index": s.seed_index,
                 "seed_name": s.name}
                for s in paper_seeds(seeds.get("track", "main"))
                if s.n_symbols in symbols and s.complexity in complexities and s.seed_index < count]
    if source == "list":
        from rote_hf.symbolic import complexity

        strings = seeds.get("strings") or ()
        if not strings or not all(isinstance(s, str) and s for s in strings):
            raise ValueError("data.seeds.strings must be a non-empty list of seed strings")
        return [{"seed": s, "symbols": len(set(s)), "complexity": complexity(s), "seed_index": i,
                 "seed_name": f"list-{i}"} for i, s in enumerate(strings)]
    raise ValueError(f"data.seeds.source must be one of ['paper', 'list'], got {source!r}")


def expand(config: SweepConfig) -> list[RunSpec]:
    """All runs of ``config`` in the suite's loop order, indexed 0..len-1."""
    specs: list[RunSpec] = []
    if config.suite in ("rote", "rote_matched"):
        lengths = {k: int(config.data.get(k, d)) for k, d in
                   (("sequence_length", 3500), ("window", 100), ("horizon", 100))}
        for cell in _rote_seeds(config.data["seeds"]):
            task = f"n{cell['symbols']}-c{cell['complexity']}"
            for model in config.models:
                for run in range(config.runs):
                    specs.append(RunSpec(config.suite, config.name, len(specs), task, {**cell, **lengths},
                                         dict(model), dict(config.protocol), run))
        return specs
    d = config.data
    for model in config.models:
        lrs = (None,) if model["name"] in ESN_MODELS else config.learning_rates
        for task, difficulty, lr, seed in itertools.product(d["tasks"], d["difficulties"], lrs, d["seeds"]):
            protocol = dict(config.protocol) if lr is None else {**config.protocol, "learning_rate": lr}
            specs.append(RunSpec("cogscale", config.name, len(specs), task,
                                 {"task": task, "difficulty": difficulty, "seed": int(seed)},
                                 dict(model), protocol, int(seed)))
    return specs


def describe(specs: list[RunSpec]) -> str:
    """A one-line summary for logs: run count and the canonical hash of the whole list."""
    return f"{len(specs)} runs (sweep {config_hash([s.identity() for s in specs])})"


__all__ = ["RunSpec", "SweepConfig", "expand", "describe", "canonical_json"]
