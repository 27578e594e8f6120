"""The ``rote/oeis-mdl`` mirror repo: configs load with ``load_dataset``; rebuilds are byte-identical."""

from __future__ import annotations

from pathlib import Path

import pytest

from rote_hf.datasets.oeis_mdl import build, llm_eval_rows, oeis_rows
from rote_hf.hub.targets import BUILD_TARGETS

FIXTURE = Path(__file__).parents[1] / "mdl" / "fixtures" / "stripped_sample.txt"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    roots = [tmp_path_factory.mktemp(f"mirror{k}") for k in range(2)]
    repos = [build(root, progress=False, oeis_limit=40, unplanted_trials=1, workers=1) for root in roots]
    return roots, repos


def test_target_is_registered():
    assert "oeis-mdl" in BUILD_TARGETS and BUILD_TARGETS.get("oeis-mdl") is build


def test_rebuild_is_byte_identical(built):
    (a, b), _ = built
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert files_a == files_b and len(files_a) == 5  # README + 4 parquet files
    for rel in files_a:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_configs_load_from_the_mirror_root(built, monkeypatch):
    from datasets import load_dataset

    (root, _), (repo, _) = built
    assert repo.rows["classical"] == {"train": 122}
    monkeypatch.chdir(root)
    classical = load_dataset("rote/oeis-mdl", "classical")["train"]
    fib = [r for r in classical if r["anum"] == "A000045" and r["encoding"] == "loose"][0]
    assert (fib["L_H"], fib["discovery_point"], fib["L_lit"][-1], fib["recurrence"]) == (22, 7, 759, "a(n + 2) = a(n) + a(n + 1)")
    assert fib["terms"][-1] == "3524578" and len(fib["rho"]) == len(fib["n_values"]) - 1 == 28
    cubes = [r for r in classical if r["name"] == "cubes" and r["encoding"] == "loose"][0]
    assert cubes["regime"] == "revising" and cubes["n_struct_revisions"] >= 1
    assert sum(r["discovery_point"] is not None for r in classical if r["encoding"] == "loose") == 46
    controls = load_dataset("rote/oeis-mdl", "controls")["train"]
    assert {r["family"] for r in controls} == {"growth", "phase", "deceptive", "unplanted"}
    d3 = [r for r in controls if r["name"] == "D_3"][0]
    assert (d3["discovery_point"], d3["refutations"], d3["stabilisation_point"], d3["peak_abs_rho"]) == (7, [8], 17, 4.5)
    oeis = load_dataset("rote/oeis-mdl", "oeis")["train"]
    assert len(oeis) == repo.rows["oeis"]["train"] == 40
    assert set(oeis["regime"]) <= {"clean", "revising", "prefix-only", "no-fit"}
    llm = load_dataset("rote/oeis-mdl", "llm-eval")["test"]
    assert all(len(r["shown"]) == 20 and len(r["answer"]) == 3 for r in llm)
    assert set(llm["stratum"]) <= {"clean", "revising", "wilderness"}
    card = (root / "rote" / "oeis-mdl" / "README.md").read_text()
    body = card.split("---", 2)[2]
    assert "CC BY-SA 4.0" in card and "oeissequences" in card and "{" not in body.split("## Citation")[0].replace("{r", "")
    assert "@misc{ganeshan2026induction," in body and "author = {Ganeshan, Sabilashan}" in body  # the MDL paper
    assert "@misc{oeis," in body and "OEIS Foundation Inc." in body  # the OEIS asks to be cited


def test_user_supplied_dump_and_llm_sample():
    rows, facts = oeis_rows(FIXTURE)
    assert [r["anum"] for r in rows] == ["A000002", "A000045", "A000108", "A001057"]  # A999998 is empty
    regimes = {r["anum"]: r["regime"] for r in rows}
    assert regimes == {"A000002": "no-fit", "A000045": "clean", "A000108": "clean", "A001057": "clean"}
    assert facts["source"].startswith("user-supplied") and facts["errors"] == 0
    fib = [r for r in rows if r["anum"] == "A000045"][0]
    assert (fib["n_available"], fib["budget"], fib["n_id"], fib["L_H"]) == (41, 30, 7, 22)
    llm = llm_eval_rows(rows)
    assert [r["anum"] for r in llm] == ["A000045", "A000108", "A001057"]
    assert llm[0]["shown"][:5] == ["0", "1", "1", "2", "3"] and llm[0]["answer"] == ["6765", "10946", "17711"]
