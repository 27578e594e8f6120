"""``build_model``: registry name + preset/budget/overrides -> a built ``nn.Module`` with its
``BuildInfo`` attached (``model_info(model)``).
"""

from __future__ import annotations

from dataclasses import dataclass
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

MODEL_PRESETS = ("rote-paper", "rote-matched", "cogscale", "cogscale-paper")
_INTERNAL = ("_width_step",)


class ReadOnlyDict(dict):
    """A dict that refuses mutation but still copies and pickles (a mappingproxy does not)."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("the architecture of a built model is read-only")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]

    def __reduce__(self):
        return (ReadOnlyDict, (dict(self),))


@dataclass(frozen=True)
class BuildInfo:
    """How a model was built. ``n_params`` is the honest trainable count of the built model;
    ``n_fixed`` counts what is stored but not trained (buffers such as the ESN reservoir or the
    Performer random features, and frozen parameters); ``budget`` / ``target`` are what was asked
    for (None when not applicable)."""

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
    n_fixed: int = 0

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


def _budget_int(value: Any) -> int:
    """A parameter budget: an int, or its label as the result rows write it (``"10k"``, ``"1M"``)."""
    if isinstance(value, str):
        text = value.strip()
        scale = {"k": 1000, "M": 1_000_000}.get(text[-1:], 1)
        number = text[:-1] if scale > 1 else text
        if not number.isdigit():
            raise ValueError(f"budget must be a positive int or a label such as '10k' or '1M', got {value!r}")
        value = int(number) * scale
    return _positive_int(value, "budget")


@dataclass(frozen=True)
class Resolution:
    """The architecture ``build_model`` would build, without building it."""

    name: str
    preset: str | None
    budget: int | None
    target: float | None
    arch: Mapping[str, Any]
    expected_params: int


def resolve_arch(
    name: str,
    *,
    input_size: int,
    output_size: int,
    preset: str | None = None,
    budget: int | None = None,
    seed: int | None = None,
    target_m: float | None = None,
    **widths: Any,
) -> Resolution:
    """Apply preset, budget search / reference rule / matched grid and overrides; build nothing
    (counts come from closed forms or meta-device builds). Arguments as ``build_model``."""
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
    if unknown and not spec.open_arguments:
        raise TypeError(f"unknown argument(s) {unknown} for {name!r}; allowed: {sorted(spec.defaults)}")
    if seed is not None and "reservoir_seed" in arch and "reservoir_seed" not in widths:
        arch["reservoir_seed"] = seed
    arch.update(widths)

    key = spec.width_key

    def count(w: int) -> int:
        return architecture_count(spec, input_size, output_size, {**arch, key: w})

    refusals: list[ValueError] = []

    def count_or_none_arch(updates: Mapping[str, Any]) -> int | None:
        """The count with ``updates`` applied, or None where the architecture refuses them."""
        try:
            return architecture_count(spec, input_size, output_size, {**arch, **updates})
        except ValueError as exc:
            refusals.append(exc)
            return None

    target = None
    if preset == "rote-matched":
        if budget is not None or key in widths:
            raise ValueError(f"preset 'rote-matched' chooses {key} itself; do not pass budget or {key}")
        target = 0.2e6 if target_m is None else float(target_m) * 1e6
        if target <= 0:
            raise ValueError(f"target_m must be > 0, got {target_m}")
        arch[key], _ = matched_width(count, ROTE_MATCHED_GRIDS[key], target)
    elif target_m is not None:
        raise ValueError("target_m is only used with preset='rote-matched'")
    if preset in ("cogscale", "cogscale-paper") and budget is None and key not in widths:
        raise ValueError(f"preset {preset!r} needs budget= (e.g. 1000, 10000, 100000) or {key}=")
    if budget is not None:
        budget = _budget_int(budget)
        if preset in ("rote-paper", "rote-matched"):
            raise ValueError(f"budget cannot be combined with preset {preset!r} (it fixes the widths)")
        if key in widths:
            raise ValueError(f"pass either budget or {key}, not both")
        if preset == "cogscale-paper":
            width = REFERENCE_WIDTH_RULES[name](input_size, output_size, budget, arch, count)
            if width > spec.width_max:  # e.g. a "100k" ESN = 10,000 dense units, which CogScale never ran
                raise ValueError(
                    f"budget={budget} gives {key}={width} for {name!r}, above its limit {spec.width_max}"
                )
            arch[key] = width
        elif spec.search is not None:
            if key in widths:
                raise ValueError(f"pass either budget or {key}, not both")
            try:
                chosen, achieved, smallest = spec.search(count_or_none_arch, budget, dict(widths))
            except ValueError:
                if refusals:  # nothing builds: the type's own error at its smallest size
                    raise refusals[0] from None
                raise
            check_tolerance(name, budget, achieved, key, chosen[key], smallest=smallest)
            arch.update(chosen)
        else:
            width, achieved = search_width(
                count, budget, width_min=spec.width_min, width_step=width_step, width_max=spec.width_max,
                monotone=spec.monotone,
            )
            check_tolerance(name, budget, achieved, key, width, smallest=achieved > budget and width == spec.width_min)
            arch[key] = width
    return Resolution(name=name, preset=preset, budget=budget, target=target,
                      arch=ReadOnlyDict(arch), expected_params=count(arch[key]))


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
    Raises ValueError/TypeError naming the argument for bad input, and ValueError for a budget that
    cannot be met within +-10%.
    """
    import torch

    res = resolve_arch(name, input_size=input_size, output_size=output_size, preset=preset, budget=budget,
                       seed=seed, target_m=target_m, **widths)
    spec = get_spec(name)
    if seed is None:
        model = spec.builder(input_size, output_size, **res.arch)
    else:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model = spec.builder(input_size, output_size, **res.arch)
    model.zoo_info = BuildInfo(
        name=name, preset=preset, budget=res.budget, target=res.target, arch=res.arch,
        n_params=count_parameters(model), causal=bool(getattr(model, "causal", spec.causal)),
        source=spec.source, input_size=input_size, output_size=output_size,
        n_fixed=int(sum(b.numel() for b in model.buffers())
                    + sum(p.numel() for p in model.parameters() if not p.requires_grad)),
    )
    return model


def model_info(model) -> BuildInfo:
    """The ``BuildInfo`` that ``build_model`` attached; TypeError for a model built elsewhere."""
    info = getattr(model, "zoo_info", None)
    if not isinstance(info, BuildInfo):
        raise TypeError("model must come from rote_hf.zoo.build_model (it carries no zoo_info)")
    return info
