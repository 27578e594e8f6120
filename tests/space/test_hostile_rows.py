"""Issue 12 items 1-4 without a server: a stored row never breaks a board, submissions are
validated in full and stored all or nothing, hostile JSON meets one clean line, visitors' rows
are marked as theirs. (The same classes through the running app: test_app_api.py.)"""

from __future__ import annotations

import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rote_hf.leaderboard import (
    SubmissionError, cogscale_board, filter_choices, llm_board, load_board_rows, load_rows, parse_submission,
    rote_board, store_submission,
)
from rote_hf.leaderboard import plots
from rote_hf.boards.tables import rote_frame
from rote_hf.leaderboard.validate import row_problem
from rote_hf.results import ResultRow, ResultStore
from tests.space.rows import make_store

GOOD = {"run_id": "r1", "suite": "cogscale", "task": "simple_copy", "model": "Net", "config": "small",
        "budget": "1k", "learning_rate": 1e-3, "metrics": {"test_score": 0.2}, "device": "cpu"}
KEYERROR_ROW = {"run_id": "x", "suite": "cogscale", "task": "t", "model": "M"}  # the row


def every_view(df) -> None:
    """Everything the Space renders from the rows (raises if any of it breaks)."""
    filter_choices(df)
    for table in ("runs", "all"):
        board = rote_board(df, table=table)
    frame = rote_frame(df)
    plots.complexity_curves(plots.one_track(frame))
    plots.rollout_error_curves(frame)
    plots.pareto(board)
    plots.dl_vs_params(board)
    for cells in ("ours", "all"):
        cogscale_board(df, cells=cells)
    for d in ("small", "medium"):
        plots.radar_svg(plots.radar_data(df, difficulty=d), title=d)
    llm = llm_board(df)
    plots.llm_bars_svg(plots.llm_bars(llm, "accuracy"), metric="accuracy")


@pytest.fixture()
def poisoned(tmp_path):
    """Our test store plus rows that ResultRow accepts but no board can show, and a torn file."""
    store = make_store(tmp_path)
    bad = [
        ResultRow(**KEYERROR_ROW),
        ResultRow(run_id="rote-no-params", suite="rote", task="n2-c10", model="GRU", metrics={"DL": 0.1}),
        ResultRow(run_id="cog-negative-time", suite="cogscale", task="simple_copy", model="GRU", config="small",
                  budget="1k", metrics={"test_score": 0.1}, train_time_s=-5.0),
        ResultRow(run_id="llm-rate-above-one", suite="mdl", task="clean", model="m", protocol="llm-query",
                  metrics={"accuracy": 1.5, "n_scored": 4.0}),
        ResultRow(run_id="paper-table2_main_c90-GRU", suite="rote", task="n4-c90", model="GRU", source="paper",
                  task_params={"symbols": 4, "complexity": 90}, metrics={"DL": 0.0, "exact": 1.0},
                  verified=True),  # well formed, but poses as a published cell
    ]
    for row in bad:
        store.append(row)
    torn = store.path_of("torn-file")
    torn.write_bytes(store.path_of("x").read_bytes()[:50])
    return tmp_path


def test_a_malformed_stored_row_never_breaks_a_board(poisoned):
    df, notices = load_board_rows(poisoned, repo="")
    assert len(notices) == 6
    text = "\n".join(notices)
    assert "'x': task must be one of the 14 CogScale tasks" in text
    assert "'rote-no-params': task_params.symbols must be 2 (from task 'n2-c10'), got None" in text
    assert "'cog-negative-time': train_time_s must be a finite number in [0, 1e+09], got -5" in text
    assert "'llm-rate-above-one': metrics.accuracy must be a finite number in [0, 1], got 1.5" in text
    assert "'paper-table2_main_c90-GRU': source 'paper' and paper run ids belong to the published rows" in text
    assert "torn-file.parquet: file could not be read with the row schema" in text
    every_view(df)  # the KeyError '' in cogscale_board, and every other view
    assert not {"x", "rote-no-params", "cog-negative-time", "llm-rate-above-one"} & set(df["run_id"])
    # the published Table 2 cell is the shipped one, not the stored impostor
    cell = df[df["run_id"] == "paper-table2_main_c90-GRU"]
    assert len(cell) == 1 and cell["metrics"].iloc[0]["exact_rollout_rate"] == 0.925
    assert len(load_rows(poisoned, repo="")) == len(df)


@pytest.mark.parametrize("bad,field", [
    ({"param_count": 10**30}, "param_count must be an integer in 0..1000000000000, got 1e+30"),
    ({"run_id": "r\x002"}, "run_id must be a non-empty file-name-safe string"),
    ({"run_id": "\U0001F600" * 200}, "run_id must be a non-empty file-name-safe string"),
    ({"train_time_s": -1}, "train_time_s must be a finite number in [0, 1e+09], got -1"),
    ({"budget": "lots"}, "budget must look like '1k', '10k', '100k' or '0.2M', got 'lots'"),
    ({"config": "huge"}, "config must be a difficulty ['small', 'medium', 'large'], got 'huge'"),
    ({"model": "my net"}, "model must be 1-100 characters"),
    ({"device": "x" * 5000}, "device must be at most 200 characters, got 5000"),
    ({"metrics": {"test_score": -0.5}}, "metrics.test_score must be a finite number in [0, 1e+06], got -0.5"),
    ({"metrics": {"best_val_score": 0.1}}, "metrics must hold test_score for an 'ok' cogscale row"),
    ({"epochs": 2.5}, "epochs must be an integer in 0..10000000, got 2.5"),
])
def test_a_submission_is_all_or_nothing(tmp_path, bad, field):
    companion = {**GOOD, "run_id": "r2", **bad}
    data = json.dumps([GOOD, companion]).encode()
    with pytest.raises(SubmissionError) as err:
        parse_submission(data, "mixed.json")
    message = str(err.value)
    assert message.startswith("row 1") and field in message and "\n" not in message and len(message) < 700
    assert not (tmp_path / "runs").exists()  # nothing parsed, nothing stored


def test_store_submission_writes_every_row_or_none(tmp_path):
    rows = parse_submission(json.dumps([GOOD, {**GOOD, "run_id": "r2"}, {**GOOD, "run_id": "r3"}]).encode(), "a.json")
    ResultStore(tmp_path).append(rows[2])  # r3 is taken: the whole submission is refused
    with pytest.raises(SubmissionError, match=r"run ids already stored: \['submitted-r3'\]"):
        store_submission(rows, tmp_path)
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["submitted-r3.parquet"]
    fresh = tmp_path / "fresh"
    paths = store_submission(rows, fresh)
    assert [p.name for p in paths] == ["submitted-r1.parquet", "submitted-r2.parquet", "submitted-r3.parquet"]
    assert sorted(p.name for p in (fresh / "runs").iterdir()) == [p.name for p in paths]  # no temporary files left
    stored = ResultStore(fresh).rows()
    assert {(r.source, r.verified) for r in stored} == {("submitted", False)}
    assert stored[0].settings["submission"]["file"] == "a.json"


def test_a_large_upload_lists_the_store_once(tmp_path, monkeypatch):
    """The taken-id check reads the store's listing once, not once per row: per row, a 5,000-row
    upload cost minutes of the Space's CPU against the full CogScale grid."""
    listings = []
    real = ResultStore.run_ids
    monkeypatch.setattr(ResultStore, "run_ids", lambda self: listings.append(1) or real(self))
    rows = parse_submission(json.dumps([{**GOOD, "run_id": f"r{i}"} for i in range(40)]).encode(), "many.json")
    assert len(store_submission(rows, tmp_path)) == 40 and listings == [1]


def _parquet(record: dict) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist([record]), buf)
    return buf.getvalue()


@pytest.mark.parametrize("data,name,message", [
    (b"[" * 100_000 + b"]" * 100_000, "deep.json", "file is nested deeper than 12 levels (at character 12)"),
    (b'{"rows": [{"run_id": "a", "param_count": ' + b"9" * 5000 + b"}]}", "digits.json",
     "field 'param_count': a number with 5000 characters; numbers must fit in 64 bits"),
    (b'{"run_id": "a", "score": ' + b"1" * 5000 + b"}\n", "digits.jsonl", "field 'score': a number with 5000 characters"),
    (b'[{"run_id": "a", "suite": "cogscale", "task": "simple_copy", "model": "M", "score": NaN}]', "nan.json",
     "file holds NaN; numbers must be finite"),
    (b'[{"run_id": "a", "suite": "cogscale", "task": "simple_copy", "model": "M", "score": -Infinity}]', "inf.json",
     "file holds -Infinity; numbers must be finite"),
    (_parquet({**GOOD, "metrics": "[" * 50_000 + "]" * 50_000}), "deep.parquet",
     "row 0 ('r1'): metrics is nested deeper than 12 levels"),
    (_parquet({**GOOD, "metrics": '{"test_score": ' + "7" * 5000 + "}"}), "digits.parquet",
     "row 0 ('r1'): field 'test_score': a number with 5000 characters"),
])
def test_uploaders_see_one_clean_line(data, name, message):
    with pytest.raises(SubmissionError) as err:
        parse_submission(data, name)
    text = str(err.value)
    assert text.startswith(message), text
    assert "\n" not in text and len(text) < 300
    for raw in ("Recursion", "Exceeds the limit", "int_max_str_digits", "Traceback"):
        assert raw not in text


def test_row_problem_accepts_every_row_we_produce_and_the_paper_fits():
    from rote_hf.results.published import rote_main_run_rows, rote_matched_run_rows

    import tempfile

    with tempfile.TemporaryDirectory() as root:
        make_store(root)
        df, notices = load_board_rows(root, repo="", shipped=False)  # the store's rows alone
    assert notices == []
    ours = df[df["source"] == "ours"]
    assert len(ours) == 67 and all(row_problem(r) is None for r in ours.to_dict("records"))
    # the archived per-fit rows meet the same schema as ours
    assert all(row_problem(r.__dict__) is None for r in rote_main_run_rows() + rote_matched_run_rows())
