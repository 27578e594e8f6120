"""The ESN of cogscale_paper as CogScale's run.py builds it: the per-task hyper-parameters of its
esn_hp_report.md (shipped verbatim) and N = budget / 10 units."""

from __future__ import annotations

import hashlib

import pytest

from rote_hf.results.published import DATA_DIR, cogscale_esn_hyperparameters, cogscale_esn_hyperparameters_for
from rote_hf.suites import get_suite
from rote_hf.train.config import SweepConfig, expand

TASKS = ["sinus_forecasting", "chaotic_forecasting", "discrete_postcasting", "continuous_postcasting", "simple_copy",
         "selective_copy", "associative_recall", "discrete_pattern_completion", "continuous_pattern_completion",
         "induction_heads", "adding_problem", "sorting_problem", "bracket_matching", "cross_situation"]


def test_the_report_is_the_references_file_and_parses_to_56_entries():
    report = DATA_DIR / "cogscale_esn_hp_report.md"
    assert hashlib.sha256(report.read_bytes()).hexdigest() == \
        "b45c78c13922a79bfad4b8553b1bc4dfc5b9333c70dcb8a3612d754384f37ebf"  # cogscale 0.1.1 and 0.2.0 sdists
    table = cogscale_esn_hyperparameters()
    assert sorted(table) == sorted(f"{t}.{d}.N{n}" for t in TASKS for d in ("small", "medium") for n in (100, 1000))
    assert table["simple_copy.small.N1000"] == {"leak_rate": 1.0, "spectral_radius": 1.0505357991755335,
                                                "input_scaling": 0.041566237312609104}
    assert table["associative_recall.small.N1000"]["spectral_radius"] == 63.36373538619895
    with pytest.raises(ValueError, match="no entry 'simple_copy.large.N1000'"):
        cogscale_esn_hyperparameters_for("simple_copy", "large", 1000)


def _section(model: dict):
    return {"data": {"tasks": ["adding_problem"], "difficulties": ["small"], "seeds": [0]}, "models": [model],
            "learning_rates": [1e-3]}


@pytest.mark.parametrize("model, message", [
    ({"name": "esn", "preset": "cogscale-paper", "budget": 1000, "hyperparameters": "tuned"},
     r"hyperparameters is for the ESN and must be one of \['published'\], got 'tuned'"),
    ({"name": "gru", "preset": "cogscale-paper", "budget": 1000, "hyperparameters": "published"},
     "hyperparameters is for the ESN"),
    ({"name": "esn", "preset": "cogscale-paper", "budget": 1000, "hyperparameters": "published",
      "search": {"trials": 2}}, "either hyperparameters or search"),
])
def test_bad_hyperparameter_entries_are_refused(model, message):
    with pytest.raises(ValueError, match=message):
        get_suite("cogscale").parse(_section(model))


def test_a_run_uses_the_reports_values_for_its_task_difficulty_and_size():
    suite = get_suite("cogscale")
    config = SweepConfig.from_dict({"name": "esn_published", "suite": "cogscale", **_section(
        {"name": "esn", "preset": "cogscale-paper", "budget": 1000, "hyperparameters": "published"})})
    (spec,) = expand(config)
    row = suite.execute(spec)
    assert row.settings["published_hyperparameters"] == cogscale_esn_hyperparameters()["adding_problem.small.N100"]
    assert row.param_count == 101 * 5  # N = 100 units, (N + 1) * O readout
    assert row.model_config["hyperparameters"] == "published" and 0.0 <= row.metrics["test_score"] <= 1.0


def test_the_paper_config_runs_the_papers_esn():
    """Every ESN run of cogscale_paper uses the report, and CogScale's "1k" and "10k" ESNs have
    N = budget / 10 = 100 and 1000 units whatever the task's output size (cogscale.md §10); sized by
    our own count, a one-output 10k reservoir had 9,999 units."""
    from rote_hf.zoo.build import resolve_arch

    specs = expand(SweepConfig.from_yaml(DATA_DIR.parents[2] / "eval_suite" / "configs" / "cogscale_paper.yaml"))
    esn = [s for s in specs if s.model["name"] == "esn"]
    assert len(esn) == 560 and {s.model.get("hyperparameters") for s in esn} == {"published"}
    assert not any("search" in s.model for s in esn)
    assert {s.model["preset"] for s in esn} == {"cogscale-paper"}
    for budget, units in ((1000, 100), (10000, 1000)):
        for output_size in (1, 3, 18):
            arch = resolve_arch("esn", input_size=2, output_size=output_size, preset="cogscale-paper", budget=budget).arch
            assert arch["units"] == units
