"""The model names a sweep config may use, checked when a suite parses its section.

Kept out of :mod:`rote_hf.suites.base`, which the leaderboard Space carries: asking the zoo for
its names imports the model families (torch), which the Space does not install.
"""

from __future__ import annotations

from collections.abc import Iterable

from rote_hf.registry import resolve_object
from rote_hf.suites.base import ModelEntry


def check_zoo_models(models: Iterable[ModelEntry]) -> None:
    """Refuse, before any run starts, a model entry whose name is neither a zoo name
    (:func:`rote_hf.zoo.names`) nor a ``"module:factory"`` that imports: ``ValueError`` naming
    ``models[i].name`` and listing the zoo names (otherwise every run of it would be stored as failed)."""
    from rote_hf.zoo.registry import names

    known = names()
    for i, model in enumerate(models):
        if ":" not in model.name:
            if model.name not in known:
                raise ValueError(f"models[{i}].name must be a zoo model ({', '.join(known)}) or 'module:factory', "
                                 f"got {model.name!r}")
            continue
        try:
            resolve_object(model.name)
        except (ImportError, AttributeError, ValueError) as exc:
            raise ValueError(f"models[{i}].name {model.name!r} must be a zoo model ({', '.join(known)}) or an "
                             f"importable 'module:factory': {exc}") from None
