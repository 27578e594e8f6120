"""The CogScale suite as one unit.

Config section (YAML)::

    data: {tasks: [simple_copy], difficulties: [small], seeds: [0, 1]}
    models: [{name: gru, preset: cogscale, budget: 1000}, {name: esn, budget: 1000, units: 100}]
    learning_rates: [1.0e-2, 1.0e-3]              # ignored by the ESN (one configuration)
    protocol: {max_epochs: 200, patience: 10}     # CogScaleProtocol fields except learning_rate

Loop order: model -> task -> difficulty -> lr -> seed (as the reference ``run.py``'s
``itertools.product``). The seed drives the data, the initialisation and the ESN reservoir.
Headline metric: the test score (lower is better), averaged over seeds at the learning rate
chosen on validation.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable

from rote_hf.boards.tables import cogscale_board
from rote_hf.protocols.device import device_label, environment
from rote_hf.protocols.measure import measure, trainable_parameters
from rote_hf.results.aggregate import cogscale_table
from rote_hf.results.headlines import COGSCALE_HEADLINE
from rote_hf.results.schema import ResultRow, budget_label
from rote_hf.suites.base import ModelEntry, RunSpec, Suite, check_keys, parse_models
from rote_hf.suites.execution import model_builder, provenance
from rote_hf.suites.model_names import check_zoo_models
from rote_hf.zoo.build import resolve_arch

#: Models whose readout is fitted in closed form (no learning rate, no protocol).
FITTED_MODELS = ("esn",)
#: Values of an ESN entry's ``hyperparameters:`` key: ``published`` = CogScale's per-task values
#: (``esn_hp_report.md``, what its ``run.py`` reads), by task, difficulty and reservoir size.
ESN_HYPERPARAMETER_SOURCES = ("published",)


@dataclass(frozen=True)
class CogScaleGrid:
    """``data``: task names, difficulty presets and seeds (each non-empty)."""

    tasks: tuple[str, ...]
    difficulties: tuple[str, ...]
    seeds: tuple[int, ...]

    def __post_init__(self) -> None:
        for key in ("tasks", "difficulties", "seeds"):
            if not getattr(self, key):
                raise ValueError(f"data.{key} must be a non-empty list for suite 'cogscale'")
        from rote_hf.cogscale import DIFFICULTIES, TASKS  # lazy: imports numpy

        for key, allowed in (("tasks", tuple(TASKS)), ("difficulties", tuple(DIFFICULTIES))):
            unknown = [v for v in getattr(self, key) if v not in allowed]
            if unknown:  # refused here, before any run: each would be stored as a failed run
                raise ValueError(f"data.{key} must be among {', '.join(allowed)}; got unknown "
                                 f"{', '.join(map(repr, unknown))}")

    @classmethod
    def parse(cls, raw: Any) -> "CogScaleGrid":
        raw = raw or {}
        check_keys(raw, ("tasks", "difficulties", "seeds"), "data")
        return cls(tuple(raw.get("tasks") or ()), tuple(raw.get("difficulties") or ()),
                   tuple(int(s) for s in raw.get("seeds") or ()))


@dataclass(frozen=True)
class CogScaleSection:
    """A CogScale sweep: the grid, the models, the learning rates, one validated protocol per
    learning rate and the protocol fields the config wrote (hashed into run ids)."""

    data: CogScaleGrid
    models: tuple[ModelEntry, ...]
    learning_rates: tuple[float, ...]
    protocols: Mapping[float, Any]  # learning rate -> rote_hf.protocols.cogscale.CogScaleProtocol
    protocol_given: Mapping[str, Any]


class CogScaleSuite(Suite):
    """CogScale: 14 synthetic cognitive tasks, budgets 1k/10k/100k."""

    name = "cogscale"
    headline = COGSCALE_HEADLINE
    summary_columns = ("task", "difficulty", "model", "budget", "learning_rate", "lr_selection", "seeds", "failed",
                       "mean", "std")
    dataset_builder = "rote_hf.datasets.cogscale:build"
    dataset_card = "rote_hf.datasets.cogscale_card:card_body"
    config_keys = ("data", "models", "protocol", "learning_rates")
    description = "CogScale tasks: train with eval_suite/train.py"

    # -- configs ---------------------------------------------------------------------------
    def protocol(self, values: Mapping[str, Any], learning_rate: float | None = None):
        """The :class:`~rote_hf.protocols.cogscale.CogScaleProtocol` of config values (``ValueError``
        naming the known keys on unknown ones)."""
        from rote_hf.protocols.cogscale import CogScaleProtocol  # lazy: imports numpy

        values = dict(values)
        if learning_rate is not None:
            values.setdefault("learning_rate", learning_rate)
        check_keys(values, CogScaleProtocol.__dataclass_fields__, "protocol")
        return CogScaleProtocol(**values)

    def parse(self, raw: Mapping[str, Any]) -> CogScaleSection:
        models = parse_models(raw.get("models"))
        check_zoo_models(models)
        for m in models:
            entry = m.as_dict()
            if "hyperparameters" not in entry:
                continue
            if m.name not in FITTED_MODELS or entry["hyperparameters"] not in ESN_HYPERPARAMETER_SOURCES:
                raise ValueError(f"models[{m.name}].hyperparameters is for the ESN and must be one of "
                                 f"{list(ESN_HYPERPARAMETER_SOURCES)}, got {entry['hyperparameters']!r}")
            if "search" in entry:
                raise ValueError(f"models[{m.name}]: give either hyperparameters or search, not both")
        lrs = tuple(float(x) for x in raw.get("learning_rates") or ())
        if not lrs and any(m.name not in FITTED_MODELS for m in models):
            raise ValueError("learning_rates must list at least one learning rate for gradient models")
        grid = CogScaleGrid.parse(raw.get("data"))
        given = MappingProxyType(dict(raw.get("protocol") or {}))
        protocols = {lr: self.protocol({**given, "learning_rate": lr}) for lr in lrs}
        if not lrs:  # validate the keys once even when only fitted models run
            self.protocol(given, learning_rate=1e-3)
        return CogScaleSection(grid, models, lrs, MappingProxyType(protocols), given)

    def expand(self, section: CogScaleSection, config_name: str) -> list[RunSpec]:
        d = section.data
        specs: list[RunSpec] = []
        for model in section.models:
            lrs = (None,) if model.name in FITTED_MODELS else section.learning_rates
            for task, difficulty, lr, seed in itertools.product(d.tasks, d.difficulties, lrs, d.seeds):
                given = dict(section.protocol_given)
                protocol = given if lr is None else {**given, "learning_rate": lr}
                specs.append(RunSpec(self.name, config_name, len(specs), task,
                                     {"task": task, "difficulty": difficulty, "seed": seed}, model.as_dict(),
                                     protocol, seed, None if lr is None else section.protocols[lr]))
        return specs

    # -- executing -------------------------------------------------------------------------
    def load_data(self, spec: RunSpec):
        """The task build through ``rote_hf.cogscale.build_task(task, difficulty, seed)``."""
        from rote_hf.cogscale import build_task  # lazy: imports numpy
        from rote_hf.protocols.cogscale import CogScaleData  # lazy: imports numpy

        p = spec.task_params
        return CogScaleData.from_build(build_task(p["task"], p["difficulty"], seed=p["seed"]))

    def execute(self, spec: RunSpec, device: Any = "cpu", *, data=None, build: Callable[[], Any] | None = None):
        """One CogScale fit (gradient model or ESN) -> one result row."""
        from rote_hf.protocols.cogscale import fit_cogscale, fit_esn, search_esn  # lazy: imports numpy

        data = self.load_data(spec) if data is None else data
        seed = int(spec.task_params["seed"])
        fitted = spec.model["name"] in FITTED_MODELS
        model_cfg = dict(spec.model)
        search = model_cfg.pop("search", None)
        published = None
        if fitted:
            model_cfg.setdefault("reservoir_seed", seed)  # seeded reservoir (the reference's is not)
        if model_cfg.pop("hyperparameters", None) is not None:
            published = self.published_esn_hyperparameters(spec, model_cfg, data)
            model_cfg.update(published)
        build = model_builder(model_cfg, data.input_size, data.output_size) if build is None else build
        protocol = None if fitted else self.protocol_of(spec)
        chosen: dict[str, float] = {}
        with measure(device) as m:
            if fitted and search is not None:
                opts = dict(search)
                model, fit, chosen = search_esn(
                    lambda hp: model_builder({**model_cfg, **hp}, data.input_size, data.output_size), data, seed=seed,
                    trials=int(opts.pop("trials", 20)), search_seed=int(opts.pop("seed", 0)),
                    ranges={k: tuple(v) for k, v in opts.items()} or None, device=device)
            elif fitted:
                model, fit = fit_esn(build, data, seed=seed, device=device)
            else:
                model, fit = fit_cogscale(build, data, protocol, seed=seed, device=device)
        return self.row(spec, data, model, fit, protocol, m, device, search=search, chosen=chosen,
                        published=published)

    @staticmethod
    def published_esn_hyperparameters(spec: RunSpec, model_cfg: Mapping[str, Any], data) -> dict[str, float]:
        """CogScale's reported (leak rate, spectral radius, input scaling) for this run's task,
        difficulty and reservoir size, as its ``run.py`` looks them up."""
        from rote_hf.results.published import cogscale_esn_hyperparameters_for  # lazy: imports numpy

        sizing = {k: v for k, v in model_cfg.items() if k in ("preset", "budget", "units")}
        units = resolve_arch("esn", input_size=data.input_size, output_size=data.output_size, **sizing).arch["units"]
        return cogscale_esn_hyperparameters_for(spec.task_params["task"], spec.task_params["difficulty"], units)

    def row(self, spec: RunSpec, data, model, fit, protocol, m, device: Any, *,
            search: Mapping[str, Any] | None = None, chosen: Mapping[str, float] | None = None,
            published: Mapping[str, float] | None = None):
        """The result row of one finished fit (``m``: its measurement; ``protocol`` None for the
        ESN). Shared by the one-run executor and the fleet executor, so both store the same row."""
        settings = {"category": data.category, "best_epoch": fit.best_epoch, "environment": environment()}
        if search is not None:
            settings.update(search=dict(search), chosen=dict(chosen or {}))
        if published is not None:  # the ESN's values from CogScale's report
            settings.update(published_hyperparameters=dict(published))
        if protocol is not None:
            settings.update({k: getattr(protocol, k) for k in protocol.__dataclass_fields__}, optimizer="Adam")
            if protocol.on_divergence == "fail":  # the default, unwritten: rows stay as before the field existed
                del settings["on_divergence"]
        return ResultRow(
            run_id=spec.run_id, suite=self.name, task=spec.task, **self.spec_columns(spec),
            task_params=dict(spec.task_params), param_count=trainable_parameters(model),
            run=spec.run, protocol="cogscale" if protocol is not None else "cogscale-esn", settings=settings,
            metrics=fit.metrics, **self.headline.row_fields(fit.metrics),
            train_time_s=fit.train_time_s, time_per_epoch_s=fit.train_time_s / max(1, fit.epochs), epochs=fit.epochs,
            peak_cuda_mb=m.peak_cuda_mb, peak_cpu_mb=m.peak_cpu_mb, device=device_label(device),
            model=spec.model["name"], model_config={k: v for k, v in spec.model.items() if k != "name"},
            budget=budget_label(spec.model), **provenance(spec, data.fingerprint),
        )

    def spec_columns(self, spec: RunSpec) -> dict[str, Any]:
        """``config`` (the difficulty), the seed (data and initialisation) and the learning rate
        (None for the ESN, which has none)."""
        seed = int(spec.task_params["seed"])
        return {"config": spec.task_params["difficulty"], "data_seed": seed, "init_seed": seed,
                "learning_rate": None if spec.settings is None else spec.protocol["learning_rate"]}

    # -- showing ---------------------------------------------------------------------------
    def summary(self, frame, *, lr_selection: str = "validation", source: str = "ours"):
        return cogscale_table(frame, lr_selection=lr_selection, source=source)

    def board(self, frame, **filters: Any):
        return cogscale_board(frame, **filters)


COGSCALE = CogScaleSuite()
