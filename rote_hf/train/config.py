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

import functools

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from rote_hf.results.aggregate import REPRODUCTION_MODEL_NAMES, cogscale_table
from rote_hf.results.published import cogscale_run_rows
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
        """The config in the YAML file ``path``; a YAML syntax error is a ``ValueError`` naming the
        file, line and column (one line, as the command line prints it)."""
        import yaml

        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"config file not found: {path}")
        try:
            raw = yaml.safe_load(path.read_text())
        except yaml.YAMLError as exc:
            raise ValueError(yaml_error_line(path, exc)) from None
        return cls.from_dict(raw)


def yaml_error_line(path: Path, exc: Exception) -> str:
    """``exc`` (a ``yaml.YAMLError``) of file ``path`` as one line: ``<path>:<line>:<column>: ...``
    (1-based, as editors count), or the file and the error's text when it carries no position."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
    return " ".join(f"invalid YAML in --config {where}: {problem}".split())


def expand(config: SweepConfig) -> list[RunSpec]:
    """All runs of ``config`` in the suite's loop order, indexed 0..len-1."""
    return get_suite(config.suite).expand(config.section, config.name)


def describe(specs: list[RunSpec]) -> str:
    """A one-line summary for logs: run count and the canonical hash of the whole list."""
    return f"{len(specs)} runs (sweep {config_hash([s.identity() for s in specs])})"


__all__ = ["RunSpec", "SweepConfig", "expand", "describe", "canonical_json"]


SELECT_FIELDS = ("task", "model", "budget", "difficulty", "run", "lr", "seed")
"""Fields that :func:`select` (``train.py --only``) filters on."""
PUBLISHED_LR = "published"
"""``--only lr=published``: in each CogScale cell, the learning rate the published table chose."""


def spec_field(spec: RunSpec, field_name: str) -> str:
    """The value of ``field_name`` (one of :data:`SELECT_FIELDS`) of ``spec``, as text
    (``budget``: ``"1k"``, ``"10k"``, ...; ``difficulty``: ``""`` when the suite has none; ``seed``:
    the run's data seed, ``"0"``, ``"1"``, ...)."""
    if field_name == "task":
        return spec.task
    if field_name == "model":
        return str(spec.model["name"])
    if field_name == "budget":
        return get_suite(spec.suite).budget(spec.model)  # as the row's budget column writes it
    if field_name == "difficulty":
        return str(spec.task_params.get("difficulty", ""))
    if field_name == "run":
        return str(spec.run)
    if field_name == "lr":
        lr = spec.protocol.get("learning_rate")
        return "" if lr is None else format(float(lr), "g")
    if field_name == "seed":  # the data seed: CogScale's seed, ROTE's seed index (s0, s1)
        return str(get_suite(spec.suite).spec_columns(spec)["data_seed"])
    raise ValueError(f"field must be one of {', '.join(SELECT_FIELDS)}, got {field_name!r}")


def select(specs: list[RunSpec], only: list[str]) -> list[RunSpec]:
    """The runs of ``specs`` that pass every filter of ``only`` (order kept; run ids unchanged).

    Each filter is ``FIELD=VALUE[,VALUE...]`` with FIELD one of :data:`SELECT_FIELDS`, e.g.
    ``["difficulty=small", "model=gru,lstm"]``. A malformed filter, an unknown field or a value no
    run has raises ``ValueError`` naming ``--only`` and the allowed fields or values.
    """
    kept = list(specs)
    for text in only:
        field_name, sep, values = text.partition("=")
        if not sep or not values or field_name not in SELECT_FIELDS:
            raise ValueError(f"--only must be FIELD=VALUE[,VALUE...] with FIELD one of {', '.join(SELECT_FIELDS)}, "
                             f"got {text!r}")
        wanted = [v.strip() for v in values.split(",") if v.strip()]
        if field_name == "lr":  # 1e-2 and 0.01 name one learning rate
            wanted = [v if v == PUBLISHED_LR else _lr_text(v) for v in wanted]
        present = sorted({spec_field(s, field_name) for s in specs})
        unknown = [v for v in wanted if v not in present and v != PUBLISHED_LR]
        if unknown:
            raise ValueError(f"--only {field_name}: no run of this config has {', '.join(map(repr, unknown))}; "
                             f"its values: {', '.join(present)}" + (f" (or {PUBLISHED_LR})" if field_name == "lr" else ""))
        chosen = published_lrs() if PUBLISHED_LR in wanted else {}
        kept = [s for s in kept if spec_field(s, field_name) in wanted
                or (PUBLISHED_LR in wanted and chosen.get(_cell(s)) == spec_field(s, "lr"))]
    return kept


def _lr_text(value: str) -> str:
    try:
        return format(float(value), "g")
    except ValueError:
        raise ValueError(f"--only lr: learning rates are numbers (e.g. 1e-3) or {PUBLISHED_LR!r}, got {value!r}") from None


def _cell(spec: RunSpec) -> tuple[str, str, str, str]:
    """(model, task, difficulty, budget) of a CogScale run, the model by its published name."""
    name = str(spec.model["name"])
    return (REPRODUCTION_MODEL_NAMES.get(name, name), spec.task, spec_field(spec, "difficulty"), spec_field(spec, "budget"))


@functools.lru_cache(maxsize=1)
def published_lrs() -> dict[tuple[str, str, str, str], str]:
    """(model, task, difficulty, budget) -> the learning rate (as :func:`spec_field` writes it) that
    CogScale's published table chose for that cell: the lowest mean test score over seeds, rounded
    to 2 dp as published (:func:`rote_hf.results.aggregate.cogscale_table` with ``lr_selection="test"``)."""
    from rote_hf.results import rows_to_frame  # lazy: imports pandas

    table = cogscale_table(rows_to_frame(cogscale_run_rows()), lr_selection="test", source="paper")
    return {(REPRODUCTION_MODEL_NAMES.get(r.model, r.model), r.task, r.difficulty, r.budget): format(r.learning_rate, "g")
            for r in table.itertuples() if r.learning_rate is not None and r.learning_rate == r.learning_rate}
