"""Sweep configs (YAML) and their expansion into runs, whatever the suite.

A YAML file maps 1:1 onto :class:`SweepConfig`: ``name``, ``suite``, an optional
``description``, and the suite's own section (the other keys), parsed once by the suite unit
(:mod:`rote_hf.suites`) into its typed, frozen config object. :func:`expand` asks the suite for
the deterministic list of :class:`RunSpec` (one per fit), each with a run id that hashes
everything defining the run, so a resumed sweep recognises finished runs whatever process ran
them. The section layouts are documented in :mod:`rote_hf.suites.rote` and
:mod:`rote_hf.suites.cogscale`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from rote_hf.results.schema import canonical_json, config_hash
from rote_hf.suites import get_suite
from rote_hf.suites.base import RunSpec

COMMON_KEYS = ("name", "suite", "description")


@dataclass(frozen=True)
class SweepConfig:
    """A parsed sweep config: ``section`` is the suite's typed config object."""

    name: str
    suite: str
    section: Any
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        get_suite(self.suite)  # ValueError listing the registered suites

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "SweepConfig":
        if not isinstance(raw, Mapping):
            raise TypeError(f"config must be a mapping, got {type(raw).__name__}")
        name = raw.get("name", "")
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a non-empty string, got {name!r}")
        unit = get_suite(raw.get("suite", ""))
        allowed = (*COMMON_KEYS, *unit.config_keys)
        unknown = set(raw) - set(allowed)
        if unknown:
            raise ValueError(f"config keys must be among {sorted(allowed)}, got unknown {sorted(unknown)}")
        section = unit.parse({k: v for k, v in raw.items() if k not in COMMON_KEYS})
        return cls(name=name, suite=unit.name, section=section, description=raw.get("description", ""))

    @classmethod
    def from_yaml(cls, path: str | Path) -> "SweepConfig":
        import yaml

        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"config file not found: {path}")
        return cls.from_dict(yaml.safe_load(path.read_text()))


def expand(config: SweepConfig) -> list[RunSpec]:
    """All runs of ``config`` in the suite's loop order, indexed 0..len-1."""
    return get_suite(config.suite).expand(config.section, config.name)


def describe(specs: list[RunSpec]) -> str:
    """A one-line summary for logs: run count and the canonical hash of the whole list."""
    return f"{len(specs)} runs (sweep {config_hash([s.identity() for s in specs])})"


__all__ = ["RunSpec", "SweepConfig", "expand", "describe", "canonical_json"]
