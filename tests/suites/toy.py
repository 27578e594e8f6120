"""A fourth suite that lives only in the tests folder: "guess the number".

Each run asks a "model" (a constant guess, or ``tests.suites.toy:half`` = value / 2) for a
target value and scores the absolute error. Nothing of the package knows it: registering it is
``SUITES.register("toy", "tests.suites.toy:TOY")``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rote_hf.results.schema import ResultRow
from rote_hf.suites import MetricSpec, ModelEntry, RunSpec, Suite
from rote_hf.suites.base import parse_models, parse_runs


@dataclass(frozen=True)
class ToySection:
    values: tuple[float, ...]
    models: tuple[ModelEntry, ...]
    runs: int = 1

    def __post_init__(self) -> None:
        if not self.values:
            raise ValueError("data.values must be a non-empty list for suite 'toy'")


def half(value: float) -> float:
    return value / 2


class ToySuite(Suite):
    name = "toy"
    headline = MetricSpec("abs_error", lower_is_better=True, aggregation="mean")
    summary_columns = ("model", "runs", "abs_error_mean")
    config_keys = ("data", "models", "runs")
    dataset_builder = "tests.suites.toy:half"
    dataset_card = "tests.suites.toy:__doc__"

    def parse(self, raw):
        return ToySection(tuple(float(v) for v in (raw.get("data") or {}).get("values", ())),
                          parse_models(raw.get("models")), parse_runs(raw.get("runs", 1)))

    def expand(self, section: ToySection, config_name: str) -> list[RunSpec]:
        specs = []
        for value in section.values:
            for model in section.models:
                for run in range(section.runs):
                    specs.append(RunSpec(self.name, config_name, len(specs), f"v{value:g}", {"value": value},
                                         model.as_dict(), {}, run))
        return specs

    def load_data(self, spec: RunSpec) -> float:
        return float(spec.task_params["value"])

    def execute(self, spec: RunSpec, device: Any = "cpu") -> ResultRow:
        from rote_hf.registry import resolve_object

        value = self.load_data(spec)
        name = spec.model["name"]
        if name == "crash":
            raise RuntimeError("the toy model crashed")
        guess = resolve_object(name)(value) if ":" in name else float(spec.model.get("guess", 0.0))
        metrics = {"abs_error": abs(guess - value)}
        return ResultRow(run_id=spec.run_id, suite=self.name, task=spec.task, model=name,
                         task_params=dict(spec.task_params), run=spec.run, protocol="toy", metrics=metrics,
                         model_config={k: v for k, v in spec.model.items() if k != "name"},
                         config_name=spec.config_name, config_hash=spec.config_hash, device=str(device),
                         **self.headline.row_fields(metrics))

    def summary(self, frame):
        import pandas as pd

        rows = self.rows(frame)
        rows = rows[rows["status"] == "ok"]
        out = [{"model": m, "runs": len(g), "abs_error_mean": float(g["score"].mean())}
               for m, g in rows.groupby("model", sort=True)]
        return pd.DataFrame(out, columns=list(self.summary_columns))


TOY = ToySuite()
