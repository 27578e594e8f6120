"""CogScale's 25,760 published runs, aggregated by our code, give its published table back."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from rote_hf.results.aggregate import cogscale_table
from rote_hf.results.published import DATA_DIR, cogscale_run_rows
from rote_hf.results.store import rows_to_frame


@pytest.fixture(scope="module")
def runs():
    return rows_to_frame(cogscale_run_rows())


def _published() -> dict[tuple[str, str, str, str], tuple[float, float]]:
    from rote_hf.results.published import COGSCALE_DIFFICULTY, COGSCALE_MODEL_NAMES

    out = {}
    with open(DATA_DIR / "cogscale_mean_std.csv", newline="") as fh:
        for rec in csv.DictReader(fh):
            for column, model in COGSCALE_MODEL_NAMES.items():
                if rec[column] != "nan":
                    mean, std = (float(x) for x in rec[column].split("±"))
                    out[(rec["task"], COGSCALE_DIFFICULTY[rec["difficulty"]], model, rec["budget"])] = (mean, std)
    return out


def test_the_per_run_file_is_complete(runs):
    assert len(runs) == 25_760 and set(runs["source"]) == {"paper"}
    assert runs["run_id"].is_unique
    per_cell = runs.groupby(["task", "config", "model", "budget", "learning_rate"], dropna=False).size()
    assert set(per_cell) == {10}  # ten seeds everywhere
    assert runs.groupby("model").size().to_dict()["ESN"] == 560


def test_lr_chosen_on_test_reproduces_the_published_table(runs):
    table = cogscale_table(runs, lr_selection="test", source="paper")
    published = _published()
    assert len(table) == len(published) == 560
    for rec in table.to_dict("records"):
        mean, std = published[(rec["task"], rec["difficulty"], rec["model"], rec["budget"])]
        # numpy's rounding (half to even after scaling), as the authors' pandas notebook rounded
        assert np.round(rec["mean"], 2) == pytest.approx(mean, abs=1e-9), rec
        assert np.round(rec["std"], 2) == pytest.approx(std, abs=1e-9), rec


def test_lr_chosen_on_validation_differs_from_the_published_table(runs):
    """The paper says validation; the published table used test. Choosing on validation (never
    better on test by construction) changes some cells: the documented gap."""
    on_test = cogscale_table(runs, lr_selection="test", source="paper").set_index(["task", "difficulty", "model", "budget"])
    on_val = cogscale_table(runs, lr_selection="validation", clip=True, source="paper").set_index(
        ["task", "difficulty", "model", "budget"])
    diff = (on_val["mean"].round(2) - on_test["mean"].round(2)).dropna()
    assert (diff >= -1e-9).all()  # the test-chosen LR is optimistic
    assert (diff > 1e-9).sum() == 28  # cogscale.md: 28 of 560 means differ
    # the spec's worst case: encoder-decoder, adding, small, 1k: 0.76 ± 0.07 vs the published 0.69 ± 0.06
    cell = ("adding_problem", "small", "TransformerEncDec", "1k")
    assert (np.round(on_val.loc[cell, "mean"], 2), np.round(on_val.loc[cell, "std"], 2)) == (0.76, 0.07)
    assert (np.round(on_test.loc[cell, "mean"], 2), np.round(on_test.loc[cell, "std"], 2)) == (0.69, 0.06)
