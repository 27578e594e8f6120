"""The leaderboard's pure functions (rote_hf.leaderboard) and the published MDL LLM rows."""

from __future__ import annotations

import io
import json
import pickle

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rote_hf.leaderboard import (
    MAX_BYTES, SubmissionError, cogscale_board, filter_choices, llm_board, load_rows, parse_submission, rote_board,
    store_submission,
)
from rote_hf.leaderboard import plots
from rote_hf.boards.tables import rote_frame, verified_mark
from rote_hf.results import ResultStore
from rote_hf.results.published import mdl_llm_rows
from tests.space.rows import make_store


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    make_store(root)
    return root


@pytest.fixture(scope="module")
def rows(store):
    return load_rows(store, repo="", shipped=False)  # counts below are over the test store's rows


def test_published_mdl_llm_rows_reproduce_the_paper():
    """mdl.md §9.1: wilderness abstention 64.7 / 95.0 / 89.5 %, mean confidence 3.18 / 2.45 / 2.68,
    Llama's clean accuracy 25 % -> 0 % without recognised items, Claude 4/7 right when unrecognised,
    12 of 180 calls failed."""
    by = {(r.model, r.task): r.metrics for r in mdl_llm_rows()}
    assert len(by) == 9
    wild = [by[(m, "wilderness")] for m in ("anthropic/claude-sonnet-4.5", "openai/gpt-4o", "meta-llama/llama-3.3-70b-instruct")]
    assert [round(m["abstention_rate"] * 100, 1) for m in wild] == [64.7, 95.0, 89.5]
    assert [round(m["mean_confidence"], 2) for m in wild] == [3.18, 2.45, 2.68]
    llama = by[("meta-llama/llama-3.3-70b-instruct", "clean")]
    assert (llama["accuracy"], llama["accuracy_unrecognized"]) == (0.25, 0.0)
    claude = by[("anthropic/claude-sonnet-4.5", "clean")]
    assert claude["accuracy_unrecognized"] == pytest.approx(4 / 7)
    assert sum(m["n_failed"] for m in by.values()) == 12 and sum(m["n_rows"] for m in by.values()) == 180
    for model in ("anthropic/claude-sonnet-4.5", "openai/gpt-4o", "meta-llama/llama-3.3-70b-instruct"):  # confabulation higher on clean than wilderness
        assert by[(model, "clean")]["confabulation_rate"] > by[(model, "wilderness")]["confabulation_rate"]


def test_rote_board_aggregates_ours_and_keeps_paper_cells(rows):
    board = rote_board(rows, track="rote", source="ours")
    lstm = board[board["model"] == "LSTM"].iloc[0]
    frame = rote_frame(rows)
    ours = frame[(frame["model"] == "LSTM") & (frame["source"] == "ours")]
    assert lstm["runs"] == 8 and lstm["DL_mean"] == pytest.approx(round(ours["DL"].mean(), 4))
    assert lstm["DL@c10"] == pytest.approx(round(ours.loc[ours["c"] == "10", "DL"].mean(), 4))
    assert lstm["train_time_s"] == 15.5 and lstm["peak_cpu_mb"] == 300.0
    paper = rote_board(rows, source="paper", table="all")
    assert len(paper) == 8 + 8 + 6 + 8 + 6  # summary, Table 2, Table 3, the main and matched fits per model
    fits = paper[paper["table"] == "runs"]
    assert sorted(fits["runs"]) == [8] * 6 + [80] * 8 and set(fits["track"]) == {"rote", "rote_matched"}
    # the archived fits aggregate to Table 3's exact-rollout rates
    matched = fits[fits["track"] == "rote_matched"].set_index("model")["exact_rate"].to_dict()
    assert matched == paper[paper["table"] == "table3_matched"].set_index("model")["exact_rate"].to_dict()
    assert fits.loc[(fits["track"] == "rote") & (fits["model"] == "GRU"), "exact_rate"].item() == 0.925
    assert paper.loc[(paper["model"] == "RWKV") & (paper["table"] == "table3_matched"), "exact_rate"].item() == 0.625
    with pytest.raises(ValueError, match=r"n must be one of \['all', '2', '4', '6', '8'\], got '5'"):
        rote_board(rows, n="5")


def test_filter_choices(rows):
    ch = filter_choices(rows)
    assert ch["n"] == ["2", "4", "6", "8"] and ch["c"] == ["10", "30", "50", "70", "90"]  # ours and the paper's fits
    assert ch["budget"] == ["1k", "10k", "100k"] and ch["stratum"] == ["clean", "revising", "wilderness"]
    assert ch["source"] == ["ours", "paper"] and "tiny-llm" in ch["llm_model"]


def test_cogscale_lr_selection_and_best_overall(rows):
    val = cogscale_board(rows, lr_selection="validation", source="ours")
    test = cogscale_board(rows, lr_selection="test", source="ours")
    assert len(val) == len(test) == 2 * 2 * 2
    cog = rows[(rows["suite"] == "cogscale") & (rows["source"] == "ours")]
    g = cog[(cog["task"] == "simple_copy") & (cog["model"] == "GRU")]
    best = min(m["test_score"] for m in g["metrics"])
    assert set(val.loc[(val["task"] == "simple_copy") & (val["model"] == "GRU"), "best_overall"]) == {best}
    # the test-selected LR never has a higher mean test score (rounded to 2 dp) than the validation-selected one
    merged = val.merge(test, on=["task", "difficulty", "budget", "model"], suffixes=("_v", "_t"))
    assert (merged["mean_t"].round(2) <= merged["mean_v"].round(2)).all()
    with pytest.raises(ValueError, match="lr_selection must be one of"):
        cogscale_board(rows, lr_selection="train")


def test_llm_board_filters(rows):
    assert len(llm_board(rows)) == 12
    wild = llm_board(rows, stratum="wilderness", source="paper")
    assert list(wild["model"]) == ["anthropic/claude-sonnet-4.5", "meta-llama/llama-3.3-70b-instruct", "openai/gpt-4o"]
    assert list(wild["abstention"]) == [0.6471, 0.8947, 0.95]
    bars = plots.llm_bars(wild, "abstention")
    assert list(bars["bar"]) == ["wilderness | anthropic/claude-sonnet-4.5 (paper)",
                                 "wilderness | meta-llama/llama-3.3-70b-instruct (paper)", "wilderness | openai/gpt-4o (paper)"]


def test_pareto_front():
    import pandas as pd

    board = pd.DataFrame({"model": ["a", "b", "c", "d"], "source": ["ours"] * 4, "track": ["rote"] * 4,
                          "train_time_s": [1.0, 2.0, 3.0, 2.0], "DL_mean": [0.5, 0.1, 0.1, 0.6],
                          "params": [1.0, 2.0, 3.0, 4.0]})
    assert list(plots.pareto(board)["pareto_front"]) == ["front", "front", "dominated", "dominated"]


def test_rollout_curve_matches_figure_2_definition(rows):
    frame = rote_frame(rows)
    curves = plots.rollout_error_curves(frame[frame["source"] == "ours"])
    gru = curves[curves["model"] == "GRU"]
    assert list(gru["horizon"]) == list(range(1, 21)) and (gru["error"] == 0).all()
    lstm = frame[(frame["model"] == "LSTM") & (frame["source"] == "ours")]
    last = sum(sum(a != b for a, b in zip(f, t)) / 20 for f, t in zip(lstm["forecast"], lstm["target"])) / len(lstm)
    assert curves[curves["model"] == "LSTM"]["error"].iloc[-1] == pytest.approx(last)


def test_radar(rows):
    data = plots.radar_data(rows, difficulty="small", source="paper")
    esn = data[(data["model"] == "ESN") & (data["task"] == "simple_copy")]
    assert esn["accuracy"].item() == 1.0  # published ESN small simple_copy 10k: 0.00 ± 0.00
    svg = plots.radar_svg(data, title="small")
    assert svg.count('class="radar-model"') == 7 and svg == plots.radar_svg(data, title="small")
    assert "no runs" in plots.radar_svg(data.iloc[0:0], title="empty")


def test_verified_mark():
    assert verified_mark(True, {}) == "verified"
    assert verified_mark(False, {"submission": {"file": "a.json"}}) == "unverified (submitted)"
    assert verified_mark(False, {}) == "unverified"


GOOD = {"run_id": "r1", "suite": "cogscale", "task": "simple_copy", "model": "Net", "config": "small",
        "budget": "1k", "learning_rate": 1e-3, "metrics": {"test_score": 0.2}, "device": "cpu"}


def test_submission_formats_and_marks(tmp_path):
    rows_json = parse_submission(json.dumps([GOOD]).encode(), "x.json")
    rows_jsonl = parse_submission((json.dumps(GOOD) + "\n").encode(), "x.jsonl")
    record = {**GOOD, "metrics": json.dumps(GOOD["metrics"])}
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist([record]), buf)
    rows_pq = parse_submission(buf.getvalue(), "x.parquet")
    for got in (rows_json, rows_jsonl, rows_pq):
        (row,) = got
        # a visitor's row is never 'ours' (issue 12 item 4)
        assert (row.run_id, row.verified, row.source, row.metrics) == ("submitted-r1", False, "submitted", {"test_score": 0.2})
        assert row.settings["submission"]["file"].startswith("x.")
    paths = store_submission(rows_json, tmp_path)
    assert [p.name for p in paths] == ["submitted-r1.parquet"] and len(ResultStore(tmp_path)) == 1


@pytest.mark.parametrize("data,name,message", [
    (b"x" * (MAX_BYTES + 1), "big.json", f"the limit is {MAX_BYTES} bytes"),
    (pickle.dumps([GOOD]), "rows.json", "no pickle"),
    (pickle.dumps([GOOD]), "rows.pkl", "no pickle"),
    (json.dumps([GOOD]).encode(), "rows.py", "file type must be one of"),
    (b"PK\x03\x04zip", "rows.json", "no pickle or archives"),
    (b"{not json", "rows.json", "not valid JSON"),
    (b"PAR1garbage", "rows.parquet", "missing PAR1"),
    (json.dumps({"a": 1}).encode(), "rows.json", "list of row objects"),
    (json.dumps([{**GOOD, "exec": "import os"}]).encode(), "rows.json", "unknown columns ['exec']"),
    (json.dumps([{**GOOD, "param_count": "many"}]).encode(), "rows.json", "param_count must be a number"),
    (json.dumps([{**GOOD, "run_id": "../etc"}]).encode(), "rows.json", "run_id must be"),
    (json.dumps([GOOD, GOOD]).encode(), "rows.json", "must be unique"),
    (b"", "rows.json", "file is empty"),
])
def test_submission_rejections(data, name, message):
    with pytest.raises(SubmissionError, match=message.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        parse_submission(data, name)


def test_load_rows_reads_a_results_repo_folder(store, tmp_path, monkeypatch):
    from rote_hf.hub.results_repo import build_results_repo

    from rote_hf.results.shipped import shipped_frame

    shipped = len(shipped_frame())  # our reproduction rows, shipped with the package, are published too
    built = build_results_repo(tmp_path, store, include_failed=True)  # the test store holds unverified rows
    assert built.rows == {"ours": {"train": 67 + shipped}, "paper": {"train": 1279}}  # 32 ROTE + 32 CogScale + 3 LLM
    other = tmp_path / "empty-local"
    monkeypatch.setenv("ROTE_RESULTS_REPO", str(built.path))
    frame = load_rows(other)  # nothing local: our rows come from the repo folder
    assert (frame["source"] == "ours").sum() == 67 + shipped and frame["run_id"].is_unique
    both = load_rows(store)  # the same ids locally and in the repo: kept once
    assert len(both) == len(frame)


# -- issue 14 items 9-12: a leaderboard people can read ---------------------------------------------------

def test_rote_board_shows_one_line_per_model_and_track_by_default(tmp_path):
    from rote_hf.results import ResultRow
    from rote_hf.results.aggregate import rote_summary

    store = tmp_path
    make_store(store)
    # one of our runs under its registry name lands on the same line name as the paper's GRU
    ResultStore(store).append(ResultRow(
        run_id="rote-gru-registry", suite="rote", task="n2-c10", model="gru", model_config={"preset": "rote-paper"},
        task_params={"symbols": 2, "complexity": 10}, metrics={"DL": 0.25, "exact": 0.0}, device="cpu"))
    df = load_rows(store, repo="", shipped=False)  # the lines of this store's rows beside the paper's
    board = rote_board(df)
    assert set(board["table"]) == {"runs"}
    keys = list(zip(board["source"], board["track"], board["model"], board["variant"], board["device"]))
    assert len(keys) == len(set(keys))  # one line per model and track (and source, variant, device)
    assert len(board[board["source"] == "paper"]) == 8 + 6  # the archived fits: 8 main-track and 6 matched models
    gru = board[(board["model"] == "GRU") & (board["track"] == "rote")]
    assert sorted(zip(gru["source"], gru["variant"])) == [("ours", ""), ("ours", "preset rote-paper"),
                                                          ("paper", "units=128")]
    assert not any(m.islower() for m in board["model"])  # no registry names: display names only
    # the figures are rote_summary's
    ours = df[(df["source"] == "ours") & (df["model"] == "LSTM")]
    expected = rote_summary(ours, suite="rote").iloc[0]
    lstm = board[(board["model"] == "LSTM") & (board["source"] == "ours")].iloc[0]
    assert (lstm["runs"], lstm["DL_mean"]) == (expected["fits"], round(expected["DL_mean"], 4))
    # the published tables stay reachable through the table filter
    assert len(rote_board(df, table="table2_main_c90")) == 8 and len(rote_board(df, table="summary_by_model")) == 8
    with pytest.raises(ValueError, match=r"table must be one of \['all', 'runs', 'summary_by_model'"):
        rote_board(df, table="table9")


def test_cogscale_default_view_puts_ours_beside_the_paper(rows):
    board = cogscale_board(rows)
    ours = board[board["source"] == "ours"]
    assert len(ours) == 2 * 2 * 2  # 2 tasks x 2 models x 2 budgets
    # only the cells we ran, and in each, right after our line, the paper's line of the same model
    assert set(zip(board["task"], board["budget"])) == {(t, b) for t in ("adding_problem", "simple_copy") for b in ("1k", "10k")}
    for i in ours.index:
        mine, theirs = board.loc[i], board.loc[i + 1]
        assert theirs["source"] == "paper"
        assert [mine[k] for k in ("task", "difficulty", "budget", "model")] == \
               [theirs[k] for k in ("task", "difficulty", "budget", "model")]
    assert set(ours["model"]) == {"GRU", "Transformer"}  # our 'TransformerDecoder' rows meet the paper's name
    assert len(cogscale_board(rows, cells="all")) > len(board)


def test_plots_say_what_they_show(rows):
    from rote_hf.cogscale.tasks import TASKS
    from rote_hf.zoo.display import DISPLAY_NAMES

    curves = plots.complexity_curves(plots.one_track(rote_frame(rows)))
    # one series per architecture (8 on the main track), ours and the paper's in one colour, told apart by source;
    # ROTE's published Transformer is the encoder-decoder (our transformer-ed)
    assert sorted(set(curves["model"])) == sorted(["GRU", "LSTM", "LinearAttention", "Performer", "RWKV",
                                                   "TransformerEncDec", "minGRU", "minLSTM"])
    assert set(curves["model"]) <= set(DISPLAY_NAMES.values()) and set(curves["source"]) == {"ours", "paper"}
    # the radar covers all 14 tasks and names every model
    assert plots.RADAR_TASKS == tuple(TASKS) and len(TASKS) == 14
    svg = plots.radar_svg(plots.radar_data(rows, difficulty="small", source="paper"), title="small")
    assert svg.count('class="radar-task"') == 14 and svg.count('class="radar-legend"') == 7
    # the LLM bars: a legend entry per series in full, the y axis named by the metric
    bars = plots.llm_bars(llm_board(rows), "mean confidence")
    chart = plots.llm_bars_svg(bars, metric="mean confidence")
    assert chart.count('class="bars-legend"') == 4 and "meta-llama/llama-3.3-70b-instruct (paper)</text>" in chart
    assert ">mean confidence</text>" in chart and ">5</text>" in chart  # the 1-5 scale, not a bare "value"
