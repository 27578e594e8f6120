"""The ROTE reproduction, fit by fit (rote_hf.results.rote_reproduction), its shipping (the export
of a ROTE sweep) and its generated block of docs/reproduction.md. Our rows are constructed from
the archived fits with known changes, so every expected number follows from the archive."""

from __future__ import annotations

import dataclasses

import pytest

from rote_hf.results import ResultRow, ResultStore, rows_to_frame
from rote_hf.results.aggregate import REPRODUCTION_MODEL_NAMES
from rote_hf.results.published import rote_main_run_rows
from rote_hf.results.rote_reproduction import (
    ACCURACY_TOL, PAIR_COLUMNS, ROTE_PAPER_MODEL_NAMES, fit_pairs, fit_summary, markdown, summary_text,
)
from rote_hf.results.shipped import SHIPPED_CONFIGS, shipped_frame, shipped_provenance
from rote_hf.reports.export import export_reproduction
from rote_hf.train.config import SweepConfig, expand
from rote_hf.zoo.display import display_name, published_display_name
from tests.helpers import REPO_ROOT

OURS_OF = {paper: zoo for zoo, paper in ROTE_PAPER_MODEL_NAMES.items()}


def archived(model: str, task: str, seed: int = 0, run: int = 0) -> ResultRow:
    """The archived fit of ROTE's ``model`` (the archive's name) on ``task``, seed index, run."""
    (row,) = [r for r in rote_main_run_rows() if (r.model, r.task, r.data_seed, r.run) == (model, task, seed, run)]
    return row


def ours(paper: ResultRow, *, model: str | None = None, config_name: str = "rote_paper", status: str = "ok",
         epochs: int = 0, accuracy: float = 0.0, dl: float = 0.0, jw: float = 0.0) -> ResultRow:
    """Our fit of ``paper``'s cell: its values shifted by ``epochs``/``accuracy``/``dl``/``jw``
    (DL 0 is an exact rollout, as the suite writes ``exact``)."""
    m = paper.metrics
    new_dl = m["DL"] + dl
    metrics = {**m, "test_accuracy": m["test_accuracy"] + accuracy, "DL": new_dl, "JW": m["JW"] + jw,
               "exact": float(new_dl == 0.0)}
    return dataclasses.replace(
        paper, run_id=f"ours-{paper.run_id}-{model or ''}-{config_name}", model=model or OURS_OF[paper.model],
        source="ours", config_name=config_name, status=status, error="killed" if status == "failed" else "",
        verified=False, epochs=paper.epochs + epochs, metrics=metrics, score=new_dl, device="cpu", model_config={"preset": "rote-paper"})


def test_the_model_names_meet_the_archive_and_leave_cogscale_as_it_is():
    config = SweepConfig.from_yaml(REPO_ROOT / "eval_suite" / "configs" / "rote_paper.yaml")
    assert {s.model["name"] for s in expand(config)} == set(ROTE_PAPER_MODEL_NAMES)
    assert set(ROTE_PAPER_MODEL_NAMES.values()) == {r.model for r in rote_main_run_rows()}
    # ROTE's Transformer is the encoder-decoder; CogScale's TransformerDecoder still meets the decoder
    assert ROTE_PAPER_MODEL_NAMES["transformer-ed"] == "Transformer"
    assert REPRODUCTION_MODEL_NAMES["TransformerDecoder"] == REPRODUCTION_MODEL_NAMES["transformer"] == "Transformer"
    assert REPRODUCTION_MODEL_NAMES["transformer-ed"] == "TransformerEncDec"
    # the boards read the archive's names as the comparison does: each meets our model's display name
    assert {published_display_name(p, "rote") for p in ROTE_PAPER_MODEL_NAMES.values()} == {
        display_name(z) for z in ROTE_PAPER_MODEL_NAMES}
    assert all(published_display_name(p, "rote") == display_name(z) for z, p in ROTE_PAPER_MODEL_NAMES.items())
    assert published_display_name("TransformerDecoder", "cogscale") == "Transformer"
    assert "rote_paper" in SHIPPED_CONFIGS


def test_fits_are_paired_with_their_archived_twins_and_compared():
    gru10, gru30 = archived("GRU", "n4-c10"), archived("GRU", "n4-c30")
    ed = archived("Transformer", "n4-c50")
    perf = archived("Performer", "n4-c50", seed=1, run=1)
    assert ed.metrics["DL"] > 0 and perf.epochs > 2  # the archive's values these shifts act on
    rows = [
        ours(gru10),                                                       # equal in every respect
        ours(gru30, epochs=3, accuracy=-0.02, dl=0.25, jw=0.125),          # another trajectory
        ours(ed, epochs=-1, accuracy=ACCURACY_TOL / 2, dl=-ed.metrics["DL"]),  # exact where the paper is not
        ours(perf, epochs=-2, accuracy=0.005),
        # left out: our decoder-only transformer (not ROTE's Transformer), another config, a failed fit
        ours(ed, model="transformer"),
        ours(gru10, config_name="rote_smoke"),
        ours(archived("LSTM", "n4-c10"), status="failed"),
    ]
    pairs = fit_pairs(rows_to_frame(rows + [archived("GRU", "n4-c50")]))  # a paper row among ours: not ours
    assert list(pairs.columns) == PAIR_COLUMNS and len(pairs) == 4
    by = {(r.model, r.task, r.seed, r.run): r for r in pairs.itertuples()}
    assert list(by) == [("GRU", "n4-c10", 0, 0), ("GRU", "n4-c30", 0, 0), ("Performer", "n4-c50", 1, 1),
                        ("TransformerEncDec", "n4-c50", 0, 0)]
    same = by[("GRU", "n4-c10", 0, 0)]
    assert (same.epochs_diff, same.accuracy_diff, same.DL_diff, same.JW_diff) == (0, 0.0, 0.0, 0.0)
    assert (same.epochs_ours, same.DL_paper, same.n, same.c) == (gru10.epochs, gru10.metrics["DL"], 4, 10)
    moved = by[("GRU", "n4-c30", 0, 0)]
    assert (moved.epochs_ours, moved.epochs_paper, moved.epochs_diff) == (gru30.epochs + 3, gru30.epochs, 3)
    assert moved.accuracy_diff == pytest.approx(-0.02) and moved.DL_diff == pytest.approx(0.25)
    assert moved.JW_diff == pytest.approx(0.125) and moved.exact_ours == 0.0
    encdec = by[("TransformerEncDec", "n4-c50", 0, 0)]
    assert (encdec.paper_model, encdec.DL_ours, encdec.exact_ours, encdec.exact_paper) == ("Transformer", 0.0, 1.0, 0.0)
    assert encdec.DL_paper == ed.metrics["DL"] and encdec.epochs_diff == -1

    summary = fit_summary(pairs).set_index("model")
    assert list(summary.index) == ["GRU", "Performer", "TransformerEncDec", "all"]
    assert summary.loc["GRU", ["fits", "epochs_equal", "accuracy_within", "exact_agree"]].tolist() == [2, 1, 1, 2 - (
        gru30.metrics["DL"] == 0.0)]
    assert summary.loc["GRU", "DL_mad"] == pytest.approx(0.125) and summary.loc["GRU", "JW_mad"] == pytest.approx(0.0625)
    assert summary.loc["TransformerEncDec", ["paper_model", "exact_agree", "exact_ours", "exact_paper"]].tolist() == [
        "Transformer", 0, 1, 0]
    assert summary.loc["Performer", ["epochs_equal", "accuracy_within"]].tolist() == [0, 1]
    total = summary.loc["all"]
    assert (total["fits"], total["epochs_equal"], total["accuracy_within"]) == (4, 1, 3)
    assert total["DL_mad"] == pytest.approx((0.25 + ed.metrics["DL"]) / 4)
    text = summary_text(fit_summary(pairs))
    assert text.startswith("4 fits compared") and "same stopping epoch in 1/4" in text
    assert "test accuracy within 0.01 in 3/4" in text


def test_no_fit_of_ours_gives_empty_tables_and_says_so():
    empty = fit_pairs(rows_to_frame([ours(archived("GRU", "n4-c10"), config_name="other")]))
    assert len(empty) == 0 and list(empty.columns) == PAIR_COLUMNS and len(fit_summary(empty)) == 0
    assert summary_text(fit_summary(empty)) == "No fit of `rote_paper` is paired with an archived fit yet."
    assert "No ROTE rows are shipped yet" in markdown(empty, fit_summary(empty), None)
    with pytest.raises(TypeError, match="ours must be a pandas DataFrame"):
        fit_pairs([1])


TINY_ROTE = """\
name: rote_paper
suite: rote
data:
  seeds: {source: paper, track: main, symbols: [4], complexities: [10, 30], seed_count: 1}
models:
  - {name: gru, preset: rote-paper}
  - {name: transformer-ed, preset: rote-paper}
protocol: {max_epochs: 200, patience: 10}
runs: 1
"""


def test_a_rote_sweep_exports_and_ships(tmp_path):
    """The export of a ROTE config keys its counts by model and n (ROTE has no difficulty); the
    shipped rows come back and pair with the archive. No training: rows built from the specs."""
    config = tmp_path / "rote_paper.yaml"
    config.write_text(TINY_ROTE)
    specs = expand(SweepConfig.from_yaml(config))
    assert [(s.model["name"], s.task) for s in specs] == [("gru", "n4-c10"), ("transformer-ed", "n4-c10"),
                                                          ("gru", "n4-c30"), ("transformer-ed", "n4-c30")]
    store = ResultStore(tmp_path / "results")
    paper = {("gru", "n4-c10"): archived("GRU", "n4-c10"), ("transformer-ed", "n4-c10"): archived("Transformer", "n4-c10"),
             ("gru", "n4-c30"): archived("GRU", "n4-c30")}
    for spec in specs[:3]:
        row = ours(paper[(spec.model["name"], spec.task)], epochs=1)
        store.append(dataclasses.replace(row, run_id=spec.run_id, config_hash=spec.run_id.rsplit("-", 1)[1],
                                         model=spec.model["name"]))
    store.append(ResultRow(run_id=specs[3].run_id, suite="rote", task="n4-c30", model="transformer-ed", config="s0",
                           status="failed", error="killed", source="ours", config_name="rote_paper"))
    out = tmp_path / "ours"
    prov = export_reproduction(tmp_path / "results", config=config, out_dir=out, command="cmd")
    assert (prov["runs_expected"], prov["runs_ok"], prov["runs_failed"], prov["runs_left"]) == (4, 3, 1, 0)
    assert prov["runs_by_model_difficulty"] == {"gru-n4": {"expected": 2, "ok": 2, "failed": 0},
                                                "transformer-ed-n4": {"expected": 2, "ok": 1, "failed": 1}}
    assert prov["phase_a"] == {}  # ROTE has no published learning-rate choice
    assert prov["failed"] == [{"run_id": specs[3].run_id, "error": "killed", "suite": "rote", "task": "n4-c30",
                               "model": "transformer-ed", "config": "s0", "budget": "", "learning_rate": 3e-4,
                               "data_seed": 0}]
    shipped = shipped_frame("rote_paper", directory=out)
    assert sorted(shipped["run_id"]) == sorted(s.run_id for s in specs[:3])
    assert (shipped["config_name"] == "rote_paper").all() and shipped["verified"].all()
    pairs = fit_pairs(shipped)
    assert pairs[["model", "task", "epochs_diff", "DL_diff"]].values.tolist() == [
        ["GRU", "n4-c10", 1, 0.0], ["GRU", "n4-c30", 1, 0.0], ["TransformerEncDec", "n4-c10", 1, 0.0]]
    block = markdown(pairs, fit_summary(pairs), shipped_provenance("rote_paper", directory=out), command="regen")
    assert "**Fits**: 3 finished (ok), 1 failed, 0 left of the 4 of `rote_paper`" in block
    assert "| TransformerEncDec | Transformer | 1 | 0 | 1 |" in block and "generated by: regen" in block
    assert "| GRU | n4-c30 | 0 | 0 |" in block


def test_the_docs_block_is_what_the_shipped_rows_give():
    """docs/reproduction.md's ROTE block equals the generator's output from the shipped rows: a new
    export without `python benchmarks/reproduction_report.py` fails here."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("reproduction_report", REPO_ROOT / "benchmarks" / "reproduction_report.py")
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    page = (REPO_ROOT / "docs" / "reproduction.md").read_text()
    pairs = fit_pairs()
    fresh = report.replace_block(page, report.ROTE_BEGIN, report.ROTE_END, markdown(
        pairs, fit_summary(pairs), shipped_provenance("rote_paper"), command=report.COMMAND))
    assert page == fresh, "docs/reproduction.md's ROTE block is stale: run python benchmarks/reproduction_report.py"
    prov = shipped_provenance("rote_paper")
    assert (prov is None) == ("No ROTE rows are shipped yet" in page)
