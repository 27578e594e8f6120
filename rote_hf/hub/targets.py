"""Registry of mirror build targets: ``rote-hf build <target> --root DIR``.

Each entry maps a target name to ``"module:function"``; the function takes the mirror root
(``Path``) and keyword ``progress: bool`` and returns a :class:`~rote_hf.hub.mirror.BuiltRepo`
or a list of them. Imports are lazy so that the CLI starts fast. Adding a dataset or metric
repo is adding one line here.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Callable

from rote_hf.registry import Registry

BUILD_TARGETS: dict[str, str] = {
    "rote-seeds": "rote_hf.hub.rote_seeds:build",
    "metrics": "rote_hf.hub.metric_repos:build",
    "cogscale": "rote_hf.hub.cogscale:build",
    "oeis-mdl": "rote_hf.hub.oeis_mdl:build",
}


#: The same entries as a :class:`~rote_hf.registry.Registry` (lazy import, known names in errors).
TARGETS: Registry[Callable[..., object]] = Registry("target")
for _name, _ref in BUILD_TARGETS.items():
    TARGETS.add(_name, _ref)


def resolve(target: str) -> Callable[..., object]:
    """The build function of ``target``; ``ValueError`` naming the allowed targets otherwise."""
    return TARGETS.get(target)


def build(target: str, root: Path, *, progress: bool = True, config: str | None = None) -> list:
    """Build one target (or ``"all"``) into the mirror at ``root``; returns the BuiltRepo list.

    ``config`` selects part of a target whose build function takes a ``config`` keyword
    (e.g. ``cogscale``); other targets refuse it.
    """
    names = sorted(BUILD_TARGETS) if target == "all" else [target]
    if config is not None and target == "all":
        raise ValueError("config can only be given with a single target, not 'all'")
    built: list = []
    for name in names:
        func = resolve(name)
        if config is not None:
            if "config" not in inspect.signature(func).parameters:
                raise ValueError(f"config is not supported by target {name!r}")
            result = func(Path(root), progress=progress, config=config)
        else:
            result = func(Path(root), progress=progress)
        built.extend(result if isinstance(result, list) else [result])
    return built
