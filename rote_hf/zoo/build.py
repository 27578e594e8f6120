"""``build_model``: registry name + preset/budget/overrides -> a built ``nn.Module`` with its
``BuildInfo`` attached (``model_info(model)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from .budget import (
    REFERENCE_WIDTH_RULES,
    ROTE_MATCHED_GRIDS,
    architecture_count,
    check_tolerance,
    count_parameters,
    matched_width,
    search_width,
)
from .registry import get_spec

PRESETS = ("rote-paper", "rote-matched", "cogscale", "cogscale-paper")
_INTERNAL = ("_width_step",)


@dataclass(frozen=True)
class BuildInfo:
    """How a model was built. ``n_params`` is the honest trainable count of the built model;
    ``budget`` / ``target`` are what was asked for (None when not applicable)."""

    name: str
    preset: str | None
    budget: int | None
    target: float | None
    arch: Mapping[str, Any]
    n_params: int
    causal: bool
    source: str
    input_size: int
    output_size: int

    @property
    def relative_error(self) -> float | None:
        """(n_params - budget_or_target) / budget_or_target, or None."""
        goal = self.budget if self.budget is not None else self.target
        return None if goal is None else (self.n_params - goal) / goal


def _positive_int(value: Any, arg: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{arg} must be an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{arg} must be >= 1, got {value}")
    return value


def build_model(
    name: str,
    *,
    input_size: int,
    output_size: int,
    preset: str | None = None,
    budget: int | None = None,
    seed: int | None = None,
    target_m: float | None = None,
    **widths: Any,
):
    """Build registry model ``name``: x (batch, time, input_size) float -> (batch, time, output_size).

    preset: None (the family's defaults), "rote-paper" (the ROTE reference's exact sizes),
        "rote-matched" (ROTE matched-size grid selection, ``target_m`` million parameters, default 0.2),
        "cogscale" (CogScale baseline architecture; ``budget`` matched honestly, refused beyond +-10%),
        "cogscale-paper" (CogScale baseline architecture with the reference's width rule for ``budget``).
    budget: total trainable parameters to match by searching the family's width (preset None or
        "cogscale"), or the reference's budget label (preset "cogscale-paper").
    seed: if given, the model is initialised under ``torch.manual_seed(seed)`` inside a forked RNG,
        so the caller's global RNG state is untouched (also seeds the ESN reservoir unless
        ``reservoir_seed`` is given).
    widths: overrides of the architecture arguments (``get_spec(name).defaults`` lists them).
    """
    import torch

    spec = get_spec(name)
    input_size = _positive_int(input_size, "input_size")
    output_size = _positive_int(output_size, "output_size")
    if preset is not None and preset not in spec.presets:
        raise ValueError(f"preset for {name!r} must be None or one of {sorted(spec.presets)}, got {preset!r}")
    arch = {**spec.defaults, **spec.presets.get(preset, {})}
    width_step = int(arch.get("_width_step", spec.width_step))
    for key in _INTERNAL:
        arch.pop(key, None)
    unknown = sorted(set(widths) - set(spec.defaults))
    if unknown:
        raise TypeError(f"unknown argument(s) {unknown} for {name!r}; allowed: {sorted(spec.defaults)}")
    if seed is not None and "reservoir_seed" in arch and "reservoir_seed" not in widths:
        arch["reservoir_seed"] = seed
    arch.update(widths)

    key = spec.width_key
    target = None
    if preset == "rote-matched":
        if budget is not None or key in widths:
            raise ValueError(f"preset 'rote-matched' chooses {key} itself; do not pass budget or {key}")
        target = 0.2e6 if target_m is None else float(target_m) * 1e6
        if target <= 0:
            raise ValueError(f"target_m must be > 0, got {target_m}")
        width, _ = matched_width(
            lambda w: architecture_count(spec, input_size, output_size, {**arch, key: w}),
            ROTE_MATCHED_GRIDS[key],
            target,
        )
        arch[key] = width
    elif target_m is not None:
        raise ValueError("target_m is only used with preset='rote-matched'")
    if preset in ("cogscale", "cogscale-paper") and budget is None:
        raise ValueError(f"preset {preset!r} needs budget= (e.g. 1000, 10000, 100000)")
    if budget is not None:
        budget = _positive_int(budget, "budget")
        if preset in ("rote-paper", "rote-matched"):
            raise ValueError(f"budget cannot be combined with preset {preset!r} (it fixes the widths)")
        if key in widths:
            raise ValueError(f"pass either budget or {key}, not both")

        def count(w: int) -> int:
            return architecture_count(spec, input_size, output_size, {**arch, key: w})

        if preset == "cogscale-paper":
            arch[key] = REFERENCE_WIDTH_RULES[name](input_size, output_size, budget, arch, count)
        else:
            width, achieved = search_width(
                count, budget, width_min=spec.width_min, width_step=width_step, width_max=spec.width_max
            )
            check_tolerance(name, budget, achieved, key, width)
            arch[key] = width

    if seed is None:
        model = spec.builder(input_size, output_size, **arch)
    else:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model = spec.builder(input_size, output_size, **arch)
    model.zoo_info = BuildInfo(
        name=name, preset=preset, budget=budget, target=target, arch=MappingProxyType(dict(arch)),
        n_params=count_parameters(model), causal=bool(getattr(model, "causal", spec.causal)), source=spec.source,
        input_size=input_size, output_size=output_size,
    )
    return model


def model_info(model) -> BuildInfo:
    """The ``BuildInfo`` that ``build_model`` attached; TypeError for a model built elsewhere."""
    info = getattr(model, "zoo_info", None)
    if not isinstance(info, BuildInfo):
        raise TypeError("model must come from rote_hf.zoo.build_model (it carries no zoo_info)")
    return info
