"""The architecture registry: model name -> :class:`~rote_hf.zoo.spec.ModelSpec`.

The entries are registered by the family modules (``rote_hf.zoo.families``) through
:func:`rote_hf.zoo.spec.register`; the lookups here import the families first, so every name
is known whichever module asked.
"""

from __future__ import annotations

from .spec import MODELS, ModelSpec, is_hf_name, register


def _load_families() -> None:
    # Import for the side effect of registration (families import torch lazily where optional).
    from . import families  # noqa: F401


def names() -> tuple[str, ...]:
    """All registry names, sorted."""
    _load_families()
    return tuple(MODELS.names())


def get_spec(name: str) -> ModelSpec:
    """The ``ModelSpec`` of ``name``; ValueError listing the allowed names otherwise.

    ``"hf:<model_type>"`` names any decoder of the installed ``transformers``
    (:func:`rote_hf.zoo.families.hf.hf_spec`; ValueError listing close matches, or saying why
    the type is not a decoder)."""
    _load_families()
    if is_hf_name(name):
        from .families.hf import hf_spec  # lazy: imports torch (and transformers on use)

        return hf_spec(name)
    return MODELS.get(name)


__all__ = ["MODELS", "ModelSpec", "get_spec", "names", "register"]
