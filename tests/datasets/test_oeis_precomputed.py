"""The OEIS-MDL sweep of the shipped sample ships precomputed: used only while its inputs are
unchanged, and equal to what sweeping gives."""

from __future__ import annotations

from rote_hf.datasets.oeis_mdl import oeis_rows, read_precomputed, sweep_key, sweep_oeis
from rote_hf.mdl.sample import sample_path
from rote_hf.mdl.sweep import MdlSweepConfig


def test_the_shipped_sweep_is_current():
    assert read_precomputed() is not None, (
        "rote_hf/datasets/data/oeis_sample_sweep.json.gz is missing or its inputs changed (the sample, the learner "
        "settings or rote_hf/mdl): run `python dataset_scripts/oeis_precomputed.py` and commit the file")


def test_the_shipped_rows_equal_a_fresh_sweep_of_a_sample():
    rows, facts = read_precomputed()
    assert len(rows) == 3259 and facts["errors"] == 0
    fresh, _ = sweep_oeis(sample_path(), limit=40)
    shipped = {r["anum"]: r for r in rows}
    assert len(fresh) == 40 and all(shipped[r["anum"]] == r for r in fresh)


def test_the_build_uses_them_unless_asked_or_changed():
    rows, facts = oeis_rows()
    assert facts["how"] == "precomputed" and rows == read_precomputed()[0]
    assert oeis_rows(limit=5)[1]["how"] == "swept"
    other = MdlSweepConfig(budget=31)
    assert sweep_key(other) != sweep_key() and read_precomputed(other) is None
