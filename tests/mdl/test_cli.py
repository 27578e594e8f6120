"""``rote-hf mdl`` and ``rote-hf mdl-sweep`` as a new user would run them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import REPO_ROOT, run_cli

FIXTURE = Path(__file__).parent / "fixtures" / "stripped_sample.txt"


def test_mdl_prints_operator_recurrence_and_spectrum():
    res = run_cli("mdl", "0,1,1,2,3,5,8,13,21,34,55,...", cwd=REPO_ROOT)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "L(H) = 22 bits" in out and "a(n + 2) = a(n) + a(n + 1)" in out
    assert "next terms: 89, 144, 233" in out and "discovery n_d = 7" in out
    assert out.count("\n") >= 6 + 3  # header lines + one row per prefix 6..11


def test_mdl_json_and_strict_encoding():
    res = run_cli("mdl", "0", "1", "3", "6", "10", "15", "21", "28", "36", "45", "55", "66", "--json", "--encoding", "strict", cwd=REPO_ROOT)
    data = json.loads(res.stdout)
    assert (data["order"], data["degree"], data["L_H"]) == (2, 1, 36)
    assert data["next"] == ["78", "91", "105"] or data["next"] == [78, 91, 105]


def test_mdl_bad_input_is_one_line():
    for args in (["mdl", "1,2,x,4"], ["mdl", "1,2,3"]):
        res = run_cli(*args, cwd=REPO_ROOT)
        assert res.returncode == 2 and res.stderr.count("\n") == 1 and "terms must" in res.stderr


def test_sweep_shards_and_resumes(tmp_path):
    out = tmp_path / "sweep.jsonl"
    base = ["mdl-sweep", "--stripped", str(FIXTURE), "--out", str(out), "--quiet", "--min-terms", "20"]
    first = run_cli(*base, "--shard", "0/2", "--workers", "2", cwd=REPO_ROOT)
    assert first.returncode == 0, first.stderr
    assert "2 written" in first.stdout and "4 kept of 9 lines" in first.stderr  # min_terms drops the empty entry
    second = run_cli(*base, "--shard", "1/2", cwd=REPO_ROOT)
    again = run_cli(*base, "--shard", "1/2", cwd=REPO_ROOT)
    assert "2 written" in second.stdout and "0 written, 2 already done" in again.stdout
    assert "regimes: clean 3, revising 0, prefix-only 0, no-fit 1" in again.stdout
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["anum"] for r in rows) == ["A000002", "A000045", "A000108", "A001057"]
    assert all(r["error"] is None for r in rows)


def test_build_oeis_mdl_from_the_cli(tmp_path):
    """The default build: classical, controls, the shipped generated sample and the LLM sample."""
    res = run_cli("build", "oeis-mdl", "--root", str(tmp_path), "--quiet", cwd=REPO_ROOT)
    assert res.returncode == 0, res.stderr
    assert "classical: train 122; controls: train 919; oeis: train 3259; llm-eval: test 60" in res.stdout
    card = (tmp_path / "rote" / "oeis-mdl" / "README.md").read_text()
    assert "96/440 revise under `loose`, 63/440 under `strict`" in card
    assert "clean 20, revising 20, wilderness 20" in card
