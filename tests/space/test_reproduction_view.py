"""The reproduction tab over HTTP (gradio_client), on a store holding a CogScale sweep of ours
(config ``repro_test``) made of published runs, copied exactly (agree, diff 0) or shifted
(disagree), and two ROTE fits of ``rote_paper`` made of ROTE's archived fits with known changes
(:func:`tests.space.rows.rote_paper_rows`), so every expected number is known."""

from __future__ import annotations

import pytest

import gradio_client

from rote_hf.results import ResultRow, ResultStore
from rote_hf.results.aggregate import published_cogscale_runs
from tests.space.conftest import serve_app
from tests.space.rows import make_store, rote_paper_rows

ALL = "all"
CONFIG = "repro_test"
#: (task, difficulty, budget, published model, our model, LR, shift added to each test score)
GROUPS = (("adding_problem", "small", "1k", "GRU", "gru", 1e-3, 0.0),
          ("simple_copy", "small", "1k", "ESN", "esn", None, 0.0),
          ("sinus_forecasting", "small", "10k", "LSTM", "lstm", 1e-2, 0.5))


def _copied_rows() -> list[ResultRow]:
    import json

    runs = published_cogscale_runs()
    rows = []
    for task, difficulty, budget, model, ours, lr, shift in GROUPS:
        sel = runs[(runs["task"] == task) & (runs["config"] == difficulty) & (runs["budget"] == budget)
                   & (runs["model"] == model)]
        sel = sel[sel["learning_rate"].isna()] if lr is None else sel[sel["learning_rate"] == lr]
        assert len(sel) == 10
        for rec in sel.itertuples():
            score = json.loads(rec.metrics)["test_score"] + shift
            rows.append(ResultRow(
                run_id=f"repro-{ours}-{task}-{rec.data_seed}", suite="cogscale", task=task, model=ours, config=difficulty,
                budget=budget, data_seed=rec.data_seed, init_seed=rec.data_seed, learning_rate=lr, protocol="cogscale",
                metrics={"test_score": score, "best_val_score": score}, score_name="test_score", score=score,
                config_name=CONFIG, source="ours"))
    return rows


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    base = tmp_path_factory.mktemp("reproduction")
    results = base / "results"
    make_store(results)
    store = ResultStore(results)
    for row in _copied_rows() + rote_paper_rows():
        store.append(row)
    with serve_app(base, results, shipped=True) as app:  # the real view: shipped rows included
        yield gradio_client.Client(app.url, verbose=False)


def table(result) -> list[dict]:
    frame = result[0]
    return [dict(zip(frame["headers"], row)) for row in frame["data"]]


def view(client, kind, model=ALL, difficulty=ALL, config=CONFIG):
    return client.predict(kind, model, difficulty, config, api_name="/reproduction")


def test_reproduction_endpoint_groups_and_summary(client):
    groups = {(r["task"], r["model"]): r for r in table(view(client, "all groups"))}
    assert set(groups) == {("adding_problem", "GRU"), ("simple_copy", "ESN"), ("sinus_forecasting", "LSTM")}
    gru = groups[("adding_problem", "GRU")]
    assert (gru["n_ours"], gru["n_paper"], gru["diff"], gru["agree"]) == (10, 10, 0.0, "yes")
    assert gru["mean_ours"] == gru["mean_paper"] and gru["learning_rate"] == 0.001
    lstm = groups[("sinus_forecasting", "LSTM")]
    assert lstm["diff"] == pytest.approx(0.5) and lstm["agree"] == "no" and lstm["z"] > 2
    assert "forecasting data ignore the seed" in lstm["cause"]
    assert "ESN reservoirs" in groups[("simple_copy", "ESN")]["cause"]

    by_model = table(view(client, "by model"))
    assert [(r["model"], r["groups"], r["agree"]) for r in by_model] == [("ESN", 1, 1), ("GRU", 1, 1), ("LSTM", 1, 0)]
    result = view(client, "by category")
    assert [(r["category"], r["agree"], r["tested"]) for r in table(result)] == [("classification", 1, 1),
                                                                                 ("regression", 0, 1)]
    headline = result[1]
    assert "**30** of our runs" in headline and "**50.0 % (1/2)** of the tested non-ESN groups" in headline
    assert "66.7 % (2/3) with the ESN" in headline

    worst = table(view(client, "worst groups"))
    assert [(r["task"], r["model"]) for r in worst] == [("sinus_forecasting", "LSTM")]
    only_gru = table(view(client, "all groups", model="GRU", difficulty="small"))
    assert [(r["task"], r["model"]) for r in only_gru] == [("adding_problem", "GRU")]
    assert table(view(client, "all groups", difficulty="medium")) == []

    cells = {(r["task"], r["model"]): r for r in table(view(client, "cells (LR chosen on test)"))}
    assert cells[("adding_problem", "GRU")]["complete"] == "no"  # one of five learning rates
    assert cells[("simple_copy", "ESN")]["complete"] == "yes" and cells[("simple_copy", "ESN")]["agree"] == "yes"


def test_reproduction_endpoint_without_runs(client):
    empty, text = view(client, "by model", config="no_such_sweep")
    assert empty["data"] == [] and "No runs of `no_such_sweep` yet" in text


def test_the_cells_view_states_the_cell_result(client):
    rows, text = view(client, "cells (LR chosen on test)")
    cells = table((rows, text))
    tested = [r for r in cells if r["agree"] in ("yes", "no")]
    agree = sum(r["agree"] == "yes" for r in tested)
    assert f"**{len(cells)}** cells" in text and f"**{agree}/{len(tested)}**" in text
    assert "groups (task, difficulty, budget, model, LR)" not in text  # the group headline belongs to the group views


def test_the_reproduction_plot_draws_every_group_and_the_diagonal(client):
    svg = client.predict(CONFIG, api_name="/reproduction_plot")
    groups = table(view(client, "all groups"))
    points = svg.count('r="2.6"')  # one marker per group (the legend's markers are larger)
    hollow = svg.count('r="2.6" fill="none"')  # groups outside 2 SE
    assert points == len(groups) == 3
    assert hollow == sum(r["agree"] == "no" for r in groups) == 1
    assert "ours = published" in svg and "LSTM" in svg


def test_the_model_filter_offers_the_names_the_report_shows():
    """The view's model choices are the display names its tables show (Transformer, not
    CogScale's TransformerDecoder): one name per model across every tab."""
    from rote_hf.leaderboard.reproduction import REPRODUCTION_MODELS
    from rote_hf.results.aggregate import REPRODUCTION_MODEL_NAMES
    from rote_hf.results.published import COGSCALE_MODEL_NAMES
    from rote_hf.zoo.display import display_name

    shown = {REPRODUCTION_MODEL_NAMES.get(m, m) for m in COGSCALE_MODEL_NAMES.values()}
    assert shown == {display_name(m) for m in COGSCALE_MODEL_NAMES.values()}
    assert set(REPRODUCTION_MODELS) == shown


# -- ROTE, fit by fit --------------------------------------------------------------------------------

def _archived(model: str, task: str):
    from rote_hf.results.published import rote_main_run_rows

    (row,) = [r for r in rote_main_run_rows() if (r.model, r.task, r.data_seed, r.run) == (model, task, 1, 1)]
    return row


def test_the_rote_fits_beside_their_archived_twins_in_process(tmp_path):
    """The tab's ROTE step on a store without shipped rows: our two fits and nothing else."""
    from rote_hf.leaderboard.serving import BoardService
    from rote_hf.leaderboard.tabs import REPRODUCTION_TAB

    store = make_store(tmp_path / "results")  # its ROTE rows are of config rote_smoke: not compared
    for row in rote_paper_rows():
        store.append(row)
    snap = BoardService(tmp_path / "results", shipped=False).snapshot()
    (step,) = [s for s in REPRODUCTION_TAB.steps if s.api_name == "reproduction_rote"]
    (text, summary, fits), warnings = REPRODUCTION_TAB.run(step, snap, {})
    assert warnings == []
    gru, encdec = _archived("GRU", "n2-c10"), _archived("Transformer", "n2-c30")
    assert encdec.metrics["DL"] == 0.0  # the archived twin is exact: ours (DL + 0.25) is not
    assert fits[["model", "paper_model", "task", "seed", "run"]].values.tolist() == [
        ["GRU", "GRU", "n2-c10", 1, 1], ["TransformerEncDec", "Transformer", "n2-c30", 1, 1]]
    assert fits[["epochs_ours", "epochs_paper", "DL_diff", "exact_ours", "exact_paper"]].values.tolist() == [
        [gru.epochs, gru.epochs, 0.0, "yes" if gru.metrics["DL"] == 0 else "no", "yes" if gru.metrics["DL"] == 0 else "no"],
        [encdec.epochs + 2, encdec.epochs, 0.25, "no", "yes"]]
    assert summary["model"].tolist() == ["GRU", "TransformerEncDec", "all"]
    assert summary[["fits", "epochs_equal", "accuracy_within", "exact_agree"]].values.tolist() == [
        [1, 1, 1, 1], [1, 0, 1, 0], [2, 1, 2, 1]]
    assert summary["DL_mad"].tolist() == [0.0, 0.25, 0.125]
    assert "**2** fits compared" in text and "same stopping epoch in **1/2**" in text
    assert "exact rollout agreeing in **1/2**" in text

    empty = BoardService(tmp_path / "nothing", shipped=False).snapshot()
    (text, summary, fits), _ = REPRODUCTION_TAB.run(step, empty, {})
    assert len(summary) == len(fits) == 0 and "No fit of `rote_paper`" in text and "--export-reproduction" in text


def test_the_rote_endpoint_serves_the_fits(client):
    text, summary, fits = client.predict(api_name="/reproduction_rote")
    lines = table((fits, None))
    ours = {(r["model"], r["task"]): r for r in lines if r["task"] in ("n2-c10", "n2-c30") and r["seed"] == 1}
    assert set(ours) == {("GRU", "n2-c10"), ("TransformerEncDec", "n2-c30")}
    encdec = ours[("TransformerEncDec", "n2-c30")]
    assert (encdec["paper_model"], encdec["DL_diff"], encdec["exact_ours"], encdec["exact_paper"]) == (
        "Transformer", 0.25, "no", "yes")
    assert encdec["epochs_ours"] - encdec["epochs_paper"] == 2
    total = [r for r in table((summary, None)) if r["model"] == "all"]
    assert total[0]["fits"] == len(lines) and f"**{len(lines)}** fits compared" in text  # shipped fits count too


def test_only_configs_with_a_published_counterpart_are_offered():
    """hf_zoo's transformers models were never run by CogScale: no reproduction to show."""
    from rote_hf.leaderboard.reproduction import reproduction_configs
    from rote_hf.results import rows_to_frame

    def row(model, config_name, suite="cogscale"):
        return ResultRow(run_id=f"{model}-{config_name}", suite=suite, task="simple_copy", model=model, config="small",
                         budget="10k", source="ours", config_name=config_name)

    frame = rows_to_frame([row("hf:olmo2", "hf_zoo"), row("gru", "repro_test"), row("hf:mamba2", "mixed"),
                           row("transformer-ed", "mixed"), row("TransformerDecoder", "named_as_published"),
                           ResultRow(run_id="r", suite="rote", task="n4-c10", model="gru", source="ours",
                                     config_name="rote_paper")])
    assert reproduction_configs(frame) == ["cogscale_paper", "mixed", "named_as_published", "repro_test"]
    assert reproduction_configs(frame.iloc[:1]) == ["cogscale_paper"]
