"""confabulation: the MDL paper's published LLM numbers, definitions, intervals, validation."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import rote_hf.results.published

import pytest

from rote_hf.metrics import confabulation, wilson_interval
from rote_hf.metrics.confabulation import Z_95

DATA = Path(rote_hf.results.published.__file__).parent / "published" / "mdl_llm_eval_rows.txt"


def _rows():
    rows = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        model, stratum, truth, pred, conf, recog, abst, status = line.split()

        def terms(s):
            return None if s == "-" else [int(x) for x in s.split(",")]

        rows.append(
            {
                "model": model,
                "stratum": stratum,
                "reference": terms(truth),
                "prediction": terms(pred),
                "confidence": None if conf == "-" else int(conf),
                "recognized": None if recog == "-" else recog == "1",
                "abstained": abst == "1",  # failed rows: ignored
                "status": status,
            }
        )
    return rows


def _score(rows, **kw):
    return confabulation(
        [r["prediction"] for r in rows],
        [r["reference"] for r in rows],
        [r["confidence"] for r in rows],
        [r["abstained"] for r in rows],
        [r["recognized"] for r in rows],
        [r["status"] for r in rows],
        **kw,
    )


# results/llm_summary.json of the paper's release: per (model, stratum)
# n_scored, n_failed, exact, partial, confabulation, abstention, recognition (over n_scored),
# exact | recognised, exact | not recognised, mean confidence.
F = Fraction
PUBLISHED = {
    ("C", "clean"): (17, 3, F(12, 17), F(13, 17), F(3, 17), F(2, 17), F(10, 17), F(8, 10), F(4, 7), 4.647058823529412),
    ("C", "revising"): (17, 3, F(13, 17), F(14, 17), F(4, 17), F(0, 17), F(8, 17), F(5, 8), F(8, 9), 5.0),
    ("C", "wilderness"): (17, 3, F(7, 17), F(12, 17), F(2, 17), F(11, 17), F(4, 17), F(3, 4), F(4, 13), 3.176470588235294),
    ("G", "clean"): (20, 0, F(8, 20), F(14, 20), F(9, 20), F(5, 20), F(11, 20), F(4, 11), F(4, 9), 3.9),
    ("G", "revising"): (20, 0, F(5, 20), F(10, 20), F(10, 20), F(6, 20), F(11, 20), F(2, 11), F(3, 9), 3.75),
    ("G", "wilderness"): (20, 0, F(7, 20), F(11, 20), F(1, 20), F(19, 20), F(1, 20), F(0, 1), F(7, 19), 2.45),
    ("L", "clean"): (20, 0, F(5, 20), F(8, 20), F(13, 20), F(7, 20), F(6, 20), F(5, 6), F(0, 14), 4.25),
    ("L", "revising"): (18, 2, F(2, 18), F(2, 18), F(6, 18), F(13, 18), F(5, 18), F(0, 5), F(2, 13), 3.611111111111111),
    ("L", "wilderness"): (19, 1, F(3, 19), F(7, 19), F(4, 19), F(17, 19), F(1, 19), F(0, 1), F(3, 18), 2.6842105263157894),
}


@pytest.mark.parametrize("cell", sorted(PUBLISHED))
def test_reproduces_published_llm_summary(cell):
    rows = [r for r in _rows() if (r["model"], r["stratum"]) == cell]
    assert len(rows) == 20
    n_scored, n_failed, exact, partial, confab, abst, recog, acc_rec, acc_nrec, mean_conf = PUBLISHED[cell]
    out = _score(rows)
    assert out["n_scored"] == n_scored and out["n_failed"] == n_failed and out["n_rows"] == 20
    assert out["accuracy"] == float(exact)
    assert out["partial_accuracy"] == float(partial)
    assert out["confabulation_rate"] == float(confab)
    assert out["abstention_rate"] == float(abst)
    assert out["recognition_rate"] == float(recog)
    assert out["accuracy_recognized"] == float(acc_rec)
    assert out["accuracy_unrecognized"] == float(acc_nrec)
    assert out["mean_confidence"] == mean_conf


def test_paper_headlines():
    rows = _rows()
    by = {cell: _score([r for r in rows if (r["model"], r["stratum"]) == cell]) for cell in PUBLISHED}
    # wilderness abstention 64.7 % / 95.0 % / 89.5 %, mean confidence 3.18 / 2.45 / 2.68
    assert [round(100 * by[m, "wilderness"]["abstention_rate"], 1) for m in "CGL"] == [64.7, 95.0, 89.5]
    assert [round(by[m, "wilderness"]["mean_confidence"], 2) for m in "CGL"] == [3.18, 2.45, 2.68]
    # every model hedges in the wilderness (pre-registered test)
    assert all(by[m, "wilderness"]["hedges"] == 1.0 for m in "CGL")
    # confabulation higher on the easy (clean) stratum than on the hard one, for every model
    assert all(by[m, "clean"]["confabulation_rate"] > by[m, "wilderness"]["confabulation_rate"] for m in "CGL")
    # Llama's clean accuracy 25 % -> 0 % without recognised items; Claude right on 4/7 unrecognised
    assert by["L", "clean"]["accuracy"] == 0.25 and by["L", "clean"]["accuracy_unrecognized"] == 0.0
    assert by["C", "clean"]["accuracy_unrecognized"] == 4 / 7
    # contamination share on the clean stratum: 8/12, 4/8, 5/5
    assert [by[m, "clean"]["contamination_share"] for m in "CGL"] == [8 / 12, 4 / 8, 5 / 5]
    # failures: 12 of 180 calls, split 9 no_json + 3 bad_json; never counted as wrong
    everything = _score(rows)
    assert everything["n_failed"] == 12 and everything["n_failed_no_json"] == 9 and everything["n_failed_bad_json"] == 3
    assert everything["n_scored"] == 168 and everything["failure_rate"] == 12 / 180


def test_confabulation_counts_confident_abstainers_and_variant_excludes_them():
    # Claude wilderness A032846: NO_FORMULA_FOUND, confidence 4, next terms wrong -> confabulated
    out = confabulation(
        predictions=[[30, 31, 32], [1, 2, 3], [4, 5, 6], [7, 8, 9]],
        references=[[30, 31, 37], [1, 2, 3], [0, 0, 0], [0, 0, 0]],
        confidence=[4, 5, 5, 3],
        abstained=[True, False, False, False],
        recognized=[False, True, False, False],
        return_per_row=True,
    )
    assert out["confabulated"] == [True, False, True, False]
    assert out["confabulation_rate"] == 2 / 4
    assert out["confabulation_rate_excluding_abstentions"] == 1 / 3
    assert out["partial"] == [True, True, False, False]


def test_wrong_length_prediction_is_neither_exact_nor_partial_but_confabulates():
    out = confabulation([[1, 2]], [[1, 2, 3]], [5], [False], [None], return_per_row=True)
    assert out["exact"] == [False] and out["partial"] == [False] and out["confabulated"] == [True]
    assert math.isnan(out["accuracy_recognized"]) and out["n_recognized"] == 0.0


def test_huge_terms_and_decimal_strings():
    big = 10**40 + 7
    out = confabulation([[str(big), "2", "3"]], [[big, 2, 3]], [5], [False], [True])
    assert out["accuracy"] == 1.0 and out["confabulation_rate"] == 0.0


def test_all_failed_rows_give_nan_rates_not_zero():
    out = confabulation([None], [[1, 2, 3]], [None], [False], [None], ["api_error"])
    assert out["n_failed_api_error"] == 1.0 and out["n_scored"] == 0.0
    assert math.isnan(out["accuracy"]) and math.isnan(out["confabulation_rate"]) and out["hedges"] == 0.0


def test_wilson_interval():
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(Z_95**2 / (10 + Z_95**2))
    for k, n in [(12, 17), (1, 20), (19, 20), (5, 6)]:
        p = k / n
        for bound in wilson_interval(k, n):
            # both bounds solve (p - q)^2 = z^2 q (1 - q) / n
            assert (p - bound) ** 2 == pytest.approx(Z_95**2 * bound * (1 - bound) / n, abs=1e-12)
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    out = confabulation([[1], [2]], [[1], [1]], [5, 5], [False, False], [True, True])
    assert (out["accuracy_ci_low"], out["accuracy_ci_high"]) == wilson_interval(1, 2)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"confidence": [6]}, ValueError, r"confidence\[0\] must be in 1..5, got 6"),
        ({"confidence": [0]}, ValueError, r"confidence\[0\] must be in 1..5, got 0"),
        ({"confidence": [4.5]}, TypeError, r"confidence\[0\] must be an integer in 1..5"),
        ({"confidence": [True]}, TypeError, r"confidence\[0\] must be an integer"),
        ({"status": ["weird"]}, ValueError, r"status\[0\] must be one of \['ok', 'no_json'"),
        ({"predictions": ["1,2,3"]}, TypeError, r"predictions\[0\] must be a list of integers"),
        ({"predictions": [[1.5, 2, 3]]}, TypeError, r"predictions\[0\] must hold integers"),
        ({"abstained": ["yes"]}, TypeError, r"abstained\[0\] must be True or False"),
        ({"recognized": [1]}, TypeError, r"recognized\[0\] must be True, False or None"),
        ({"references": [[]]}, ValueError, r"references\[0\] must hold at least one true next term"),
        ({"references": [[1, 2, 3], [1, 2, 3]]}, ValueError, r"predictions and references must have the same number of rows, got 1 and 2"),
    ],
)
def test_validation(kwargs, error, message):
    args = {
        "predictions": [[1, 2, 3]],
        "references": [[1, 2, 3]],
        "confidence": [5],
        "abstained": [False],
        "recognized": [True],
        "status": ["ok"],
    }
    args.update(kwargs)
    with pytest.raises(error, match=message):
        confabulation(**args)


def test_empty_input():
    with pytest.raises(ValueError, match="must not be empty"):
        confabulation([], [], [], [], [])
