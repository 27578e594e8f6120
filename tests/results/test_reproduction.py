"""The CogScale reproduction: the group-by-group agreement test (2 standard errors), the shipped
rows (export round trip, load), and ``rote-hf results --reproduction / --export-reproduction``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from rote_hf.results import ResultRow, ResultStore, load, rows_to_frame
from rote_hf.results.aggregate import REPRODUCTION_MODEL_NAMES, reproduction_report
from rote_hf.results.published import COGSCALE_MODEL_NAMES, cogscale_run_rows
from rote_hf.results.reproduction import cells, headline, known_cause, paired_runs, summary, worst
from rote_hf.reports.export import export_reproduction
from rote_hf.results.shipped import (
    SHIPPED_CONFIGS, shipped_failed_rows, shipped_frame, shipped_provenance, shipped_table,
)
from tests.helpers import run_cli

from rote_hf.zoo.display import DISPLAY_NAMES, display_name

COGSCALE_ZOO = ("esn", "gru", "lstm", "mamba", "transformer", "transformer-ed", "xlstm")
"""Our zoo names of the seven CogScale models."""
#: The published CogScale names -> our zoo names (the two meet on one display name).
PAPER_NAMES = {paper: zoo for zoo in COGSCALE_ZOO for paper in COGSCALE_MODEL_NAMES.values()
               if REPRODUCTION_MODEL_NAMES.get(paper, paper) == REPRODUCTION_MODEL_NAMES[zoo]}


def test_one_display_name_per_model_in_the_reproduction_and_every_tab():
    # every zoo model: the reproduction's name is the one the boards and plots show
    assert {z: REPRODUCTION_MODEL_NAMES[z] for z in DISPLAY_NAMES} == {z: display_name(z) for z in DISPLAY_NAMES}
    # every published CogScale name meets its zoo model on that name: TransformerDecoder is Transformer
    assert {p: REPRODUCTION_MODEL_NAMES.get(p, p) for p in COGSCALE_MODEL_NAMES.values()} == {
        "ESN": "ESN", "GRU": "GRU", "LSTM": "LSTM", "Mamba": "Mamba", "TransformerDecoder": "Transformer",
        "TransformerEncDec": "TransformerEncDec", "xLSTM": "xLSTM"}
    assert sorted(PAPER_NAMES.values()) == sorted(COGSCALE_ZOO)  # one zoo model per published name


def _row(source: str, model: str, task: str, lr: float | None, seed: int, score: float, *, budget: str = "1k",
         difficulty: str = "small", status: str = "ok", config_name: str = "cogscale_paper") -> ResultRow:
    return ResultRow(
        run_id=f"{source}-{model}-{task}-{difficulty}-{budget}-{lr}-{seed}", suite="cogscale", task=task, model=model,
        config=difficulty, budget=budget, data_seed=seed, learning_rate=lr, status=status,
        error="diverged" if status == "failed" else "", metrics={"test_score": score, "best_val_score": score},
        score_name="test_score", score=score, source=source, config_name=config_name if source == "ours" else "")


def _group(source, model, task, lr, scores, **kw):
    return [_row(source, model, task, lr, i, s, **kw) for i, s in enumerate(scores)]


def test_agreement_at_the_two_standard_error_boundary():
    paper_scores = np.array([0.30, 0.35, 0.40, 0.45, 0.50, 0.55])
    base = np.array([0.20, 0.28, 0.33, 0.41, 0.47, 0.52, 0.60])
    # Welch's SE of the difference, computed here independently of the code under test
    se = math.sqrt(base.std(ddof=1) ** 2 / 7 + paper_scores.std(ddof=1) ** 2 / 6)
    inside = base - base.mean() + paper_scores.mean() + 2 * se * 0.999
    outside = base - base.mean() + paper_scores.mean() - 2 * se * 1.001
    paper, ours = [], []
    for task, shifted in (("simple_copy", inside), ("adding_problem", outside)):
        paper += _group("paper", "GRU", task, 1e-3, paper_scores)
        ours += _group("ours", "gru", task, 0.001, shifted)
    # std 0 on both sides: agree only when the means are equal (up to AGREE_ATOL)
    paper += _group("paper", "LSTM", "simple_copy", 1e-2, [0.7] * 10) + _group("paper", "LSTM", "adding_problem", 1e-2, [0.7] * 10)
    ours += _group("ours", "lstm", "simple_copy", 1e-2, [0.7 + 1e-8] * 10) + _group("ours", "lstm", "adding_problem", 1e-2, [0.71] * 10)
    # one run of ours: its variance is borrowed from the paper's side; one run on both sides: untested
    paper += _group("paper", "xLSTM", "simple_copy", 1e-3, [0.2, 0.4]) + _group("paper", "Mamba", "simple_copy", 1e-3, [0.5])
    ours += _group("ours", "xlstm", "simple_copy", 1e-3, [0.9]) + _group("ours", "mamba", "simple_copy", 1e-3, [0.5])
    # the ESN has no learning rate; a failed run and a NaN score are not counted; another config is ignored
    paper += _group("paper", "ESN", "simple_copy", None, [0.1, 0.2, 0.3])
    ours += _group("ours", "esn", "simple_copy", None, [0.1, 0.2, 0.3, math.nan])
    ours += [_row("ours", "esn", "simple_copy", None, 9, math.nan, status="failed")]
    ours += _group("ours", "esn", "simple_copy", None, [5.0, 6.0], config_name="cogscale_smoke")
    # groups on one side only are left out
    paper += _group("paper", "GRU", "simple_copy", 1e-4, [0.1, 0.2])
    ours += _group("ours", "gru", "simple_copy", 3e-4, [0.1, 0.2])

    report = reproduction_report(rows_to_frame(ours), rows_to_frame(paper))
    assert list(report.columns[:5]) == ["task", "difficulty", "budget", "model", "learning_rate"]
    assert {"n_ours", "mean_ours", "std_ours", "n_paper", "mean_paper", "std_paper", "agree", "diff", "se", "z",
            "category", "cause"} <= set(report.columns)
    assert len(report) == 7
    by = {(r.task, r.model): r for r in report.itertuples()}
    ins, out = by[("simple_copy", "GRU")], by[("adding_problem", "GRU")]
    assert ins.se == pytest.approx(se, rel=1e-12) and out.se == pytest.approx(se, rel=1e-12)
    assert ins.diff == pytest.approx(2 * se * 0.999) and ins.z == pytest.approx(1.998) and ins.agree
    assert out.diff == pytest.approx(-2 * se * 1.001) and out.z == pytest.approx(-2.002) and not out.agree
    assert (ins.n_ours, ins.n_paper, ins.learning_rate, ins.category) == (7, 6, 0.001, "classification")
    assert by[("simple_copy", "LSTM")].agree and by[("simple_copy", "LSTM")].se == 0
    lstm_bad = by[("adding_problem", "LSTM")]
    assert not lstm_bad.agree and lstm_bad.z == math.inf
    x = by[("simple_copy", "xLSTM")]
    assert x.se == pytest.approx(math.sqrt(0.02 / 1 + 0.02 / 2)) and not x.agree  # |0.9 - 0.3| > 2 * 0.173
    assert pd.isna(by[("simple_copy", "Mamba")].agree) and math.isnan(by[("simple_copy", "Mamba")].se)
    esn = by[("simple_copy", "ESN")]
    assert math.isnan(esn.learning_rate) and (esn.n_ours, esn.mean_ours, esn.diff) == (3, pytest.approx(0.2), 0.0)
    assert esn.agree and "ESN reservoirs" in esn.cause

    h = headline(report)  # ESN left out; Mamba untested
    assert (h["groups"], h["tested"], h["agree"]) == (6, 5, 2) and h["fraction"] == pytest.approx(0.4)
    assert headline(report, exclude=())["agree"] == 3
    by_model = summary(report, "model").set_index("model")
    assert by_model.loc["GRU", ["groups", "agree"]].tolist() == [2, 1] and by_model.loc["ESN", "fraction"] == 1.0
    assert summary(report, "category")["category"].tolist() == ["classification"]
    bad = worst(report, 10)
    assert [(r.task, r.model) for r in bad.itertuples()] == [("simple_copy", "xLSTM"), ("adding_problem", "GRU"),
                                                            ("adding_problem", "LSTM")]
    assert "xlstm 2.0.6" in bad["cause"].iloc[0] and bad["cause"].iloc[1] == ""
    with pytest.raises(ValueError, match="by must be one of"):
        summary(report, "seed")
    with pytest.raises(TypeError, match="ours must be a pandas DataFrame"):
        reproduction_report([1, 2])


def test_known_causes():
    assert "sees the future" in known_cause("discrete_pattern_completion", "medium", "100k", "TransformerEncDec")
    assert known_cause("simple_copy", "small", "1k", "TransformerEncDec") == ""
    assert "threshold" in known_cause("cross_situation", "small", "1k", "GRU")
    assert known_cause("adding_problem", "small", "1k", "GRU") == ""


@pytest.fixture(scope="module")
def paper_runs():
    return rows_to_frame(cogscale_run_rows(), decode_json=False)


def test_published_runs_against_themselves_all_agree(paper_runs):
    subset = paper_runs[(paper_runs["task"] == "adding_problem") & (paper_runs["config"] == "small")].copy()
    subset["source"] = "ours"
    subset["config_name"] = "cogscale_paper"
    subset["model"] = [PAPER_NAMES[m] for m in subset["model"]]
    report = reproduction_report(subset, paper_runs)
    assert len(report) == 3 * 6 * 5 + 2  # 3 budgets x 6 models x 5 LRs + ESN at 1k and 10k
    names = {"ESN", "GRU", "LSTM", "Mamba", "Transformer", "TransformerEncDec", "xLSTM"}  # the boards' names
    assert set(report["model"]) == names
    assert report["agree"].all() and (report["diff"] == 0).all() and (report["z"] == 0).all()
    assert set(report["n_ours"]) == {10} and (report["n_ours"] == report["n_paper"]).all()
    assert (report["mean_ours"] == report["mean_paper"]).all()
    gru = report[(report["model"] == "GRU") & (report["budget"] == "1k") & (report["learning_rate"] == 1e-3)].iloc[0]
    assert gru["category"] == "classification" and gru["std_ours"] == gru["std_paper"] > 0
    pairs = paired_runs(subset, paper_runs)
    assert len(pairs) == 920 and (pairs["diff"] == 0).all()
    # the LR-chosen-on-test cells of the published runs give the published table back
    table = cells(subset)
    assert len(table) == 3 * 6 + 2 and table["complete"].all() and table["agree"].all()
    assert set(table["model"]) == names  # the published cells meet ours on the display name too
    assert (table["diff"].abs() <= 0.005 + 1e-9).all()
    cell = table[(table["model"] == "GRU") & (table["budget"] == "1k")].iloc[0]
    assert (round(cell["mean_ours"], 2), cell["mean_paper"], cell["std_paper"]) == (0.08, 0.08, 0.05)


TINY = """name: cogscale_paper
suite: cogscale
data: {tasks: [adding_problem], difficulties: [small], seeds: [0, 1]}
models:
  - {name: gru, preset: cogscale-paper, budget: 1000}
  - {name: esn, preset: cogscale, budget: 1000, search: {trials: 1, seed: 0}}
learning_rates: [1.0e-2]
protocol: {max_epochs: 3, patience: 2}
"""


@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory):
    """Four real runs of a tiny cogscale_paper-named sweep, plus one failed row and one stray row."""
    from rote_hf.train.config import SweepConfig, expand
    from rote_hf.train.loop import run_specs

    base = tmp_path_factory.mktemp("repro")
    config = base / "cogscale_paper.yaml"
    config.write_text(TINY)
    results = base / "results"
    specs = expand(SweepConfig.from_yaml(config))
    run_specs(specs[:3], results, progress=False)
    store = ResultStore(results)
    last = specs[3]
    store.append(ResultRow(run_id=last.run_id, suite="cogscale", task=last.task, model="esn", config="small",
                           status="failed", error="diverged: loss is nan", source="ours", config_name="cogscale_paper"))
    store.append(ResultRow(run_id="cogscale-gru-adding_problem-0000000000000000", suite="cogscale", task="adding_problem",
                           model="gru", config="small", config_name="cogscale_paper"))  # not a run of the config
    return config, results


def test_export_round_trip(tiny_store, tmp_path):
    config, results = tiny_store
    prov = export_reproduction(results, config=config, out_dir=tmp_path / "a", command="cmd")
    export_reproduction(results, config=config, out_dir=tmp_path / "b", command="cmd")
    for name in ("cogscale_paper.parquet", "cogscale_paper.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert (prov["runs_expected"], prov["runs_ok"], prov["runs_failed"], prov["runs_left"]) == (4, 3, 1, 0)
    # a failure is listed with the columns that place it in its group (the Space has no sweep config)
    assert prov["failed"] == [{"run_id": expand_ids(config)[3], "error": "diverged: loss is nan", "suite": "cogscale",
                               "task": "adding_problem", "model": "esn", "config": "small", "budget": "1k",
                               "learning_rate": None, "data_seed": 1}]
    failed = shipped_failed_rows(directory=tmp_path / "a")
    assert failed[["run_id", "status", "model", "config", "budget", "data_seed", "config_name"]].values.tolist() == [
        [expand_ids(config)[3], "failed", "esn", "small", "1k", 1, "cogscale_paper"]]
    group = reproduction_report(failed).iloc[0]  # our only run of the group diverged: strict counts it against us
    assert (group.model, group.n_ours, group.diverged_ours, group.n_paper) == ("ESN", 0, 1, 10)
    assert pd.isna(group.agree) and not group.agree_strict
    assert prov["command"] == "cmd" and len(prov["sweep_hash"]) == 16 and prov["git_commits"]
    assert prov["run_id"].startswith("derived") and "run_id" not in prov["stored_columns"]
    assert prov["constant_columns"]["source"] == "ours" and prov["constant_columns"]["verified"] is True
    assert prov["runs_by_model_difficulty"] == {"esn-small": {"expected": 2, "ok": 1, "failed": 1},
                                                "gru-small": {"expected": 2, "ok": 2, "failed": 0}}
    # Phase A: GRU's one cell at the published LR (1e-2 for adding_problem small 1k); the ESN has no LR
    assert prov["phase_a"] == {"gru-small-1k": {"cells": 1, "cells_complete": 1, "runs": 2, "runs_finished": 2}}
    assert shipped_provenance(directory=tmp_path / "a") == prov
    shipped = shipped_table(directory=tmp_path / "a").to_pandas()
    stored = load(results, decode_json=False)
    stored = stored[stored["status"] == "ok"].set_index("run_id").loc[sorted(shipped["run_id"])]
    assert len(shipped) == 3 and shipped["run_id"].tolist() == sorted(expand_ids(config)[:3])
    assert (shipped["source"] == "ours").all() and (shipped["status"] == "ok").all() and shipped["verified"].all()
    assert (shipped["config_name"] == "cogscale_paper").all()
    # every column rebuilt exactly (verified is set by the export)
    pd.testing.assert_frame_equal(shipped.set_index("run_id").drop(columns="verified"), stored.drop(columns="verified"),
                                  check_dtype=False)
    assert not stored["verified"].any()
    frame = shipped_frame("cogscale_paper", directory=tmp_path / "a")
    assert len(frame) == 3 and frame["metrics"].str.contains("test_score").all()
    report = reproduction_report(frame)  # our 1 learning rate x 2 seeds against the published 10 seeds
    assert set(report["model"]) == {"GRU", "ESN"} and report["n_ours"].tolist() in ([1, 2], [2, 1])
    # a tampered data file is refused
    (tmp_path / "a" / "cogscale_paper.parquet").write_bytes((tmp_path / "b" / "cogscale_paper.parquet").read_bytes()[:-8])
    with pytest.raises(ValueError, match="data_sha256"):
        shipped_table(directory=tmp_path / "a")


def expand_ids(config) -> list[str]:
    from rote_hf.train.config import SweepConfig, expand

    return [s.run_id for s in expand(SweepConfig.from_yaml(config))]


def test_load_includes_the_shipped_rows():
    frame = load(None, include_paper=True)
    ours = frame[frame["source"] == "ours"]
    shipped = shipped_frame()  # every shipped config
    runs_ok = {name: (shipped_provenance(name) or {}).get("runs_ok", 0) for name in SHIPPED_CONFIGS}
    assert len(ours) == len(shipped) == sum(runs_ok.values())
    assert ours["config_name"].value_counts().to_dict() == {k: v for k, v in runs_ok.items() if v}
    assert set(ours["status"]) <= {"ok"}
    assert ours["verified"].astype(bool).all() and (frame["source"] == "paper").sum() > 1000
    assert set(ours["run_id"]) == set(shipped["run_id"]) and ours["run_id"].is_unique


def test_cli_export_and_reproduction(tiny_store, tmp_path):
    config, results = tiny_store
    out = tmp_path / "ours"
    first = run_cli("results", "--export-reproduction", "--results", str(results), "--config", str(config), "--out", str(out))
    assert first.returncode == 0, first.stderr
    assert "exported 3 ok runs of cogscale_paper (1 failed" in first.stdout
    data = (out / "cogscale_paper.parquet").read_bytes()
    again = run_cli("results", "--export-reproduction", "--results", str(results), "--config", str(config), "--out", str(out))
    assert again.returncode == 0 and (out / "cogscale_paper.parquet").read_bytes() == data
    prov = shipped_provenance(directory=out)
    assert prov["command"] == (f"rote-hf results --export-reproduction --results {results} --config {config} --out {out}")
    rep = run_cli("results", "--reproduction", "--results", str(results), "--worst", "3")
    assert rep.returncode == 0, rep.stderr
    assert "headline (non-ESN groups within 2 SE):" in rep.stdout and "agreement by category:" in rep.stdout
    assert "GRU" in rep.stdout and "run by run" in rep.stdout
    shipped = run_cli("results", "--reproduction")
    assert shipped.returncode == 0
    assert ("headline" in shipped.stdout) == (shipped_provenance() is not None)
    assert ("Phase A (each cell at the published learning rate):" in shipped.stdout) == bool(
        (shipped_provenance() or {}).get("phase_a"))
    for args, message in ((("--export-reproduction",), "needs --results DIR"),
                          (("--reproduction", "--results", str(tmp_path / "missing")), "results folder not found"),
                          (("--reproduction", "--worst", "-1"), "--worst must be >= 0"),
                          (("--export-reproduction", "--results", str(tmp_path)), "must be a results store")):
        bad = run_cli("results", *args)
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr, (args, bad.stderr)
        assert len(bad.stderr.strip().splitlines()) == 1
    both = run_cli("results", "--reproduction", "--export-reproduction")
    assert both.returncode == 2 and "not allowed with" in both.stderr


def test_nothing_shipped_yet_works_and_says_so(tmp_path):
    from rote_hf.results.reproduction import markdown_report, text_report

    empty = shipped_frame("cogscale_paper", directory=tmp_path)
    assert len(empty) == 0 and shipped_provenance(directory=tmp_path) is None
    report = reproduction_report(empty)
    assert len(report) == 0 and {"task", "difficulty", "budget", "model", "learning_rate", "n_ours", "mean_ours",
                                 "std_ours", "n_paper", "mean_paper", "std_paper", "agree"} <= set(report.columns)
    assert math.isnan(headline(report)["fraction"]) and len(cells(empty)) == 0 and len(worst(report)) == 0
    assert "no group has runs on both sides yet" in text_report(report, cells(empty), None)
    assert "No reproduction rows are shipped yet" in markdown_report(report, cells(empty), None)


def test_the_docs_page_regenerates(tmp_path):
    import subprocess
    import sys

    from tests.helpers import REPO_ROOT

    doc = tmp_path / "page.md"
    doc.write_text("# hand-written\n\n<!-- BEGIN GENERATED -->\nstale\n<!-- END GENERATED -->\n\nfooter\n")
    png = tmp_path / "plot.png"
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "benchmarks" / "reproduction_report.py"), "--doc", str(doc),
                           "--plot", str(png)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    page = doc.read_text()
    assert page.startswith("# hand-written\n\n<!-- BEGIN GENERATED -->\n") and page.endswith("<!-- END GENERATED -->\n\nfooter\n")
    assert "stale" not in page
    prov = shipped_provenance()
    if prov:
        assert f"{prov['runs_ok']:,} finished" in page and "](plot.png)" in page and "**Headline**" in page
    else:
        assert "No reproduction rows are shipped yet" in page
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_export_adds_a_new_machines_store_to_what_is_shipped(tiny_store, tmp_path):
    """A sweep resumed on a new machine stores only the runs trained there: exporting it adds them to the
    shipped rows, and gives the same files as one store holding every run."""
    import shutil

    config, results = tiny_store
    ids = expand_ids(config)
    whole = export_reproduction(results, config=config, out_dir=tmp_path / "whole", command="cmd")
    store = ResultStore(results)
    for name, part in (("first", ids[:2]), ("second", ids[2:])):
        (tmp_path / name / "runs").mkdir(parents=True)
        for rid in part:
            shutil.copy(store.path_of(rid), tmp_path / name / "runs" / store.path_of(rid).name)
    out = tmp_path / "ours"
    assert export_reproduction(tmp_path / "first", config=config, out_dir=out, command="cmd")["runs_ok"] == 2
    merged = export_reproduction(tmp_path / "second", config=config, out_dir=out, command="cmd")
    assert merged == whole and (merged["runs_ok"], merged["runs_failed"]) == (3, 1)
    assert (out / "cogscale_paper.parquet").read_bytes() == (tmp_path / "whole" / "cogscale_paper.parquet").read_bytes()


def test_cost_table_sums_the_runs_time(tiny_store, tmp_path):
    from rote_hf.results.reproduction import cost_table

    config, results = tiny_store
    export_reproduction(results, config=config, out_dir=tmp_path, command="cmd")
    ours = shipped_frame("cogscale_paper", directory=tmp_path)
    table = cost_table(ours)
    assert list(table.columns) == ["model", "difficulty", "budget", "runs", "median_s", "total_h"]
    assert table["runs"].sum() == 3 and set(table["model"]) == {"gru", "esn"}
    for rec in table.itertuples():
        times = ours[(ours["model"] == rec.model) & (ours["budget"] == rec.budget)]["train_time_s"]
        assert rec.total_h == pytest.approx(times.sum() / 3600) and rec.median_s == pytest.approx(times.median())
    assert len(cost_table(ours.iloc[:0])) == 0


def test_phase_a_progress_is_priced_at_the_measured_mean(tmp_path):
    from rote_hf.reports.export import phase_a_counts
    from rote_hf.results.reproduction import markdown_report, phase_a_table, phase_a_text
    from rote_hf.train.config import SweepConfig, expand

    config = tmp_path / "cogscale_paper.yaml"  # GRU 1k at 1e-2: the published choice for both small tasks
    config.write_text(TINY.replace("seeds: [0, 1]", "seeds: [0, 1, 2]").replace("[adding_problem]",
                                                                                "[adding_problem, simple_copy]"))
    specs = expand(SweepConfig.from_yaml(config))
    adding = {s.run_id for s in specs if s.model["name"] == "gru" and s.task == "adding_problem"}
    copy = [s.run_id for s in specs if s.model["name"] == "gru" and s.task == "simple_copy"]
    assert phase_a_counts(specs, adding | {copy[0]}) == {
        "gru-small-1k": {"cells": 2, "cells_complete": 1, "runs": 6, "runs_finished": 4}}
    prov = {"phase_a": {"gru-medium-1k": {"cells": 14, "cells_complete": 4, "runs": 140, "runs_finished": 50},
                        "gru-medium-100k": {"cells": 14, "cells_complete": 0, "runs": 140, "runs_finished": 0},
                        "gru-small-1k": {"cells": 14, "cells_complete": 14, "runs": 140, "runs_finished": 140}}}
    cost = pd.DataFrame({"model": ["gru", "gru"], "difficulty": ["medium", "small"], "budget": ["1k", "1k"],
                         "runs": [50, 140], "median_s": [1.0, 1.0], "total_h": [0.5, 1.0]})
    table = phase_a_table(prov, cost)
    assert table[["difficulty", "budget", "complete", "runs_left"]].values.tolist() == [
        ["medium", "1k", 4, 90], ["medium", "100k", 0, 140], ["small", "1k", 14, 0]]
    assert table["mean_s"].iloc[0] == pytest.approx(36.0) and table["left_h"].iloc[0] == pytest.approx(0.9)
    assert math.isnan(table["left_h"].iloc[1])  # no GRU medium 100k run finished: no cost to go by
    assert phase_a_text(table) == ("18 of 42 Phase A cells complete; 230 runs left, 90 of them costing about 0.9 "
                                   "CPU-hours at the measured means, 140 with no measured cost yet (no finished run "
                                   "of their model, difficulty and budget)")
    page = markdown_report(pd.DataFrame(), None, {**prov, "runs_ok": 1, "runs_failed": 0, "runs_left": 1,
                                                  "runs_expected": 2, "config_name": "c", "sweep_hash": "h",
                                                  "git_commits": [], "first_timestamp": "t0", "last_timestamp": "t1",
                                                  "command": "x", "runs_by_model_difficulty": {}}, cost=cost)
    assert "| gru | medium | 100k | 14 | 0 | 140 | – | – |" in page and "Every small cell is complete." in page
    assert "| gru | small |" not in page.split("Phase A")[1]
    assert phase_a_table(None, cost).empty and phase_a_table({"phase_a": {}}, None).empty


def test_an_export_keeps_the_failures_listed_before(tiny_store, tmp_path):
    """A store on a new machine holds only its own runs: the failures the last export listed stay
    listed (nothing is lost), unless this store holds that run again."""
    import shutil

    config, results = tiny_store
    ids = expand_ids(config)
    out = tmp_path / "ours"
    first = export_reproduction(results, config=config, out_dir=out, command="cmd")
    assert [(f["run_id"], f["error"], f["model"], f["data_seed"]) for f in first["failed"]] == [
        (ids[3], "diverged: loss is nan", "esn", 1)]
    store = ResultStore(results)
    (tmp_path / "new" / "runs").mkdir(parents=True)
    shutil.copy(store.path_of(ids[0]), tmp_path / "new" / "runs" / store.path_of(ids[0]).name)
    again = export_reproduction(tmp_path / "new", config=config, out_dir=out, command="cmd")
    assert again["failed"] == first["failed"] and (again["runs_ok"], again["runs_failed"], again["runs_left"]) == (3, 1, 0)
