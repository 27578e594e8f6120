"""What the zoo knows about a model name (:class:`ModelSpec`) and the decorator that registers one.

A *builder* takes ``(input_size, output_size, **arch)`` and returns an ``nn.Module`` that maps
``x`` of shape (batch, time, input_size), float, to per-step outputs (batch, time, output_size).
Adding an architecture is one module in ``families/`` with one ``@register(...)`` decorator.
The families import this module; :mod:`rote_hf.zoo.registry` imports the families (so the
lookups see them all): no import circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from rote_hf.registry import Registry

Builder = Callable[..., Any]  # (input_size, output_size, **arch) -> torch.nn.Module


@dataclass(frozen=True)
class ModelSpec:
    """What the zoo knows about one registry name.

    name: registry key. family: the architecture family (several names may share one).
    source: where the core comes from ("torch.nn", "minGRU-pytorch 0.2.1", "ours", ...).
    causal: False only for models whose output at step t depends on inputs after t.
    width_key: the architecture argument that budgets and matched grids vary.
    width_min / width_step: smallest legal width and the granularity budgets search over.
    defaults: architecture arguments used when no preset is given.
    presets: preset name -> architecture arguments that preset fixes (merged over defaults).
    width_max: largest width a budget search may try.
    count: optional closed form (input_size, output_size, arch) -> trainable parameters, used to
        search budgets without building; tests check it against the built model.
    monotone: False when the count is not non-decreasing in width (budgets then scan every width).
    open_arguments: True when any keyword is an architecture argument (``hf:`` names take any config
        field; the config itself refuses what it does not accept).
    search: optional budget search ``(count, budget, fixed) -> (arch updates, count, smallest_valid)``
        replacing the one-width search (``count(updates)`` is None where the architecture refuses).
    """

    name: str
    family: str
    source: str
    causal: bool
    width_key: str
    width_min: int
    width_step: int
    defaults: Mapping[str, Any]
    presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    builder: Builder | None = None
    description: str = ""
    width_max: int = 1 << 14
    count: Callable[[int, int, Mapping[str, Any]], int] | None = None
    monotone: bool = True
    open_arguments: bool = False
    search: Callable[..., Any] | None = None


#: Prefix of the names built from an installed ``transformers`` config (``"hf:mamba2"``); those
#: specs are made on demand by :func:`rote_hf.zoo.families.hf.hf_spec`, not registered.
HF_PREFIX = "hf:"


def is_hf_name(name: object) -> bool:
    """True for ``"hf:<model_type>"`` names (built from a ``transformers`` config)."""
    return isinstance(name, str) and name.startswith(HF_PREFIX)


#: Model name -> :class:`ModelSpec` (filled by the family modules' decorators).
MODELS: Registry[ModelSpec] = Registry("model name")


def register(
    name: str,
    *,
    family: str,
    source: str,
    width_key: str,
    defaults: Mapping[str, Any],
    presets: Mapping[str, Mapping[str, Any]] | None = None,
    causal: bool = True,
    width_min: int = 1,
    width_step: int = 1,
    width_max: int = 1 << 14,
    count: Callable[[int, int, Mapping[str, Any]], int] | None = None,
    monotone: bool = True,
    description: str = "",
) -> Callable[[Builder], Builder]:
    """Decorator: register ``builder`` under ``name`` (names are unique)."""

    def deco(builder: Builder) -> Builder:
        MODELS.add(name, ModelSpec(
            name=name,
            family=family,
            source=source,
            causal=causal,
            width_key=width_key,
            width_min=width_min,
            width_step=width_step,
            defaults=dict(defaults),
            presets={k: dict(v) for k, v in (presets or {}).items()},
            builder=builder,
            description=description or (builder.__doc__ or "").strip().split("\n")[0],
            width_max=width_max,
            count=count,
            monotone=monotone,
        ))
        return builder

    return deco
