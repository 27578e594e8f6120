"""What every suite's executor shares: the model builder of a config's model entry (a zoo name
or a user's ``"module:factory"``) and the provenance columns of a row."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from rote_hf.registry import resolve_object
from rote_hf.results.provenance import git_commit, package_version, utc_timestamp
from rote_hf.suites.base import RunSpec
from rote_hf.zoo import build_model
from rote_hf.zoo.spec import is_hf_name


def model_builder(model: Mapping[str, Any], input_size: int, output_size: int) -> Callable[[], Any]:
    """A zero-argument builder for the model entry ``{"name": ..., **kwargs}`` of a config.

    A name written ``"hf:<model_type>"`` is a zoo model built from a transformers config; any other
    name written ``"module:factory"`` is a user model: ``factory(input_size=..., output_size=..., **kwargs)``.
    """
    kwargs = {k: v for k, v in model.items() if k != "name"}
    name = model["name"]
    if ":" in name and not is_hf_name(name):
        factory = resolve_object(name)
        return lambda: factory(input_size=input_size, output_size=output_size, **kwargs)

    def build():
        return build_model(name, input_size=input_size, output_size=output_size, **kwargs)

    return build


def provenance(spec: RunSpec, fingerprint: str) -> dict[str, Any]:
    """The provenance columns of a row of ``spec`` (version, commit, fingerprint, config, time)."""
    return {"package_version": package_version(), "git_commit": git_commit(), "dataset_fingerprint": fingerprint,
            "config_name": spec.config_name, "config_hash": spec.config_hash, "timestamp": utc_timestamp()}


__all__ = ["model_builder", "provenance"]
