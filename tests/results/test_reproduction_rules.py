"""The reproduction report's three rules side by side: ours (Welch, borrowed variance), the strict
one (no borrowed variance, a diverged run disagrees) and the paired test over seed twins; the
agreement expected under the null from Student's t; and the figures on the shipped rows."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rote_hf.results import rows_to_frame
from rote_hf.results.aggregate import AGREE_ATOL, null_agreement, reproduction_report, welch_df
from rote_hf.results.reproduction import headline, null_expectation, rules_text, summary
from rote_hf.results.shipped import shipped_failed_rows, shipped_frame, shipped_provenance, with_shipped_failures
from tests.results.test_reproduction import _group, _row

PAPER = np.linspace(0.1, 1.0, 10)  # 10 published seeds, spread wide: a large unpaired standard error


def _constructed():
    paper, ours = [], []
    # twin-shifted: each of our seeds = its published twin + 0.05 (+ a tiny seed-wise wobble); the
    # unpaired test sees a 0.05 shift against a wide spread (agrees), the paired one a steady shift (disagrees)
    wobble = np.array([1, -1, 2, -2, 0, 1, -1, 0, 2, -2]) * 1e-3
    paper += _group("paper", "GRU", "simple_copy", 1e-3, PAPER)
    ours += _group("ours", "gru", "simple_copy", 1e-3, PAPER + 0.05 + wobble)
    # equal twins: every rule agrees (twice, so that 10 is the typical size)
    for model, zoo in (("LSTM", "lstm"), ("Transformer", "transformer")):
        paper += _group("paper", model, "adding_problem" if zoo == "transformer" else "simple_copy", 1e-3, PAPER)
        ours += _group("ours", zoo, "adding_problem" if zoo == "transformer" else "simple_copy", 1e-3, PAPER)
    # one surviving run of ours (seed 0): ours borrows the published variance and agrees; strict disagrees
    paper += _group("paper", "Transformer", "simple_copy", 1e-3, PAPER)
    ours += [_row("ours", "transformer", "simple_copy", 1e-3, 0, float(PAPER.mean()))]
    # one of our ten runs diverged (a failed row): agrees under ours and paired, not under strict
    paper += _group("paper", "Mamba", "simple_copy", 1e-3, PAPER)
    ours += _group("ours", "mamba", "simple_copy", 1e-3, PAPER[:9])
    ours += [_row("ours", "mamba", "simple_copy", 1e-3, 9, math.nan, status="failed")]
    # a published run diverged (a NaN test score): strict disagrees
    paper += _group("paper", "xLSTM", "simple_copy", 1e-3, [*PAPER[:9], math.nan])
    ours += _group("ours", "xlstm", "simple_copy", 1e-3, PAPER)
    # every run of ours diverged: no finite score, so ours and paired cannot test it, strict counts it
    paper += _group("paper", "GRU", "adding_problem", 1e-3, PAPER)
    ours += [_row("ours", "gru", "adding_problem", 1e-3, s, math.nan, status="failed") for s in range(3)]
    return reproduction_report(rows_to_frame(ours), rows_to_frame(paper)), wobble


def test_three_rules_on_constructed_groups():
    report, wobble = _constructed()
    assert {"agree_strict", "agree_paired", "n_pairs", "diff_paired", "se_paired", "diverged_ours",
            "diverged_paper"} <= set(report.columns)
    by = {(r.task, r.model): r for r in report.itertuples()}
    assert len(report) == 7

    shifted = by[("simple_copy", "GRU")]
    se = math.sqrt(2 * PAPER.std(ddof=1) ** 2 / 10)  # both sides have the published spread (up to the wobble)
    assert shifted.se == pytest.approx(math.sqrt(((PAPER + 0.05 + wobble).std(ddof=1) ** 2 + PAPER.std(ddof=1) ** 2) / 10))
    assert shifted.se == pytest.approx(se, rel=0.01) and shifted.agree and shifted.agree_strict
    d = 0.05 + wobble  # the twin differences, computed here
    assert shifted.n_pairs == 10 and shifted.diff_paired == pytest.approx(d.mean())
    assert shifted.se_paired == pytest.approx(d.std(ddof=1) / math.sqrt(10))
    assert abs(shifted.diff_paired) > 2 * shifted.se_paired + AGREE_ATOL and not shifted.agree_paired  # pairing tells

    equal = by[("simple_copy", "LSTM")]
    assert equal.agree and equal.agree_strict and equal.agree_paired and equal.se_paired == 0

    single = by[("simple_copy", "Transformer")]
    assert single.n_ours == 1 and single.agree and not single.agree_strict  # borrowed variance: strict says no
    assert single.n_pairs == 1 and pd.isna(single.agree_paired)  # one twin: no paired standard error

    lost = by[("simple_copy", "Mamba")]
    assert (lost.n_ours, lost.diverged_ours, lost.diverged_paper) == (9, 1, 0)
    assert lost.agree and lost.agree_paired and not lost.agree_strict

    lost_paper = by[("simple_copy", "xLSTM")]
    assert (lost_paper.n_paper, lost_paper.diverged_paper) == (9, 1)
    assert lost_paper.agree and not lost_paper.agree_strict

    gone = by[("adding_problem", "GRU")]
    assert (gone.n_ours, gone.diverged_ours) == (0, 3) and math.isnan(gone.mean_ours)
    assert pd.isna(gone.agree) and pd.isna(gone.agree_paired) and not gone.agree_strict

    ours, strict, paired = (headline(report, rule=r) for r in ("ours", "strict", "paired"))
    assert (ours["groups"], ours["tested"], ours["agree"]) == (7, 6, 6)
    assert (strict["tested"], strict["agree"]) == (7, 3)  # every group is decided; three survive
    assert (paired["tested"], paired["agree"]) == (5, 4)
    assert strict["fraction"] <= ours["fraction"]
    by_model = summary(report, "model").set_index("model")
    assert list(by_model.columns) == ["groups", "tested", "agree", "fraction", "strict", "paired"]
    assert by_model.loc["GRU", ["fraction", "strict", "paired"]].tolist() == [1.0, 0.5, 0.0]
    with pytest.raises(ValueError, match="rule must be one of"):
        headline(report, rule="lenient")


def test_agreement_expected_under_the_null_from_student_t():
    # 10 vs 10 runs: Welch-Satterthwaite gives 18 df under equal variances; P(|T_18| <= 2)
    assert welch_df(10, 10) == pytest.approx(18.0)
    a, b = 1 / 5, 1 / 10
    assert welch_df(5, 10) == pytest.approx((a + b) ** 2 / (a ** 2 / 4 + b ** 2 / 9))
    assert null_agreement(18) == pytest.approx(stats.t.cdf(2, 18) - stats.t.cdf(-2, 18), abs=1e-12)
    assert round(null_agreement(18), 3) == 0.939 and round(null_agreement(9), 3) == 0.923
    assert math.isnan(null_agreement(0))
    report, _ = _constructed()
    e = null_expectation(report, exclude=())
    # the typical tested group has 10 runs on each side and 10 twins
    assert (e["n_ours"], e["n_paper"], e["n_pairs"]) == (10, 10, 10)
    assert e["welch"] == pytest.approx(null_agreement(18)) and e["paired"] == pytest.approx(null_agreement(9))
    text = rules_text(report, exclude=())
    assert "our rule" in text and "strict" in text and "paired" in text
    assert "100.0 % (6/6)" in text and "42.9 % (3/7)" in text and "80.0 % (4/5)" in text
    assert "93.9 % for our rule and the strict one (10 vs 10 runs, t with 18 df)" in text
    assert "92.3 % for the paired test (10 twins, t with 9 df)" in text


def test_the_three_rules_on_the_shipped_rows_are_consistent():
    prov = shipped_provenance()
    if prov is None:
        pytest.skip("no reproduction rows are shipped in this checkout")
    shipped = shipped_frame()
    failed = shipped_failed_rows()
    assert len(failed) == prov["runs_failed"] and set(failed["status"]) == {"failed"}
    assert set(failed["run_id"]) == {f["run_id"] for f in prov["failed"]}
    both = with_shipped_failures(shipped)
    assert len(both) == len(shipped) + len(failed)
    report = reproduction_report(both)
    plain = reproduction_report(shipped)
    # the failures change no score: our rule and the paired test are the same with or without them
    key = ["task", "difficulty", "budget", "model", "learning_rate"]
    merged = plain.merge(report, on=key, suffixes=("", "_f"))
    assert len(merged) == len(plain)
    assert (merged["agree"].astype(object).fillna("NA") == merged["agree_f"].astype(object).fillna("NA")).all()
    assert int(report["diverged_ours"].sum()) == prov["runs_failed"]  # every listed failure finds its group
    ours, strict, paired = (headline(report, rule=r) for r in ("ours", "strict", "paired"))
    assert ours["tested"] > 1000 and strict["tested"] == ours["groups"] >= ours["tested"]
    assert strict["agree"] <= ours["agree"] and strict["fraction"] <= ours["fraction"]
    assert not (report["agree_strict"] & ~report["agree"].fillna(False)).any()  # strict agrees only where ours does
    diverged = (report["diverged_ours"] + report["diverged_paper"]) > 0
    assert not report.loc[diverged, "agree_strict"].any()
    assert paired["tested"] <= paired["groups"] and 0.5 < paired["fraction"] <= 1.0
    pairs = report["n_pairs"]
    assert (pairs <= report[["n_ours", "n_paper"]].min(axis=1)).all()
