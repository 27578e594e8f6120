"""The result-row schema and the Parquet store: atomic appends, resume, no duplicates."""

from __future__ import annotations

import math

import pytest

from rote_hf.results import ResultRow, ResultStore, load, make_run_id
from rote_hf.results.published import paper_rows


def _row(run_id: str, status: str = "ok", **kw) -> ResultRow:
    base = dict(run_id=run_id, suite="rote", task="n2-c10", model="GRU", status=status,
                error="boom" if status == "failed" else "", metrics={"DL": 0.25, "test_loss": math.nan},
                outputs={"forecast": "ABAB"}, task_params={"symbols": 2}, param_count=150018)
    base.update(kw)
    return ResultRow(**base)


def test_round_trip_and_resume(tmp_path):
    store = ResultStore(tmp_path)
    assert store.finished_ids() == set() and len(store) == 0
    store.append(_row("a"))
    store.append(_row("b", status="failed"))
    assert store.finished_ids() == {"a", "b"}
    assert store.finished_ids(include_failed=False) == {"a"}
    rows = store.rows()
    assert [r.run_id for r in rows] == ["a", "b"]
    assert rows[0].metrics["DL"] == 0.25 and rows[0].metrics["test_loss"] is None  # NaN stored as null
    assert rows[0].outputs == {"forecast": "ABAB"} and rows[0].param_count == 150018
    assert rows[1].status == "failed" and rows[1].error == "boom"
    # a finished run is never duplicated; a failed one may be replaced by a retry
    with pytest.raises(FileExistsError, match="already stored"):
        store.append(_row("a"))
    store.append(_row("b"))
    assert store.status_of("b") == "ok" and len(store) == 2
    # a stray temporary file from a killed writer is ignored
    (tmp_path / "runs" / ".tmp-x.parquet").write_bytes(b"partial")
    frame = load(tmp_path)
    assert list(frame["run_id"]) == ["a", "b"] and frame["metrics"][0]["DL"] == 0.25
    ds = load(tmp_path, as_dataset=True)
    assert ds.num_rows == 2 and ds[0]["model"] == "GRU"


def test_validation_messages():
    with pytest.raises(ValueError, match="source must be one of"):
        _row("x", source="mine")
    with pytest.raises(ValueError, match="error must describe"):
        ResultRow(run_id="x", suite="s", task="t", model="m", status="failed")
    with pytest.raises(TypeError, match="metrics\\['DL'\\] must be a number"):
        _row("x", metrics={"DL": "zero"})
    with pytest.raises(ValueError, match="run_id must be"):
        ResultStore("r").path_of("../x")


def test_run_id_is_deterministic_and_safe():
    a = make_run_id("rote", "GRU", "n2 c10", {"lr": 3e-4, "n": 2})
    assert a == make_run_id("rote", "GRU", "n2 c10", {"n": 2, "lr": 3e-4})
    assert a != make_run_id("rote", "GRU", "n2 c10", {"n": 2, "lr": 1e-3})
    assert "/" not in a and " " not in a and a.startswith("rote-GRU-n2_c10-")


def test_paper_rows():
    rows = paper_rows()
    by_id = {r.run_id: r for r in rows}
    assert len(by_id) == len(rows)  # ids unique
    gru = by_id["paper-rote_summary_by_model-GRU"]
    assert gru.metrics["DL_mean"] == 0.006 and gru.metrics["test_accuracy_mean"] == 0.9989
    assert gru.param_count == 151560 and gru.source == "paper"
    assert by_id["paper-table2_main_c90-Performer"].metrics["exact_rollout_rate"] == 0.575
    assert by_id["paper-table3_matched-RWKV"].metrics["exact_rollout_rate"] == 0.625
    cog = [r for r in rows if r.suite == "cogscale"]
    assert len(cog) == 14 * 2 * (3 * 6 + 2)  # ESN has no 100k
    cell = by_id["paper-cogscale_mean_std-GRU-adding_problem-small-1k"]
    assert (cell.metrics["test_score_mean"], cell.metrics["test_score_std"]) == (0.08, 0.05)
    frame = load(None, include_paper=True)
    # beside the published rows: only our shipped reproduction rows (rote_hf.results.shipped)
    from rote_hf.results.shipped import shipped_frame

    assert (frame["source"] == "paper").sum() == len(rows)
    assert (frame["source"] == "ours").sum() == len(shipped_frame()) == len(frame) - len(rows)


def test_cli_results_tables(tmp_path):
    from tests.helpers import run_cli

    store = ResultStore(tmp_path)
    store.append(_row("a", score=0.25, score_name="DL", task_params={"symbols": 2, "complexity": 10}))
    board = run_cli("results", "--dir", str(tmp_path))
    assert board.returncode == 0 and "GRU" in board.stdout and "0.25" in board.stdout
    paper = run_cli("results", "--dir", str(tmp_path / "missing"), "--paper", "--view", "leaderboard")
    assert paper.returncode == 0 and "TransformerEncDec" in paper.stdout
    missing = run_cli("results", "--dir", str(tmp_path / "missing"))
    assert missing.returncode == 2 and "results folder not found" in missing.stderr
