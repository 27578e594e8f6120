"""Empty and overlong metric inputs (issue 31): every evaluate module, built as published, refuses
``predictions=[]`` with the one message the library functions give (the three string-pair modules
used to fail inside evaluate with an IndexError), and the distance modules refuse rows over
``max_length`` (default 100,000 symbols) in one line naming it; the library has no default limit."""

from __future__ import annotations

import evaluate
import pytest

from rote_hf.hub.metric_repos import METRIC_REPOS, build_metric_repo
from rote_hf.metrics import confabulation, cogscale_score, dl_distances, exact_rollout, jw_distances

PAIR = "predictions, references must not be empty: at least one row is needed"
EMPTY_INPUTS = {
    "dl_distance": ({"predictions": [], "references": []}, PAIR),
    "jw_distance": ({"predictions": [], "references": []}, PAIR),
    "exact_rollout": ({"predictions": [], "references": []}, PAIR),
    "confabulation": ({k: [] for k in ("predictions", "references", "confidence", "abstained", "recognized",
                                       "status")},
                      "predictions, references, confidence, abstained, recognized, status must not be empty: "
                      "at least one row is needed"),
    "cogscale_score": ({"predictions": [], "references": [], "prediction_timesteps": [], "category": "regression"},
                       "predictions, references, prediction_timesteps must not be empty: at least one row is needed"),
}
LONG = "AB" * 50_000 + "A"  # 100,001 symbols: one over the modules' default; cheap against a 1-symbol target


@pytest.fixture(scope="module")
def modules(tmp_path_factory) -> dict[str, evaluate.EvaluationModule]:
    """The five evaluate modules as ``rote-hf build metrics`` writes them (generated siblings too)."""
    root = tmp_path_factory.mktemp("mirror")
    for name in METRIC_REPOS:
        build_metric_repo(root, name)
    return {name: evaluate.load(str(root / "rote" / name)) for name in METRIC_REPOS}


def test_every_module_lists_an_empty_input_case():
    assert sorted(EMPTY_INPUTS) == sorted(METRIC_REPOS)


@pytest.mark.parametrize("name", sorted(EMPTY_INPUTS))
def test_every_module_refuses_empty_input_with_one_message(modules, name):
    kwargs, message = EMPTY_INPUTS[name]
    with pytest.raises(ValueError) as err:
        modules[name].compute(**kwargs)
    assert str(err.value) == message


@pytest.mark.parametrize("name", ["dl_distance", "jw_distance", "exact_rollout"])
def test_an_empty_batch_is_refused_and_the_module_still_works(modules, name):
    metric = modules[name]
    with pytest.raises(ValueError) as err:
        metric.add_batch(predictions=[], references=[])
    assert str(err.value) == PAIR
    metric.add_batch(predictions=["AB"], references=["AB"])
    out = metric.compute()
    assert out.get(name, out.get("exact_rollout_rate")) in (0.0, 1.0)


def test_library_functions_give_the_same_message():
    for fn in (dl_distances, jw_distances, exact_rollout):
        with pytest.raises(ValueError) as err:
            fn([], [])
        assert str(err.value) == PAIR
    with pytest.raises(ValueError) as err:  # status left out: the library names the columns it was given
        confabulation([], [], [], [], [])
    assert str(err.value) == "predictions, references, confidence, abstained, recognized " + PAIR.split(" ", 2)[2]
    with pytest.raises(ValueError) as err:
        cogscale_score([], [], "regression", [])
    assert str(err.value) == EMPTY_INPUTS["cogscale_score"][1]


@pytest.mark.parametrize("name", ["dl_distance", "jw_distance"])
def test_distance_modules_refuse_rows_over_max_length(modules, name):
    metric = modules[name]
    with pytest.raises(ValueError) as err:
        metric.compute(predictions=["A"], references=[LONG])
    assert str(err.value) == ("references[0] has 100,001 symbols, over max_length=100,000 (the cost grows with "
                              "the square of the length; pass a larger max_length, or None for no limit)")
    with pytest.raises(ValueError, match=r"^predictions\[1\] has 11 symbols, over max_length=10 "):
        metric.compute(predictions=["A", "A" * 11], references=["A", "A"], max_length=10)
    assert 0.0 < metric.compute(predictions=["A"], references=[LONG], max_length=None)[name] <= 1.0
    assert metric.compute(predictions=["A" * 10], references=["A" * 10], max_length=10)[name] == 0.0


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_max_length_itself_is_checked(modules, bad):
    with pytest.raises(ValueError, match=r"^max_length must be None \(no limit\) or an integer >= 1, got "):
        modules["dl_distance"].compute(predictions=["A"], references=["A"], max_length=bad)
    with pytest.raises(ValueError, match=r"^max_length must be None"):
        jw_distances(["A"], ["A"], max_length=bad)


def test_library_functions_have_no_default_limit():
    assert dl_distances(["A"], [LONG])[0] == pytest.approx(1 - 1 / len(LONG))
    assert 0.0 < jw_distances(["A"], [LONG])[0] < 1.0
    with pytest.raises(ValueError, match=r"over max_length=100 "):
        dl_distances(["A"], [LONG], max_length=100)
