"""The shipped suite units: registry, typed config sections validated once, headline metric specs
that agree with every row the package writes, summary tables, lazy builder references."""

from __future__ import annotations

import math
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from rote_hf.registry import Registry, resolve_object
from rote_hf.suites import SUITES, MetricSpec, get_suite
from rote_hf.suites import budget_label, budget_value
from rote_hf.train.config import SweepConfig, expand

CONFIGS = Path(__file__).resolve().parents[2] / "eval_suite" / "configs"


def test_the_registry_holds_the_three_suites():
    assert {"rote", "rote_matched", "cogscale", "mdl"} <= set(SUITES.names())
    assert [get_suite(n).name for n in ("rote", "rote_matched", "cogscale", "mdl")] == [
        "rote", "rote_matched", "cogscale", "mdl"]
    with pytest.raises(ValueError, match=r"suite must be one of \[.*'cogscale'.*\], got 'cogscal'"):
        get_suite("cogscal")
    with pytest.raises(ValueError, match="suite 'rote' is already registered"):
        SUITES.register("rote", "rote_hf.suites.rote:ROTE")


def test_headline_specs_and_their_validation():
    heads = {n: get_suite(n).headline for n in ("rote", "rote_matched", "cogscale", "mdl")}
    assert {n: (h.name, h.lower_is_better, h.aggregation) for n, h in heads.items()} == {
        "rote": ("DL", True, "mean"), "rote_matched": ("DL", True, "mean"),
        "cogscale": ("test_score", True, "mean"), "mdl": ("accuracy", False, "rate")}
    assert heads["rote"].row_fields({"DL": 0.25}) == {"score_name": "DL", "score": 0.25, "lower_is_better": True}
    with pytest.raises(ValueError, match="aggregation must be one of"):
        MetricSpec("x", lower_is_better=True, aggregation="max")
    with pytest.raises(TypeError, match="lower_is_better must be a bool"):
        MetricSpec("x", lower_is_better=1)


def test_every_published_row_agrees_with_its_suites_metric_spec():
    from rote_hf.results.published import paper_rows

    rows = paper_rows()
    assert len(rows) > 1000
    for row in rows:
        unit = get_suite(row.suite)
        fallback = getattr(unit, "fallback", None)
        spec = fallback if fallback is not None and row.score_name.startswith(fallback.name) else unit.headline
        assert row.lower_is_better is spec.lower_is_better, row.run_id
        assert row.score_name.startswith(spec.name), row.run_id


def test_config_sections_are_typed_frozen_and_validated_once():
    rote = SweepConfig.from_yaml(CONFIGS / "rote_paper.yaml")
    section = rote.section
    assert type(section).__name__ == "RoteSection" and section.runs == 2
    assert section.data.seeds.symbols == (2, 4, 6, 8) and section.data.window == 100
    assert section.protocol.learning_rate == 3e-4 and section.protocol.base_seed == 3407
    with pytest.raises(FrozenInstanceError):
        section.runs = 3
    specs = expand(rote)
    # the validated protocol object travels with every run: no dict -> object rebuild
    assert all(s.settings is section.protocol for s in specs)
    assert specs[0].protocol == dict(section.protocol_given)

    cog = SweepConfig.from_yaml(CONFIGS / "cogscale_smoke.yaml")
    specs = expand(cog)
    by_lr = {s.protocol.get("learning_rate"): s.settings for s in specs}
    assert by_lr[None] is None  # the ESN runs without a protocol
    assert by_lr[1e-2].learning_rate == 1e-2 and by_lr[1e-2].patience == 10 and by_lr[1e-3].max_epochs == 40
    assert specs[0].task_params == {"task": "adding_problem", "difficulty": "small", "seed": 0}


@pytest.mark.parametrize("raw, error, match", [
    ({"suite": "rote"}, ValueError, "name must be a non-empty string"),
    ({"name": "x", "suite": "rotee"}, ValueError, r"suite must be one of \["),
    ({"name": "x", "suite": "rote", "data": {"seeds": {"source": "paper"}}, "models": [{"name": "gru"}],
      "learning_rates": [1e-3]}, ValueError, r"config keys must be among \['data', 'description', 'models', "),
    ({"name": "x", "suite": "rote", "data": {"seeds": {"source": "web"}}, "models": [{"name": "gru"}]},
     ValueError, r"data.seeds.source must be one of \['paper', 'list'\]"),
    ({"name": "x", "suite": "rote", "data": {"seeds": {"source": "list"}}, "models": [{"name": "gru"}]},
     ValueError, "data.seeds.strings must be a non-empty list"),
    ({"name": "x", "suite": "rote", "data": {"seeds": {"source": "paper"}}, "models": []},
     ValueError, "models must list at least one model"),
    ({"name": "x", "suite": "rote", "data": {"seeds": {"source": "paper"}}, "models": [{"name": "gru"}],
      "protocol": {"epochs": 3}}, ValueError, "protocol keys must be among"),
    ({"name": "x", "suite": "rote", "data": {"seeds": {"source": "paper"}}, "models": [{"name": "gru"}], "runs": 0},
     ValueError, "runs must be an integer >= 1"),
    ({"name": "x", "suite": "cogscale", "data": {"tasks": ["simple_copy"], "difficulties": ["small"], "seeds": [0]},
      "models": [{"name": "gru"}]}, ValueError, "learning_rates must list at least one learning rate"),
    ({"name": "x", "suite": "cogscale", "data": {"tasks": [], "difficulties": ["small"], "seeds": [0]},
      "models": [{"name": "esn"}]}, ValueError, "data.tasks must be a non-empty list"),
    ({"name": "x", "suite": "cogscale", "data": {"tasks": ["simple_copy"], "difficulties": ["small"], "seeds": [0]},
      "models": [{"name": "gru"}], "learning_rates": [1e-3], "protocol": {"batch_size": 0}},
     ValueError, "batch_size must be an integer >= 1"),
    ({"name": "x", "suite": "mdl"}, ValueError, "suite 'mdl' has no sweep config"),
    ([1], TypeError, "config must be a mapping"),
])
def test_bad_configs_name_the_argument(raw, error, match):
    with pytest.raises(error, match=match):
        SweepConfig.from_dict(raw)


def test_summary_tables_come_from_the_suite(tmp_path):
    from rote_hf.results import load

    frame = load(None, include_paper=True)
    rote = get_suite("rote").summary(frame, source="paper").set_index("model")
    assert rote.loc["GRU", "fits"] == 80 and rote.loc["GRU", "exact_rate"] == pytest.approx(74 / 80)  # archived fits
    cog = get_suite("cogscale").summary_table(frame, source="paper", lr_selection="test")
    assert cog.splitlines()[0].split()[:4] == ["task", "difficulty", "model", "budget"]
    mdl = get_suite("mdl").summary_table(frame)
    assert mdl.splitlines()[0].split()[:5] == ["source", "model", "stratum", "scored", "failed"]


def test_builder_and_card_references_resolve():
    titles = {"rote": "# ROTE seeds", "mdl": "# OEIS MDL difficulty"}
    for name in ("rote", "cogscale", "mdl"):
        unit = get_suite(name)
        assert callable(resolve_object(unit.dataset_builder))
        module, _, resource = unit.dataset_card.partition(":")
        if resource.endswith(".md"):
            from importlib import resources

            assert resources.files(module).joinpath(resource).read_text(encoding="utf-8").startswith(titles[name])
        else:
            assert callable(resolve_object(unit.dataset_card))


def test_budget_labels_round_trip():
    assert [budget_label({"budget": b}) for b in (1000, 10000, 100000, 2_500_000)] == ["1k", "10k", "100k", "2.5M"]
    assert budget_label({"target_m": 0.2}, "0.2M") == "0.2M" and budget_label({}) == ""
    assert [budget_value(x) for x in ("1k", "100k", "2.5M", "12")] == [1e3, 1e5, 2.5e6, 12.0]
    assert budget_value("big") == math.inf
    # the suites' own budget columns: the matched track labels its parameter target
    assert get_suite("rote_matched").budget({"name": "gru", "target_m": 0.2}) == "0.2M"
    assert get_suite("rote_matched").budget({"name": "gru"}) == "0.2M" and get_suite("rote").budget({"name": "gru"}) == ""
    assert get_suite("cogscale").budget({"name": "gru", "budget": 10000}) == "10k"


def test_every_lookup_uses_the_one_registry_type():
    from rote_hf.cli import COMMANDS
    from rote_hf.cogscale.tasks import TASK_REGISTRY
    from rote_hf.hub.targets import BUILD_TARGETS as TARGETS
    from rote_hf.llm.responders import RESPONDERS, register_responder
    from rote_hf.zoo.spec import MODELS

    for reg in (COMMANDS, TASK_REGISTRY, TARGETS, RESPONDERS, MODELS, SUITES):
        assert isinstance(reg, Registry)
    assert "openai" in RESPONDERS and len(TASK_REGISTRY) == 14
    with pytest.raises(ValueError, match="responder kind 'openai' is already registered"):
        register_responder("openai")(object)  # used to overwrite silently
    with pytest.raises(ValueError, match=r"task name must be one of \["):
        TASK_REGISTRY.get("copy")
