"""Run one :class:`~rote_hf.train.config.RunSpec`: data, model, protocol, measurement, result row.

Registries, not if-chains: :data:`EXECUTORS` maps a suite to the function running one of its
specs, :data:`PROTOCOLS` to its protocol class. Data and models come from the other rooms,
imported lazily: ROTE windows from ``rote_hf.symbolic.make_windows``, CogScale tasks from
``rote_hf.cogscale.build_task``, models from ``rote_hf.zoo.build_model``. A model name written
``"module:factory"`` is a user model: ``factory(input_size=..., output_size=..., **kwargs)``.
Each executor also accepts ``data=`` and ``build=`` to run on prepared data and a given model
builder (used by tests and by callers that bring their own data).
"""

from __future__ import annotations

import traceback
from typing import Any, Callable, Mapping

from rote_hf.results.provenance import git_commit, package_version, utc_timestamp
from rote_hf.results.schema import ResultRow
from rote_hf.train.cogscale import CogScaleData, CogScaleProtocol, fit_cogscale, fit_esn, search_esn
from rote_hf.train.config import ESN_MODELS, RunSpec
from rote_hf.train.measure import measure, trainable_parameters
from rote_hf.train.rote import RoteData, RoteProtocol, fit_rote, resolve_callable

PROTOCOLS = {"rote": RoteProtocol, "rote_matched": RoteProtocol, "cogscale": CogScaleProtocol}


def protocol_for(suite: str, values: Mapping[str, Any], *, learning_rate: float | None = None):
    """The protocol object of ``suite`` from config values (``ValueError`` on unknown keys)."""
    if suite not in PROTOCOLS:
        raise ValueError(f"suite must be one of {sorted(PROTOCOLS)}, got {suite!r}")
    if suite == "cogscale":
        values = dict(values)
        if learning_rate is not None:
            values.setdefault("learning_rate", learning_rate)
        known = set(CogScaleProtocol.__dataclass_fields__)
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"protocol keys must be among {sorted(known)}, got unknown {sorted(unknown)}")
        return CogScaleProtocol(**values)
    return RoteProtocol.from_dict(values)


def model_builder(model: Mapping[str, Any], input_size: int, output_size: int) -> Callable[[], Any]:
    """A zero-argument builder for the model entry ``{"name": ..., **kwargs}`` of a config."""
    kwargs = {k: v for k, v in model.items() if k != "name"}
    name = model["name"]
    if ":" in name:
        factory = resolve_callable(name)
        return lambda: factory(input_size=input_size, output_size=output_size, **kwargs)

    def build():
        from rote_hf.zoo import build_model

        return build_model(name, input_size=input_size, output_size=output_size, **kwargs)

    return build


def _provenance(spec: RunSpec, fingerprint: str) -> dict[str, Any]:
    return {"package_version": package_version(), "git_commit": git_commit(), "dataset_fingerprint": fingerprint,
            "config_name": spec.config_name, "config_hash": spec.config_hash, "timestamp": utc_timestamp()}


def _model_fields(spec: RunSpec) -> dict[str, Any]:
    cfg = {k: v for k, v in spec.model.items() if k != "name"}
    budget = cfg.get("budget")
    if isinstance(budget, (int, float)) and not isinstance(budget, bool):
        budget = f"{budget / 1000:g}k" if budget < 10**6 else f"{budget / 1e6:g}M"
    elif spec.suite == "rote_matched":
        budget = f"{cfg.get('target_m', 0.2):g}M"
    return {"model": spec.model["name"], "model_config": cfg, "budget": str(budget or "")}


def rote_data(spec: RunSpec) -> RoteData:
    """Windows of the spec's seed through ``rote_hf.symbolic.make_windows``."""
    from rote_hf.symbolic import make_windows

    p = spec.task_params
    return RoteData.from_windows(make_windows(p["seed"], p["sequence_length"], p["window"], p["horizon"]))


def run_rote(spec: RunSpec, device: Any = "cpu", *, data: RoteData | None = None,
             build: Callable[[], Any] | None = None) -> ResultRow:
    """One ROTE fit -> one result row (metrics, forecast, cost, provenance)."""
    protocol = protocol_for(spec.suite, spec.protocol)
    data = rote_data(spec) if data is None else data
    n = len(data.alphabet)
    build = model_builder(spec.model, n, n) if build is None else build
    with measure(device) as m:
        model, fit = fit_rote(build, data, protocol, run=spec.run, device=device)
    score = fit.metrics.get("DL", fit.metrics["exact"])
    return ResultRow(
        run_id=spec.run_id, suite=spec.suite, task=spec.task, config=f"s{spec.task_params.get('seed_index', 0)}",
        task_params=dict(spec.task_params), param_count=trainable_parameters(model),
        data_seed=spec.task_params.get("seed_index"), init_seed=protocol.base_seed + spec.run, run=spec.run,
        protocol="rote", learning_rate=protocol.learning_rate,
        settings={**protocol.as_dict(), "stop_reason": fit.stop_reason, "best_epoch": fit.best_epoch},
        metrics=fit.metrics, outputs={"forecast": fit.forecast, "target": data.target},
        score_name="DL" if "DL" in fit.metrics else "exact", score=score,
        lower_is_better="DL" in fit.metrics,
        train_time_s=fit.train_time_s, time_per_epoch_s=fit.train_time_s / max(1, fit.epochs), epochs=fit.epochs,
        peak_cuda_mb=m.peak_cuda_mb, peak_cpu_mb=m.peak_cpu_mb, device=str(device),
        **_model_fields(spec), **_provenance(spec, data.fingerprint),
    )


def cogscale_data(spec: RunSpec) -> CogScaleData:
    """The task build through ``rote_hf.cogscale.build_task(task, difficulty, seed)``."""
    from rote_hf.cogscale import build_task

    p = spec.task_params
    return CogScaleData.from_build(build_task(p["task"], p["difficulty"], seed=p["seed"]))


def run_cogscale(spec: RunSpec, device: Any = "cpu", *, data: CogScaleData | None = None,
                 build: Callable[[], Any] | None = None) -> ResultRow:
    """One CogScale fit (gradient model or ESN) -> one result row."""
    data = cogscale_data(spec) if data is None else data
    seed = int(spec.task_params["seed"])
    esn = spec.model["name"] in ESN_MODELS
    model_cfg = dict(spec.model)
    search = model_cfg.pop("search", None)
    if esn:
        model_cfg.setdefault("reservoir_seed", seed)  # seeded reservoir (the reference's is not)
    build = model_builder(model_cfg, data.input_size, data.output_size) if build is None else build
    protocol = None if esn else protocol_for("cogscale", spec.protocol)
    chosen: dict[str, float] = {}
    with measure(device) as m:
        if esn and search is not None:
            opts = dict(search)
            model, fit, chosen = search_esn(
                lambda hp: model_builder({**model_cfg, **hp}, data.input_size, data.output_size), data, seed=seed,
                trials=int(opts.pop("trials", 20)), search_seed=int(opts.pop("seed", 0)),
                ranges={k: tuple(v) for k, v in opts.items()} or None, device=device)
        elif esn:
            model, fit = fit_esn(build, data, seed=seed, device=device)
        else:
            model, fit = fit_cogscale(build, data, protocol, seed=seed, device=device)
    return cogscale_row(spec, data, model, fit, protocol, m, device, search=search, chosen=chosen)


def cogscale_row(spec: RunSpec, data: CogScaleData, model: Any, fit: Any, protocol: CogScaleProtocol | None,
                 m: Any, device: Any, *, search: Mapping[str, Any] | None = None,
                 chosen: Mapping[str, float] | None = None) -> ResultRow:
    """The result row of one finished CogScale fit (``m``: the measurement; ``protocol`` None for the ESN).
    Shared by the one-run executor and the fleet executor (rote_hf.train.fleet), so both store the same row."""
    esn = protocol is None
    seed = int(spec.task_params["seed"])
    settings = {"category": data.category, "best_epoch": fit.best_epoch}
    if search is not None:
        settings.update(search=dict(search), chosen=dict(chosen or {}))
    if protocol is not None:
        settings.update({k: getattr(protocol, k) for k in protocol.__dataclass_fields__}, optimizer="Adam")
    return ResultRow(
        run_id=spec.run_id, suite="cogscale", task=spec.task, config=spec.task_params["difficulty"],
        task_params=dict(spec.task_params), param_count=trainable_parameters(model),
        data_seed=seed, init_seed=seed, run=spec.run, protocol="cogscale-esn" if esn else "cogscale",
        learning_rate=None if protocol is None else protocol.learning_rate, settings=settings,
        metrics=fit.metrics, score_name="test_score", score=fit.metrics["test_score"], lower_is_better=True,
        train_time_s=fit.train_time_s, time_per_epoch_s=fit.train_time_s / max(1, fit.epochs), epochs=fit.epochs,
        peak_cuda_mb=m.peak_cuda_mb, peak_cpu_mb=m.peak_cpu_mb, device=str(device),
        **_model_fields(spec), **_provenance(spec, data.fingerprint),
    )


EXECUTORS: dict[str, Callable[..., ResultRow]] = {"rote": run_rote, "rote_matched": run_rote, "cogscale": run_cogscale}


def failed_row(spec: RunSpec, exc: BaseException, device: Any = "cpu") -> ResultRow:
    """The row recording that ``spec`` failed with ``exc`` (type, message and the last frames)."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-3))
    return ResultRow(
        run_id=spec.run_id, suite=spec.suite, task=spec.task, task_params=dict(spec.task_params),
        run=spec.run, protocol=spec.suite.split("_")[0], settings=dict(spec.protocol), status="failed",
        error=f"{type(exc).__name__}: {exc}\n{tb}", device=str(device), **_model_fields(spec),
        **_provenance(spec, ""),
    )


def execute(spec: RunSpec, device: Any = "cpu", executor: Callable[..., ResultRow] | None = None) -> ResultRow:
    """Run ``spec``; any exception (divergence, a missing package, bad data) becomes a failed row."""
    fn = executor or EXECUTORS[spec.suite]
    try:
        return fn(spec, device)
    except Exception as exc:  # noqa: BLE001 — a failed run must be recorded, not crash the sweep
        return failed_row(spec, exc, device)
