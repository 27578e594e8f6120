"""Every key of the five modules keeps its own name when combined with evaluate's ``exact_match`` and
``accuracy`` (issue 27): ``exact_rollout_rate``, ``answer_accuracy``, ``cogscale_score``; the old
keys come back only with ``legacy_keys=True`` (deprecated, one release).

evaluate's own modules live on the Hub, which tests cannot reach, so this test writes local
modules with their names, inputs and output keys (``exact_match``: string pairs ->
``{"exact_match"}``; ``accuracy``: integer labels -> ``{"accuracy"}``). The names and keys are
what ``evaluate.combine`` compares; its merge is evaluate's own code."""

from __future__ import annotations

import textwrap

import evaluate
import pytest

from rote_hf.hub.metric_repos import METRIC_REPOS, build_metric_repo

STAND_IN = '''
import datasets
import evaluate


class {cls}(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(description="local module with the name and keys of evaluate's {name}",
                                   citation="", inputs_description="",
                                   features=datasets.Features({{"predictions": datasets.Value("{dtype}"),
                                                               "references": datasets.Value("{dtype}")}}))

    def _compute(self, predictions, references):
        return {{"{name}": sum(p == r for p, r in zip(predictions, references)) / len(predictions)}}
'''

PAIRS = {"predictions": ["ABDC", "ABCD"], "references": ["ABCD", "ABCD"]}
INPUTS = {
    "dl_distance": PAIRS, "jw_distance": PAIRS, "exact_rollout": PAIRS, "exact_match": PAIRS,
    "accuracy": {"predictions": [0, 1, 1], "references": [0, 1, 0]},
    "confabulation": {"predictions": [[5, 8, 13], [1, 2, 3]], "references": [[5, 8, 13], [4, 5, 6]],
                      "confidence": [5, 4], "abstained": [False, False], "recognized": [True, False],
                      "status": ["ok", "ok"]},
    "cogscale_score": {"predictions": [[[0.9, 0.1], [0.2, 0.8]]], "references": [[[1, 0], [1, 0]]],
                       "prediction_timesteps": [[0, 1]], "category": "classification"},
}


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    root = tmp_path_factory.mktemp("combine")
    out = {name: str(build_metric_repo(root, name).path) for name in METRIC_REPOS}
    for name, cls, dtype in (("exact_match", "ExactMatch", "string"), ("accuracy", "Accuracy", "int32")):
        folder = root / "local" / name
        folder.mkdir(parents=True)
        (folder / f"{name}.py").write_text(textwrap.dedent(STAND_IN.format(name=name, cls=cls, dtype=dtype)))
        out[name] = str(folder)
    return out


def test_the_string_pair_modules_combine_with_exact_match_unprefixed(paths):
    combined = evaluate.combine([paths[n] for n in ("dl_distance", "jw_distance", "exact_rollout", "exact_match")])
    out = combined.compute(**PAIRS)
    assert out["exact_rollout_rate"] == 0.5 and out["exact_match"] == 0.5 and out["dl_distance"] == 0.125
    assert not [k for k in out if k.startswith(("exact_rollout_", "exact_match_", "dl_distance_", "jw_distance_"))
                and k != "exact_rollout_rate"]


def test_every_module_keeps_its_keys_beside_exact_match_and_accuracy(paths):
    """All seven in one combination: each computed on its own inputs (their inputs differ), then
    merged by the combination's own merge, which prefixes any key two modules share."""
    everything = evaluate.combine([paths[n] for n in (*METRIC_REPOS, "exact_match", "accuracy")])
    results = [m.compute(**INPUTS[m.name]) for m in everything.evaluation_modules]
    merged = everything._merge_results(results)  # evaluate's merge (what compute() returns)
    assert merged == {k: v for r in results for k, v in r.items()}  # no key renamed
    assert (merged["exact_rollout_rate"], merged["answer_accuracy"], merged["cogscale_score"]) == (0.5, 0.5, 0.5)
    assert (merged["exact_match"], merged["accuracy"]) == (0.5, 2 / 3)
    assert not {"score", "accuracy_ci_low"} & set(merged)


def test_old_keys_only_on_request_with_a_deprecation_warning(paths):
    rollout = evaluate.load(paths["exact_rollout"])
    with pytest.warns(FutureWarning, match="exact_match are deprecated .* go in rote-hf 0.3; read exact_rollout_rate"):
        out = rollout.compute(**PAIRS, legacy_keys=True)
    assert out["exact_match"] == out["exact_rollout_rate"] == 0.5
    confab = evaluate.load(paths["confabulation"])
    with pytest.warns(FutureWarning):
        old = confab.compute(**INPUTS["confabulation"], legacy_keys=True)
    assert old["accuracy"] == old["answer_accuracy"] and old["accuracy_ci_low"] == old["answer_accuracy_ci_low"]
    cog = evaluate.load(paths["cogscale_score"])
    with pytest.warns(FutureWarning):
        assert cog.compute(**INPUTS["cogscale_score"], legacy_keys=True) == {"cogscale_score": 0.5, "score": 0.5}
    # the old names clash: combined with evaluate's exact_match, both would be prefixed
    clash = evaluate.combine([paths["exact_rollout"], paths["exact_match"]])
    with pytest.warns(FutureWarning):
        legacy = clash._merge_results([rollout.compute(**PAIRS, legacy_keys=True), {"exact_match": 0.5}])
    assert "exact_rollout_exact_match" in legacy and "exact_match_exact_match" in legacy
    with pytest.raises(TypeError, match="legacy_keys must be a bool"):
        rollout.compute(**PAIRS, legacy_keys="yes")
