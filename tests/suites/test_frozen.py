"""Stored results stay valid across refactors.

``tests/data/frozen_run_ids.json`` was written by the code *before* the suites became units
(commit 52493b4): for every shipped config, the run count, the SHA-256 of the ordered run-id list
(one id a line) and of the ordered config-hash list. A run id names a stored Parquet file, so a
changed id would silently re-run (and duplicate) finished work. ``tests/data/stored_rows_v0/`` holds
three rows written by that code's store (before ``schema_version`` existed); they must still load.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from rote_hf.results import ResultStore, load
from rote_hf.train.config import SweepConfig, expand

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
FROZEN = json.loads((DATA / "frozen_run_ids.json").read_text())
CONFIGS = sorted((ROOT / "eval_suite" / "configs").glob("*.yaml"))


def _sha(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def test_every_shipped_config_is_frozen():
    assert sorted(p.stem for p in CONFIGS) == sorted(FROZEN)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_run_ids_equal_the_frozen_list(path):
    specs = expand(SweepConfig.from_yaml(path))
    frozen = FROZEN[path.stem]
    ids = [s.run_id for s in specs]
    assert len(ids) == frozen["count"]
    assert ids[:3] == frozen["first"] and ids[-1] == frozen["last"]
    assert _sha(ids) == frozen["run_ids_sha256"]
    assert _sha([s.config_hash for s in specs]) == frozen["config_hashes_sha256"]
    assert [s.index for s in specs] == list(range(len(specs)))


def test_rows_stored_before_schema_version_still_load():
    store = ResultStore(DATA / "stored_rows_v0")
    rows = store.rows()
    assert [r.run_id for r in rows] == ["cogscale-esn-adding_problem-0000000000000003",
                                        "cogscale-gru-adding_problem-0000000000000002",
                                        "rote-gru-n2-c10-0000000000000001"]
    esn, gru, rote = rows
    assert esn.status == "failed" and esn.error == "RuntimeError: boom"
    assert gru.metrics == {"test_score": 0.5, "best_val_score": 0.4} and gru.budget == "1k"
    assert rote.metrics["DL"] == 0.25 and rote.metrics["test_loss"] is None
    assert rote.outputs == {"forecast": "ABAB", "target": "ABBA"} and rote.learning_rate == 3e-4
    frame = load(DATA / "stored_rows_v0")
    assert len(frame) == 3 and frame["task_params"][2]["symbols"] == 2


def test_schema_version_is_written_and_old_rows_read_as_version_0(tmp_path):
    from rote_hf.results import ResultRow
    from rote_hf.results.schema import COLUMNS, SCHEMA_VERSION

    assert SCHEMA_VERSION == 1 and COLUMNS[-1] == "schema_version"
    assert [r.schema_version for r in ResultStore(DATA / "stored_rows_v0").rows()] == [0, 0, 0]
    store = ResultStore(tmp_path)
    store.append(ResultRow(run_id="new", suite="rote", task="t", model="m"))
    assert store.rows()[0].schema_version == SCHEMA_VERSION
    assert ResultRow.from_record({"run_id": "r", "suite": "s", "task": "t", "model": "m"}).schema_version == 0
    with pytest.raises(ValueError, match="schema_version must be an integer >= 0"):
        ResultRow(run_id="r", suite="s", task="t", model="m", schema_version=-1)
