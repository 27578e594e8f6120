"""The ROTE suite (main track ``rote`` and matched-size track ``rote_matched``) as one unit.

Config section (YAML)::

    data:
      seeds: {source: paper, track: main, symbols: [2], complexities: [10], seed_count: 1}
      # or: seeds: {source: list, strings: [ABBA..., ...]}
      sequence_length: 3500
      window: 100
      horizon: 100
    models: [{name: gru, preset: rote-paper}]     # zoo name (or "module:factory") + build kwargs
    protocol: {max_epochs: 200}                   # RoteProtocol fields
    runs: 2                                       # init repetitions per (seed, model)

Loop order (as the reference): seed cell -> model -> run. Headline metric: DL (normalised
Damerau-Levenshtein distance of the rollout to the withheld continuation; lower is better),
exact-rollout rate when no rollout distance was computed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable

from rote_hf.boards.tables import rote_board
from rote_hf.protocols.device import device_label, environment
from rote_hf.protocols.measure import measure, trainable_parameters
from rote_hf.protocols.rote import RoteData as Windows, RoteProtocol, fit_rote
from rote_hf.results.aggregate import rote_summary
from rote_hf.results.headlines import ROTE_FALLBACK, ROTE_HEADLINE
from rote_hf.results.schema import ResultRow, budget_label
from rote_hf.suites.base import ModelEntry, RunSpec, Suite, check_keys, parse_models, parse_runs
from rote_hf.suites.execution import model_builder, provenance
from rote_hf.suites.model_names import check_zoo_models
from rote_hf.symbolic import complexity, make_windows, paper_seeds
from rote_hf.symbolic.generator import PAPER_COMPLEXITIES, PAPER_SYMBOLS
from rote_hf.symbolic.paper_seeds import SEEDS_PER_CELL
from rote_hf.symbolic.windows import PAPER_HORIZON, PAPER_SEQUENCE_LENGTH, PAPER_WINDOW

SEED_SOURCES = ("paper", "list")
#: The matched-size track's parameter target (millions) when a model entry names none.
MATCHED_TARGET_M = 0.2


@dataclass(frozen=True)
class SeedSelection:
    """``data.seeds``: the published seeds (``source="paper"``, filtered by track, symbols,
    complexities and ``seed_count`` per cell) or an explicit list (``source="list"``)."""

    source: str
    track: str = "main"
    symbols: tuple[int, ...] = PAPER_SYMBOLS
    complexities: tuple[int, ...] = PAPER_COMPLEXITIES
    seed_count: int = SEEDS_PER_CELL
    strings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.source not in SEED_SOURCES:
            raise ValueError(f"data.seeds.source must be one of {list(SEED_SOURCES)}, got {self.source!r}")
        if self.source == "list" and (not self.strings or not all(isinstance(s, str) and s for s in self.strings)):
            raise ValueError("data.seeds.strings must be a non-empty list of seed strings")

    @classmethod
    def parse(cls, raw: Any) -> "SeedSelection":
        if not isinstance(raw, Mapping):
            raise ValueError("data.seeds must be a mapping with 'source' ('paper' or 'list')")
        check_keys(raw, ("source", "track", "symbols", "complexities", "seed_count", "strings"), "data.seeds")
        return cls(source=raw.get("source"), track=raw.get("track", "main"),
                   symbols=tuple(raw.get("symbols") or PAPER_SYMBOLS),
                   complexities=tuple(raw.get("complexities") or PAPER_COMPLEXITIES),
                   seed_count=int(raw.get("seed_count", SEEDS_PER_CELL)), strings=tuple(raw.get("strings") or ()))

    def cells(self) -> list[dict[str, Any]]:
        """Seed cells: dicts with seed, symbols, complexity, seed_index, seed_name."""
        if self.source == "paper":
            symbols, complexities = set(self.symbols), set(self.complexities)
            return [{"seed": s.seed, "symbols": s.n_symbols, "complexity": s.complexity, "seed_index": s.seed_index,
                     "seed_name": s.name}
                    for s in paper_seeds(self.track)
                    if s.n_symbols in symbols and s.complexity in complexities and s.seed_index < self.seed_count]

        return [{"seed": s, "symbols": len(set(s)), "complexity": complexity(s), "seed_index": i,
                 "seed_name": f"list-{i}"} for i, s in enumerate(self.strings)]


@dataclass(frozen=True)
class RoteData:
    """``data``: the seeds and the stream lengths (symbols)."""

    seeds: SeedSelection
    sequence_length: int = PAPER_SEQUENCE_LENGTH
    window: int = PAPER_WINDOW
    horizon: int = PAPER_HORIZON

    @classmethod
    def parse(cls, raw: Any) -> "RoteData":
        raw = raw or {}
        check_keys(raw, ("seeds", "sequence_length", "window", "horizon"), "data")
        return cls(SeedSelection.parse(raw.get("seeds")),
                   **{k: int(raw.get(k, d)) for k, d in (("sequence_length", PAPER_SEQUENCE_LENGTH),
                                                         ("window", PAPER_WINDOW), ("horizon", PAPER_HORIZON))})


@dataclass(frozen=True)
class RoteSection:
    """A ROTE sweep: data, models, the validated protocol (and the fields the config wrote, which
    the run ids hash), init repetitions."""

    data: RoteData
    models: tuple[ModelEntry, ...]
    protocol: Any  # rote_hf.protocols.rote.RoteProtocol
    protocol_given: Mapping[str, Any]
    runs: int = 1


class RoteSuite(Suite):
    """ROTE: LZW-controlled seeds, finite-context next-symbol training, closed-loop rollout."""

    headline = ROTE_HEADLINE
    fallback = ROTE_FALLBACK
    summary_columns = ("model", "fits", "failed", "params", "test_loss_mean", "test_accuracy_mean", "DL_mean", "DL_sd",
                       "JW_mean", "exact_rate", "epochs_median", "train_time_median_s", "time_per_epoch_median_s")
    dataset_builder = "rote_hf.datasets.rote_seeds:build"
    dataset_card = "rote_hf.datasets:rote_seeds.md"
    config_keys = ("data", "models", "protocol", "runs")
    description = "ROTE seeds: train with eval_suite/train.py"

    def __init__(self, name: str = "rote", *, matched_target_m: float | None = None) -> None:
        self.name = name  # type: ignore[misc]
        #: The matched-size track's parameter target (millions) for model entries that name none.
        self.matched_target_m = matched_target_m

    # -- configs ---------------------------------------------------------------------------
    def protocol(self, values: Mapping[str, Any]):
        """The :class:`~rote_hf.protocols.rote.RoteProtocol` of config values (``ValueError`` on unknown keys)."""
        return RoteProtocol.from_dict(values)

    def parse(self, raw: Mapping[str, Any]) -> RoteSection:
        given = MappingProxyType(dict(raw.get("protocol") or {}))
        data, models = RoteData.parse(raw.get("data")), parse_models(raw.get("models"))
        check_zoo_models(models)
        return RoteSection(data, models, self.protocol(given),
                           given, parse_runs(raw.get("runs", 1)))

    def expand(self, section: RoteSection, config_name: str) -> list[RunSpec]:
        d = section.data
        lengths = {"sequence_length": d.sequence_length, "window": d.window, "horizon": d.horizon}
        specs: list[RunSpec] = []
        for cell in d.seeds.cells():
            task = f"n{cell['symbols']}-c{cell['complexity']}"
            for model in section.models:
                for run in range(section.runs):
                    specs.append(RunSpec(self.name, config_name, len(specs), task, {**cell, **lengths},
                                         model.as_dict(), dict(section.protocol_given), run, section.protocol))
        return specs

    # -- executing -------------------------------------------------------------------------
    def load_data(self, spec: RunSpec):
        """Windows of the spec's seed through ``rote_hf.symbolic.make_windows``."""
        p = spec.task_params
        return Windows.from_windows(make_windows(p["seed"], p["sequence_length"], p["window"], p["horizon"]))

    def spec_columns(self, spec: RunSpec) -> dict[str, Any]:
        """``config`` (``s<seed index>``), the seed index, and the init seed and learning rate of its protocol."""
        protocol = self.protocol_of(spec)
        return {"config": f"s{spec.task_params.get('seed_index', 0)}", "data_seed": spec.task_params.get("seed_index"),
                "init_seed": protocol.base_seed + spec.run, "learning_rate": protocol.learning_rate}

    def budget(self, model: Mapping[str, Any]) -> str:
        if self.matched_target_m is None:
            return budget_label(model)
        return budget_label(model, f"{model.get('target_m', self.matched_target_m):g}M")

    def execute(self, spec: RunSpec, device: Any = "cpu", *, data=None, build: Callable[[], Any] | None = None):
        """One ROTE fit -> one result row (metrics, forecast, cost, provenance)."""
        protocol = self.protocol_of(spec)
        data = self.load_data(spec) if data is None else data
        n = len(data.alphabet)
        build = model_builder(spec.model, n, n) if build is None else build
        with measure(device) as m:
            model, fit = fit_rote(build, data, protocol, run=spec.run, device=device)
        headline = self.headline if self.headline.name in fit.metrics else self.fallback
        return ResultRow(
            run_id=spec.run_id, suite=spec.suite, task=spec.task, **self.spec_columns(spec),
            task_params=dict(spec.task_params), param_count=trainable_parameters(model), run=spec.run,
            protocol="rote",
            settings={**protocol.as_dict(), "stop_reason": fit.stop_reason, "best_epoch": fit.best_epoch,
                      "environment": environment()},
            metrics=fit.metrics, outputs={"forecast": fit.forecast, "target": data.target},
            # the pre-unit rows stored lower_is_better=True for DL and False for the exact fallback
            **headline.row_fields(fit.metrics),
            train_time_s=fit.train_time_s, time_per_epoch_s=fit.train_time_s / max(1, fit.epochs), epochs=fit.epochs,
            peak_cuda_mb=m.peak_cuda_mb, peak_cpu_mb=m.peak_cpu_mb, device=device_label(device),
            model=spec.model["name"], model_config={k: v for k, v in spec.model.items() if k != "name"},
            budget=self.budget(spec.model), **provenance(spec, data.fingerprint),
        )

    # -- showing ---------------------------------------------------------------------------
    def summary(self, frame, *, by: tuple[str, ...] = ("model",), source: str = "ours"):
        return rote_summary(frame, suite=self.name, by=by, source=source)

    def board(self, frame, **filters: Any):
        """The Space's ROTE board (both tracks; ``track`` filters one)."""
        return rote_board(frame, **filters)


ROTE = RoteSuite("rote")
ROTE_MATCHED = RoteSuite("rote_matched", matched_target_m=MATCHED_TARGET_M)
