"""Registry of mirror build targets: ``rote-hf build <target> --root DIR``.

Each entry is a lazy ``"module:function"`` in :data:`BUILD_TARGETS` (a
:class:`rote_hf.registry.Registry`); the function takes the mirror root (``Path``) and the
keywords ``progress: bool`` and ``config: str | None`` and returns a
:class:`~rote_hf.mirror.repo.BuiltRepo` or a list of them. Imports are lazy so that the CLI
starts fast. Adding a dataset or metric repo is adding one line here.
"""

from __future__ import annotations

from pathlib import Path

from rote_hf.registry import Registry

BUILD_TARGETS: Registry = Registry("target")
BUILD_TARGETS.register("rote-seeds", "rote_hf.datasets.rote_seeds:build")
BUILD_TARGETS.register("metrics", "rote_hf.hub.metric_repos:build")
BUILD_TARGETS.register("cogscale", "rote_hf.datasets.cogscale:build")
BUILD_TARGETS.register("oeis-mdl", "rote_hf.datasets.oeis_mdl:build")


def build(target: str, root: Path, *, progress: bool = True, config: str | None = None) -> list:
    """Build one target (or ``"all"``) into the mirror at ``root``; returns the BuiltRepo list.

    ``config`` selects part of a target that has parts (e.g. ``cogscale``); the other targets
    refuse it with ``ValueError``.
    """
    if target != "all" and target not in BUILD_TARGETS:
        raise ValueError(f"target must be one of {BUILD_TARGETS.names()} or 'all', got {target!r}")
    if config is not None and target == "all":
        raise ValueError("config can only be given with a single target, not 'all'")
    names = BUILD_TARGETS.names() if target == "all" else [target]
    built: list = []
    for name in names:
        result = BUILD_TARGETS.get(name)(Path(root), progress=progress, config=config)
        built.extend(result if isinstance(result, list) else [result])
    return built
