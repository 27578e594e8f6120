"""Exactness as measured: every new row records the torch environment its arithmetic depends on,
and ``rote-hf results --verify-sample N`` re-runs stored runs through the one-run executor and
compares them with what was stored."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from rote_hf.protocols.device import environment
from rote_hf.reports.verify import (
    VERDICTS, Verified, capability_line, compare, metric_gap, recorded_threads, stratified_sample, text_report,
    verdict, verify_sample,
)
from rote_hf.results import ResultRow, ResultStore, load
from tests.helpers import run_cli

TINY = """name: verify_tiny
suite: cogscale
data: {tasks: [adding_problem], difficulties: [small], seeds: [0, 1]}
models:
  - {name: gru, preset: cogscale-paper, budget: 1000}
  - {name: esn, preset: cogscale, budget: 1000, search: {trials: 1, seed: 0}}
learning_rates: [1.0e-2]
protocol: {max_epochs: 3, patience: 2}
"""

STRAY = "cogscale-gru-adding_problem-0000000000000000"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Four real runs (GRU and ESN, 2 seeds) of a tiny sweep, and a stray row that is no run of it."""
    from rote_hf.train.config import SweepConfig, expand
    from rote_hf.train.loop import run_specs

    base = tmp_path_factory.mktemp("verify")
    config = base / "verify_tiny.yaml"
    config.write_text(TINY)
    results = base / "results"
    run_specs(expand(SweepConfig.from_yaml(config)), results, progress=False)
    ResultStore(results).append(ResultRow(run_id=STRAY, suite="cogscale",
                                          task="adding_problem", model="gru", config="small",
                                          config_name="verify_tiny", metrics={"test_score": 0.5}))
    return config, results


def test_rows_record_the_torch_environment(store):
    import torch

    _, results = store
    rows = load(results)
    env = environment()
    assert env["cpu_capability"] == torch.backends.cpu.get_cpu_capability() != ""
    assert env["torch"] == torch.__version__ and env["torch_cuda"] == (torch.version.cuda or "")
    assert env["threads"] == torch.get_num_threads() and env["torch_build"].startswith("blas=")
    ran = rows[rows["run_id"] != STRAY]
    assert len(ran) == 4
    for settings in ran["settings"]:
        # same process, same machine: what the rows recorded is what this process sees now
        assert settings["environment"] == env


def test_verify_sample_reruns_and_finds_them_equal(store):
    config, results = store
    rows = load(results, decode_json=False)
    outcome = verify_sample(rows, 2, seed=0, config=config)
    res = outcome["results"]
    assert (outcome["stored"], outcome["pool"], outcome["not_in_config"]) == (5, 4, 1)
    assert sorted(r.model for r in res) == ["esn", "gru"]  # stratified: one run of each model
    for r in res:  # same code, machine, capability and threads: the fit is deterministic
        assert r.verdict == "equal 1e-6" and r.max_abs_diff <= 1e-6 and r.epochs_now == r.epochs_stored
        assert r.capability == environment()["cpu_capability"] and r.threads == environment()["threads"]
        assert r.score_now == pytest.approx(r.score_stored, abs=1e-6)
    again = verify_sample(rows, 2, seed=0, config=config)["results"]
    assert [r.run_id for r in again] == [r.run_id for r in res]  # the draw is seeded
    text = text_report(outcome)
    assert text.splitlines()[0] == f"CPU capability: {environment()['cpu_capability']} here and in the 2 rows that record it"
    assert "total: 2 equal 1e-6, 0 equal 1e-3, 0 different (of 2)" in text
    assert "1 stored rows are not runs of their config" in text

    # a stored score moved by 5e-4 comes back within 1e-3 only; moved by 0.1 it is different
    gru = rows[(rows["model"] == "gru") & (rows["run_id"] != STRAY)].copy()
    moved = []
    for shift, (idx, rec) in zip((5e-4, 0.1), gru.iterrows()):
        metrics = json.loads(rec["metrics"])
        metrics["test_score"] += shift
        moved.append((rec["run_id"], shift))
        gru.loc[idx, "metrics"] = json.dumps(metrics)
    shifted = verify_sample(gru, 5, seed=3, config=config, only=["model=gru"])
    by_id = {r.run_id: r for r in shifted["results"]}
    assert shifted["pool"] == 2 and len(by_id) == 2
    (small, s_small), (large, s_large) = moved
    assert by_id[small].verdict == "equal 1e-3" and by_id[small].max_abs_diff == pytest.approx(s_small, abs=1e-9)
    assert by_id[large].verdict == "different" and by_id[large].max_abs_diff == pytest.approx(s_large, abs=1e-9)
    assert "asked for 5 runs, but only 2 can be drawn: re-running all of them" in text_report(shifted)


def test_cli_verify_sample(store):
    config, results = store
    proc = run_cli("results", "--verify-sample", "9", "--results", str(results), "--config", str(config),
                   "--only", "model=gru", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("CPU capability: ")  # first line: the capability
    assert "asked for 9 runs, but only 2 can be drawn: re-running all of them" in proc.stdout
    assert "re-ran 2 of the 2 of 5 stored runs passing --only model=gru" in proc.stdout
    assert proc.stdout.count("  equal 1e-6  gru adding_problem small 1k lr=0.01") == 2
    assert "total: 2 equal 1e-6, 0 equal 1e-3, 0 different (of 2)" in proc.stdout
    for args, message in ((("--verify-sample", "0"), "N must be in 1.."),
                          (("--only", "model=lstm", "--verify-sample", "1", "--results", str(results), "--config",
                            str(config)), "--only model: no run of this config has 'lstm'")):
        bad = run_cli("results", *args)
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr, (args, bad.stderr)
        assert len(bad.stderr.strip().splitlines()) == 1
    rows = load(results, decode_json=False)
    with pytest.raises(FileNotFoundError, match="no sweep config for the rows of config 'verify_tiny'"):
        verify_sample(rows, 1)  # its config is not in eval_suite/configs/
    with pytest.raises(ValueError, match="--threads must be an integer >= 1"):
        verify_sample(rows, 1, config=config, threads=0)


def _v(capability: str) -> Verified:
    return Verified("r", "gru", "t", "small", "1k", 0.01, 0, 0.5, 0.5, 0.0, 3, 3, 1, capability, "equal 1e-6")


def test_capability_line_and_verdicts():
    assert capability_line([_v("AVX2"), _v("AVX512")], "AVX512").startswith(
        "CPU capability DIFFERS: this machine runs AVX512; 1 of the 2 rows were trained on AVX2")
    assert "not recorded" in capability_line([_v(""), _v("")], "AVX2")
    assert capability_line([_v("AVX2"), _v("")], "AVX2") == "CPU capability: AVX2 here and in the 1 rows that record it (1 not recorded)"
    assert metric_gap({"a": 0.5, "b": None}, {"a": 0.5000004, "b": math.nan}) == pytest.approx(4e-7)
    assert metric_gap({"a": 0.5}, {"a": math.nan}) == math.inf and metric_gap({"a": 1.0}, {"b": 2.0}) == 0.0
    assert [verdict(0.0, True), verdict(5e-4, True), verdict(0.0, False), verdict(0.1, True)] == [
        VERDICTS[0], VERDICTS[1], VERDICTS[2], VERDICTS[2]]


def test_stratified_sample_spreads_over_models_and_is_seeded():
    rows = pd.DataFrame({"model": ["a"] * 5 + ["b"] + ["c"] * 3})
    three = stratified_sample(rows, 3, seed=7)
    assert sorted(rows["model"].iloc[three]) == ["a", "b", "c"]
    assert stratified_sample(rows, 3, seed=7) == three
    assert sorted(stratified_sample(rows, 100, seed=1)) == list(range(9))
    with pytest.raises(ValueError, match="--verify-sample must be an integer >= 1"):
        verify_sample(rows.assign(status="ok", source="ours"), 0)


def test_stratified_sample_by_model_and_learning_rate():
    rows = pd.DataFrame({"model": ["a"] * 6 + ["b"] * 2, "learning_rate": [1e-2] * 5 + [1e-3] + [1e-2, 1e-3]})
    four = stratified_sample(rows, 4, seed=0, by=("model", "learning_rate"))
    # one run of each (model, learning rate) pair, though (a, 1e-2) holds 5 of the 8 rows
    assert sorted(zip(rows["model"].iloc[four], rows["learning_rate"].iloc[four])) == [
        ("a", 1e-3), ("a", 1e-2), ("b", 1e-3), ("b", 1e-2)]
    assert stratified_sample(rows, 4, seed=0, by=("model", "learning_rate")) == four
    assert sorted(rows["model"].iloc[stratified_sample(rows, 2, seed=3)]) == ["a", "b"]


def test_compare_a_rerun_with_its_stored_row():
    stored = pd.Series({"run_id": "r", "model": "gru", "task": "t", "config": "small", "budget": "1k",
                        "learning_rate": 0.01, "data_seed": 2, "score": 0.25, "epochs": 7,
                        "metrics": {"test_score": 0.25, "best_val_score": 0.5},
                        "settings": json.dumps({"environment": {"cpu_capability": "AVX2", "threads": 4}})})
    assert recorded_threads(stored) == 4 and recorded_threads({"settings": {}}) == 1
    same = ResultRow(run_id="r", suite="cogscale", task="t", model="gru", metrics={"test_score": 0.25,
                     "best_val_score": 0.5 + 4e-7}, score=0.25, epochs=7)
    v = compare(stored, same, 4)
    assert (v.verdict, v.threads, v.capability, v.seed, v.epochs_now) == ("equal 1e-6", 4, "AVX2", 2, 7)
    assert v.max_abs_diff == pytest.approx(4e-7)
    later = ResultRow(run_id="r", suite="cogscale", task="t", model="gru", metrics={"test_score": 0.25,
                      "best_val_score": 0.5}, score=0.25, epochs=8)
    assert compare(stored, later, 1).verdict == "different"  # another stopping epoch
    failed = ResultRow(run_id="r", suite="cogscale", task="t", model="gru", status="failed",
                       error="ValueError: diverged\ntraceback")
    v = compare(stored, failed, 1)
    assert (v.verdict, v.max_abs_diff, v.error, v.epochs_now) == ("different", math.inf, "ValueError: diverged", None)
