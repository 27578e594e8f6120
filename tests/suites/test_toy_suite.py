"""A fourth suite costs no edits: a toy suite registered from the tests folder flows through
config expansion, the Accelerate loop (its own trivial executor), the results store, the summary
table (CLI and train.py) and the Space's board function."""

from __future__ import annotations

import pytest

from rote_hf.results import ResultStore, load
from rote_hf.suites import SUITES, get_suite

TOY_YAML = """
name: toy_sweep
suite: toy
description: two values, three models, two runs
data: {values: [4, 10]}
models:
  - {name: constant, guess: 5}
  - {name: "tests.suites.toy:half"}
  - {name: crash}
runs: 2
"""


@pytest.fixture(scope="module")
def toy():
    if "toy" not in SUITES:
        SUITES.register("toy", "tests.suites.toy:TOY")
    return get_suite("toy")


def test_registry_refuses_a_second_toy_and_lists_it(toy):
    with pytest.raises(ValueError, match="suite 'toy' is already registered"):
        SUITES.register("toy", "tests.suites.toy:TOY")
    with pytest.raises(ValueError, match=r"suite must be one of \[.*'toy'.*\], got 'toys'"):
        get_suite("toys")


def test_toy_flows_from_config_to_board(toy, tmp_path, capsys):
    from rote_hf.cli import main
    from rote_hf.leaderboard.suite_board import suite_board
    from rote_hf.train import make_accelerator, run_specs
    from rote_hf.train.config import SweepConfig, expand

    path = tmp_path / "toy.yaml"
    path.write_text(TOY_YAML)
    config = SweepConfig.from_yaml(path)
    assert config.suite == "toy" and config.section.values == (4.0, 10.0) and config.section.runs == 2
    specs = expand(config)
    assert len(specs) == 12 and [s.index for s in specs] == list(range(12))
    assert len({s.run_id for s in specs}) == 12 and specs[0].run_id.startswith("toy-constant-v4-")
    with pytest.raises(ValueError, match=r"config keys must be among \[.*'runs'.*\], got unknown \['learning_rates'\]"):
        SweepConfig.from_dict({"name": "x", "suite": "toy", "data": {"values": [1]}, "models": [{"name": "c"}],
                               "learning_rates": [1e-3]})

    results = tmp_path / "results"
    report = run_specs(specs, results, accelerator=make_accelerator(cpu=True), progress=False)
    assert len(report.ok) == 8 and len(report.failed) == 4 and report.skipped == 0
    again = run_specs(specs, results, accelerator=make_accelerator(cpu=True), progress=False)
    assert again.skipped == 12 and not again.ok  # resume: nothing runs twice

    rows = {r.run_id: r for r in ResultStore(results).rows()}
    assert len(rows) == 12
    half = rows[specs[2].run_id]  # value 4, the "half" model, run 0
    assert half.model == "tests.suites.toy:half" and half.metrics == {"abs_error": 2.0}
    assert half.score_name == "abs_error" and half.score == 2.0 and half.lower_is_better is True
    crashed = rows[specs[4].run_id]
    assert crashed.status == "failed" and "the toy model crashed" in crashed.error and crashed.protocol == "toy"

    frame = load(results)
    summary = toy.summary(frame)
    # constant 5: |5-4| and |5-10| -> mean 3; half: |2-4| and |5-10| -> mean 3.5
    assert summary.to_dict("records") == [
        {"model": "constant", "runs": 4, "abs_error_mean": 3.0},
        {"model": "tests.suites.toy:half", "runs": 4, "abs_error_mean": 3.5},
    ]
    import importlib.util

    from tests.helpers import REPO_ROOT

    spec = importlib.util.spec_from_file_location("train_script", REPO_ROOT / "eval_suite" / "train.py")
    train_script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train_script)
    table = train_script.summary_table(frame, "toy")
    assert table.splitlines()[0].split() == ["model", "runs", "abs_error_mean"] and "3.5" in table

    assert main(["results", "--dir", str(results), "--view", "toy"]) == 0
    assert capsys.readouterr().out == table + "\n"

    board = suite_board(frame, "toy")
    assert list(board["abs_error_mean"]) == [3.0, 3.5]
    with pytest.raises(ValueError, match="board takes no filters"):
        suite_board(frame, "toy", task="v4")
