"""The model names a sweep config may use, checked when a suite parses its section.

Asking the zoo for its names (:func:`rote_hf.zoo.registry.names`) imports the model families,
and so torch, at call time: only parsing a sweep config does it, never the leaderboard Space.
"""

from __future__ import annotations

from collections.abc import Iterable

from rote_hf.registry import resolve_object
from rote_hf.suites.base import ModelEntry
from rote_hf.zoo.registry import get_spec, names
from rote_hf.zoo.spec import is_hf_name


def check_zoo_models(models: Iterable[ModelEntry]) -> None:
    """Refuse, before any run starts, a model entry whose name is neither a zoo name
    (:func:`rote_hf.zoo.names`, or ``"hf:<model_type>"`` of a transformers decoder) nor a
    ``"module:factory"`` that imports: ``ValueError`` naming
    ``models[i].name`` and listing the zoo names (otherwise every run of it would be stored as failed)."""
    known = names()
    for i, model in enumerate(models):
        if is_hf_name(model.name):  # "hf:<model_type>": a decoder of the installed transformers
            try:
                get_spec(model.name)
            except ValueError as exc:
                raise ValueError(f"models[{i}].name: {exc}") from None
            continue
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
