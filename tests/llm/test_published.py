"""The MDL paper's LLM figures as source=paper rows, cross-checked against its per-row release."""

from __future__ import annotations

import math
from pathlib import Path

import rote_hf.results.published

import pytest

from rote_hf.metrics import confabulation
from rote_hf.results import load
from rote_hf.results.published import mdl_llm_rows, paper_rows

ROWS_FILE = Path(rote_hf.results.published.__file__).parent / "published" / "mdl_llm_eval_rows.txt"
MODELS = {"C": "anthropic/claude-sonnet-4.5", "G": "openai/gpt-4o", "L": "meta-llama/llama-3.3-70b-instruct"}


def test_published_headline_figures():
    rows = {(r.model, r.task): r for r in paper_rows("mdl")}
    assert len(rows) == 9 and all(r.source == "paper" and r.protocol == "llm-query" for r in rows.values())
    wild = {m: rows[(m, "wilderness")].metrics for m in MODELS.values()}
    # abstention in the wilderness 64.7 % / 95.0 % / 89.5 %, mean confidence 3.18 / 2.45 / 2.68
    assert [round(100 * w["abstention_rate"], 1) for w in wild.values()] == [64.7, 95.0, 89.5]
    assert [round(w["mean_confidence"], 2) for w in wild.values()] == [3.18, 2.45, 2.68]
    # correct next terms in the wilderness 16-41 %; every model "hedges" there
    assert [round(100 * w["accuracy"]) for w in wild.values()] == [41, 35, 16]
    assert all(w["hedges"] == 1.0 for w in wild.values())
    # confabulation higher on the clean stratum than in the wilderness, for every model
    for m in MODELS.values():
        assert rows[(m, "clean")].metrics["confabulation_rate"] > wild[m]["confabulation_rate"]
    # Llama: clean accuracy 25 % -> 0 % without recognised items; Claude right on 4/7 unrecognised
    llama = rows[(MODELS["L"], "clean")].metrics
    assert (llama["accuracy"], llama["accuracy_unrecognized"], llama["contamination_share"]) == (0.25, 0.0, 1.0)
    assert rows[(MODELS["C"], "clean")].metrics["accuracy_unrecognized"] == pytest.approx(4 / 7)
    assert sum(r.metrics["n_failed"] for r in rows.values()) == 12
    frame = load(None, include_paper=True, suite="mdl")
    assert len(frame) == 9 and set(frame["task"]) == {"clean", "revising", "wilderness"}


def _released_rows():
    out = []
    for line in ROWS_FILE.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        m, stratum, true, pred, conf, recog, abst, status = line.split()
        ok = status == "ok"
        out.append({
            "model": MODELS[m], "stratum": stratum, "reference": [int(x) for x in true.split(",")],
            "prediction": [int(x) for x in pred.split(",")] if ok else [],
            "confidence": int(conf) if ok else None, "recognized": recog == "1" if ok else None,
            "abstained": abst == "1", "status": status,
        })
    return out


def test_metric_on_released_rows_reproduces_published_rows():
    released = _released_rows()
    assert len(released) == 180
    for row in mdl_llm_rows():
        cell = [r for r in released if r["model"] == row.model and r["stratum"] == row.task]
        ours = confabulation([r["prediction"] for r in cell], [r["reference"] for r in cell],
                             [r["confidence"] for r in cell], [r["abstained"] for r in cell],
                             [r["recognized"] for r in cell], [r["status"] for r in cell])
        for key, published in row.metrics.items():
            assert key in ours, key
            assert ours[key] == pytest.approx(published, abs=1e-12) or (math.isnan(ours[key]) and math.isnan(published)), \
                (row.model, row.task, key)


def test_cross_model_agreement_reproduces_the_paper():
    from rote_hf.llm import agreement

    released = _released_rows()
    # llm_summary.json "agreement_across_models": items all three models answered, unanimous, majority
    published = {"clean": (17, 4, 9), "revising": (16, 1, 5), "wilderness": (16, 4, 9)}
    for stratum, expected in published.items():
        answers = {}
        for model in MODELS.values():
            cell = [r for r in released if r["model"] == model and r["stratum"] == stratum]
            # the released rows of each cell are in the same (A-number) order for every model
            assert len(cell) == 20
            answers[model] = {i: (r["prediction"] if r["status"] == "ok" else None) for i, r in enumerate(cell)}
        refs = [[r["reference"] for r in released if r["model"] == m and r["stratum"] == stratum] for m in MODELS.values()]
        assert refs[0] == refs[1] == refs[2]
        got = agreement(answers)
        assert (got["n_items"], got["unanimous"], got["majority"]) == expected
    with pytest.raises(ValueError, match="2 models"):
        agreement({"one": {}})
