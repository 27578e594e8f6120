"""`train.py --only FIELD=VALUE` trains part of a sweep with unchanged run ids, and the runs whose rows
ship with the package count as finished, so a reproduction resumed on a new machine trains only what is missing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rote_hf.results.shipped import shipped_failed_run_ids, shipped_provenance, shipped_run_ids
from rote_hf.train.config import SweepConfig, expand, select, spec_field
from tests.helpers import REPO_ROOT
from tests.train.test_train_script import _train_module

PAPER = REPO_ROOT / "eval_suite" / "configs" / "cogscale_paper.yaml"


@pytest.fixture(scope="module")
def paper_specs():
    return expand(SweepConfig.from_yaml(PAPER))


def test_select_keeps_order_and_run_ids(paper_specs):
    small = select(paper_specs, ["difficulty=small"])
    assert len(paper_specs) == 25_760 and len(small) == 12_880  # half of the grid, as the issue counts it
    assert [s.index for s in small] == sorted(s.index for s in small)
    assert {s.task_params["difficulty"] for s in small} == {"small"}
    part = select(paper_specs, ["difficulty=small", "model=gru,lstm", "budget=1k", "run=0"])
    assert len(part) == 2 * 14 * 5  # 2 models x 14 tasks x 5 learning rates
    assert {s.run_id for s in part} <= {s.run_id for s in paper_specs}
    assert select(paper_specs, []) == paper_specs


def test_select_by_seed_gives_the_rote_slice():
    """ROTE's reproduction slice (issue 30): 8 models x n = 4 x 5 complexities x seed 0 x run 0."""
    rote = expand(SweepConfig.from_yaml(REPO_ROOT / "eval_suite" / "configs" / "rote_paper.yaml"))
    tasks = ",".join(f"n4-c{c}" for c in (10, 30, 50, 70, 90))
    part = select(rote, [f"task={tasks}", "seed=0", "run=0"])
    assert len(part) == 40 and len({s.model["name"] for s in part}) == 8
    assert {s.task_params["seed_index"] for s in part} == {0} and {s.run for s in part} == {0}
    assert {s.task_params["symbols"] for s in part} == {4}


@pytest.mark.parametrize("only, message", [
    ("difficulty", "--only must be FIELD=VALUE"),
    ("size=small", "FIELD one of task, model, budget, difficulty, run, lr, seed"),
    ("seed=10", "--only seed: no run of this config has '10'; its values: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9"),
    ("lr=fast", "--only lr: learning rates are numbers (e.g. 1e-3) or 'published', got 'fast'"),
    ("lr=0.5", "--only lr: no run of this config has '0.5'; its values: , 0.0001, 0.0003, 0.001, 0.003, 0.01 (or published)"),
    ("difficulty=tiny", "--only difficulty: no run of this config has 'tiny'; its values: medium, small"),
    ("model=", "--only must be FIELD=VALUE"),
])
def test_select_refuses_bad_filters(paper_specs, only, message):
    with pytest.raises(ValueError) as err:
        select(paper_specs, [only])
    assert message in str(err.value)


def test_shipped_runs_count_as_finished(paper_specs):
    train = _train_module()
    shipped = shipped_run_ids("cogscale_paper")
    prov = shipped_provenance()
    assert len(shipped) == (prov["runs_ok"] if prov else 0)
    failed = shipped_failed_run_ids("cogscale_paper")
    assert len(failed) == len(prov["failed"]) > 0 and not failed & shipped
    todo = train.skip_shipped(paper_specs, "cogscale_paper")
    assert len(todo) == len(paper_specs) - len(shipped) - len(failed)
    assert not {s.run_id for s in todo} & (shipped | failed)
    # the runs shipped as failed stay failed unless retried, as runs stored as failed do
    retried = {s.run_id for s in train.skip_shipped(paper_specs, "cogscale_paper", retry_failed=True)}
    assert retried - {s.run_id for s in todo} == failed
    assert train.skip_shipped(paper_specs, "another_name") == paper_specs  # only the shipped config's own runs


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "OMP_NUM_THREADS": "1"}
    env.pop("MASTER_ADDR", None)
    return subprocess.run([sys.executable, str(REPO_ROOT / "eval_suite" / "train.py"), "--no-progress", "--no-table",
                           *args], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_cli_trains_nothing_already_shipped(tmp_path, paper_specs):
    only = ["--only", "difficulty=small", "--only", "model=gru", "--only", "budget=1k", "--only", "run=0",
            "--only", "task=adding_problem"]
    wanted = select(paper_specs, [a for a in only if a != "--only"])
    assert {s.run_id for s in wanted} <= shipped_run_ids("cogscale_paper")  # GRU small is shipped complete
    proc = _run("--config", "cogscale_paper", "--results", str(tmp_path / "r"), *only)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "5 of these 5 runs ship with the package" in proc.stdout
    assert not list((tmp_path / "r").rglob("*.parquet"))  # nothing trained, nothing stored


def test_cli_bad_only_is_one_line(tmp_path):
    proc = _run("--config", "cogscale_paper", "--results", str(tmp_path / "r"), "--only", "difficulty=huge")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "--only difficulty" in proc.stderr


def test_the_sweep_script_plans_every_cell_of_the_grid_once(paper_specs):
    """benchmarks/reproduction_sweep.sh lists (model, budgets, fleet size) lines; together they must cover
    every (model, budget) of cogscale_paper exactly once, with a valid fleet size."""
    import re

    script = (REPO_ROOT / "benchmarks" / "reproduction_sweep.sh").read_text()
    plan = re.search(r'PLAN="(.*?)"', script, re.S).group(1).strip().splitlines()
    planned = []
    for line in plan:
        model, budgets, fleet = line.split()
        assert int(fleet) >= 1
        planned += [(model, b) for b in budgets.split(",")]
    grid = sorted({(s.model["name"], spec_field(s, "budget")) for s in paper_specs})
    assert sorted(planned) == grid and len(planned) == len(set(planned)) == 20
    assert subprocess.run(["bash", "-n", str(REPO_ROOT / "benchmarks" / "reproduction_sweep.sh")]).returncode == 0



def test_only_lr_published_keeps_the_learning_rate_the_published_table_chose(paper_specs):
    """Phase A of the reproduction: per cell, only the runs at the LR the published table chose
    (mean test score over seeds, clipped at 1 and rounded to 2 dp, lowest; ties: the smaller LR),
    computed here from the published per-run file on its own."""
    import gzip

    import pandas as pd

    raw = pd.read_csv(gzip.open(REPO_ROOT / "rote_hf" / "results" / "published" / "cogscale_results.csv.gz"))
    raw = raw[(raw["Model"] == "GRU") & (raw["Difficulty"] == "medium")]
    means = raw.assign(test=raw["Test_Score"].clip(upper=1.0)).groupby(["Task", "Target_Params", "LR"])["test"].mean().round(2)
    oracle = {(task, {1000: "1k", 10000: "10k", 100000: "100k"}[budget]): format(g.droplevel([0, 1]).idxmin(), "g")
              for (task, budget), g in means.groupby(level=[0, 1])}
    kept = select(paper_specs, ["difficulty=medium", "model=gru", "lr=published"])
    assert len(kept) == 14 * 3 * 10  # one learning rate per cell, all 10 seeds
    chosen = {(s.task, spec_field(s, "budget")): spec_field(s, "lr") for s in kept}
    assert chosen == oracle
    assert select(paper_specs, ["difficulty=small", "model=gru", "budget=1k", "lr=1e-2,0.001"]) == \
        select(paper_specs, ["difficulty=small", "model=gru", "budget=1k", "lr=0.01,1e-3"])
