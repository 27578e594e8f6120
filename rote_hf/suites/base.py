"""What every suite unit provides, and the few pieces all of them share.

A suite (ROTE, CogScale, OEIS-LLM, or one you add) is one :class:`Suite` object registered in
:data:`rote_hf.suites.SUITES` under the name its result rows carry (``ResultRow.suite``). The
CLI, ``eval_suite/train.py``, the results tables and the leaderboard ask it; none of them
branches on a suite's name. A suite owns:

- ``parse(raw)``: its typed config section (frozen nested dataclasses, validated once) from the
  YAML mapping of a sweep config (everything but ``name``/``suite``/``description``);
- ``expand(section, config_name)``: the section -> :class:`RunSpec` list, in a fixed order;
- ``load_data(spec)`` and ``execute(spec, device)``: one run -> one ``ResultRow``;
  ``execute_many(specs, device)`` runs several (default: one at a time; a fleet executor that
  trains many runs together overrides it);
- ``headline``: its :class:`MetricSpec` (name, direction, aggregation), copied into every row
  (``score_name``/``lower_is_better``);
- ``summary(frame)`` + ``summary_columns``: the one summary table every surface prints;
- ``board(frame)``: the leaderboard table (default: the summary);
- ``dataset_builder`` / ``dataset_card``: lazy ``"module:function"`` references.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rote_hf.results.schema import config_hash, make_run_id

AGGREGATIONS = ("mean", "median", "rate")


@dataclass(frozen=True)
class MetricSpec:
    """A suite's headline metric: ``name`` (a key of ``ResultRow.metrics``), ``lower_is_better``
    and ``aggregation`` over runs (one of :data:`AGGREGATIONS`)."""

    name: str
    lower_is_better: bool
    aggregation: str = "mean"
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.lower_is_better, bool):
            raise TypeError(f"lower_is_better must be a bool, got {type(self.lower_is_better).__name__}")
        if self.aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation must be one of {AGGREGATIONS}, got {self.aggregation!r}")

    def row_fields(self, metrics: Mapping[str, Any], *, name: str | None = None) -> dict[str, Any]:
        """``score_name``/``score``/``lower_is_better`` of a row whose metrics are ``metrics``
        (``name`` overrides the metric's key, e.g. a published aggregate ``DL_mean``)."""
        key = name or self.name
        return {"score_name": key, "score": metrics.get(key), "lower_is_better": self.lower_is_better}


@dataclass(frozen=True)
class ModelEntry:
    """One entry of a config's ``models`` list: a zoo name (or ``"module:factory"``) and its
    build arguments (budget, preset, widths ...), kept exactly as written."""

    name: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"each entry of models must be a mapping with a 'name', got {self.name!r}")
        if "name" in self.kwargs:
            raise ValueError("model kwargs must not repeat 'name'")

    @classmethod
    def parse(cls, raw: Any) -> "ModelEntry":
        if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
            raise ValueError(f"each entry of models must be a mapping with a 'name', got {raw!r}")
        return cls(raw["name"], {k: v for k, v in raw.items() if k != "name"})

    def as_dict(self) -> dict[str, Any]:
        """``{"name": ..., **kwargs}``: the form hashed into run ids (unchanged since v0)."""
        return {"name": self.name, **self.kwargs}


def parse_models(raw: Any) -> tuple[ModelEntry, ...]:
    """The ``models`` list of a config as :class:`ModelEntry` objects (at least one)."""
    models = tuple(ModelEntry.parse(m) for m in (raw or ()))
    if not models:
        raise ValueError("models must list at least one model")
    return models


def parse_runs(raw: Any) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        raise ValueError(f"runs must be an integer >= 1, got {raw!r}")
    return raw


def check_keys(raw: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
    """``ValueError`` naming the allowed keys when ``raw`` has others."""
    unknown = set(raw) - set(allowed)
    if unknown:
        raise ValueError(f"{where} keys must be among {sorted(allowed)}, got unknown {sorted(unknown)}")


@dataclass(frozen=True)
class RunSpec:
    """One run: everything needed to execute it and to recognise it again.

    ``task_params``: the suite's data parameters; ``model``: ``{"name": ..., **build kwargs}``;
    ``protocol``: the protocol fields *as written in the config* (what the run id hashes);
    ``run``: init repetition (ROTE) or seed (CogScale). ``settings``: the validated protocol
    object the executor uses (``None`` when the run has no protocol, e.g. a fitted ESN); it is
    derived from ``protocol`` and so not part of the identity.
    """

    suite: str
    config_name: str
    index: int
    task: str
    task_params: Mapping[str, Any]
    model: Mapping[str, Any]
    protocol: Mapping[str, Any]
    run: int
    settings: Any = field(default=None, compare=False, repr=False)

    def identity(self) -> dict[str, Any]:
        """What defines the run (the config name and position do not)."""
        return {"suite": self.suite, "task": self.task, "task_params": dict(self.task_params),
                "model": dict(self.model), "protocol": dict(self.protocol), "run": self.run}

    @property
    def run_id(self) -> str:
        return make_run_id(self.suite, self.model["name"], self.task, self.identity())

    @property
    def config_hash(self) -> str:
        return config_hash(self.identity())


def budget_label(model: Mapping[str, Any], default: str = "") -> str:
    """The ``budget`` column of a row: a parameter budget of ``n`` parameters (int) written
    ``"<n/1000>k"`` (``"1k"``, ``"100k"``) or ``"<n/1e6>M"`` from 10**6; ``default`` otherwise."""
    budget = model.get("budget")
    if isinstance(budget, (int, float)) and not isinstance(budget, bool):
        return f"{budget / 1000:g}k" if budget < 10**6 else f"{budget / 1e6:g}M"
    return str(budget or default)


def budget_value(label: str) -> float:
    """Inverse of :func:`budget_label` for sorting (``"1k"`` -> 1000.0; ``inf`` when unparsable)."""
    import math

    mult = {"k": 1e3, "M": 1e6}.get(label[-1:], 1.0)
    try:
        return float(label[:-1] if label[-1:] in "kM" else label) * mult
    except ValueError:
        return math.inf


class Suite:
    """Base of a suite unit; subclasses set the class attributes and override the methods.

    See the module docstring for the contract. ``summary`` receives the frame of
    :func:`rote_hf.results.load` (JSON columns decoded) and must select its own rows.
    """

    name: ClassVar[str] = ""
    headline: ClassVar[MetricSpec]
    summary_columns: ClassVar[tuple[str, ...]] = ()
    #: Keys its sweep-config section may use beside ``name``, ``suite`` and ``description``.
    config_keys: ClassVar[tuple[str, ...]] = ()
    dataset_builder: ClassVar[str] = ""
    dataset_card: ClassVar[str] = ""
    description: ClassVar[str] = ""

    @property
    def protocol_name(self) -> str:
        """The ``protocol`` column of this suite's failed rows (``rote_matched`` -> ``rote``)."""
        return self.name.split("_")[0]

    def budget(self, model: Mapping[str, Any]) -> str:
        """The ``budget`` column of a row of ``model`` (a config model entry)."""
        return budget_label(model)

    def spec_columns(self, spec: RunSpec) -> dict[str, Any]:
        """Row columns known before ``spec`` runs (e.g. ``config``, ``data_seed``): its result row
        and, when it fails, its failed row carry them, so a failure is shown where the run belongs."""
        return {}

    # -- configs and runs ------------------------------------------------------------------
    def parse(self, raw: Mapping[str, Any]) -> Any:
        raise ValueError(f"suite {self.name!r} has no sweep config; {self.description}")

    def expand(self, section: Any, config_name: str) -> list[RunSpec]:
        raise ValueError(f"suite {self.name!r} has no sweep config; {self.description}")

    # -- executing -------------------------------------------------------------------------
    def protocol(self, values: Mapping[str, Any]) -> Any:
        """The validated protocol object of a config's protocol mapping."""
        raise ValueError(f"suite {self.name!r} has no training protocol")

    def protocol_of(self, spec: RunSpec) -> Any:
        """The validated protocol of ``spec``: expansion keeps it in ``settings``; else parsed again."""
        return spec.settings if spec.settings is not None else self.protocol(spec.protocol)

    def load_data(self, spec: RunSpec) -> Any:
        raise NotImplementedError(f"suite {self.name!r} loads no data for single runs")

    def execute(self, spec: RunSpec, device: Any = "cpu") -> Any:
        raise NotImplementedError(f"suite {self.name!r} has no single-run executor")

    def execute_many(self, specs: Iterable[RunSpec], device: Any = "cpu") -> Iterator[Any]:
        """Rows of ``specs`` in order. The seam for a fleet executor: the default runs one at a
        time through :meth:`execute`; a suite that trains many runs together overrides this."""
        for spec in specs:
            yield self.execute(spec, device)

    # -- showing ---------------------------------------------------------------------------
    def rows(self, frame):
        """This suite's rows of ``frame``."""
        return frame[frame["suite"] == self.name]

    def summary(self, frame):
        """The suite's summary DataFrame (default: the suite-agnostic leaderboard)."""
        from rote_hf.results.aggregate import leaderboard

        return leaderboard(self.rows(frame))

    def summary_table(self, frame, **options: Any) -> str:
        """The one plain-text summary table (CLI, ``train.py``); ``options`` go to :meth:`summary`."""
        from rote_hf.results.aggregate import format_table

        table = self.summary(frame, **options)
        cols = [c for c in self.summary_columns if c in getattr(table, "columns", ())] or None
        return format_table(table, cols)

    def board(self, frame, **filters: Any):
        """The leaderboard table (the Space); default: :meth:`summary`."""
        if filters:
            raise ValueError(f"suite {self.name!r} board takes no filters, got {sorted(filters)}")
        return self.summary(frame)

    def __repr__(self) -> str:
        return f"<suite {self.name!r}>"
