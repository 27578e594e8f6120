"""A failed run's row carries the columns known before the run (difficulty, seeds, learning rate), so the
board and the reproduction counts can place a failure where its run belongs."""

from __future__ import annotations

import math

from rote_hf.suites import budget_label
from rote_hf.train.config import SweepConfig, expand
from rote_hf.train.suites import failed_row
from tests.helpers import REPO_ROOT

CONFIGS = REPO_ROOT / "eval_suite" / "configs"


def test_failed_cogscale_rows_say_which_run_failed():
    specs = expand(SweepConfig.from_yaml(CONFIGS / "cogscale_paper.yaml"))
    gradient = next(s for s in specs if s.model["name"] == "xlstm" and s.task_params["difficulty"] == "medium"
                    and s.task_params["seed"] == 7 and s.protocol["learning_rate"] == 3e-4)
    esn = next(s for s in specs if s.model["name"] == "esn" and s.task_params["seed"] == 3)
    row = failed_row(gradient, ValueError("training loss is not finite (nan) at epoch 1, step 1: diverged"))
    assert (row.status, row.config, row.data_seed, row.init_seed, row.learning_rate) == ("failed", "medium", 7, 7, 3e-4)
    assert row.budget == budget_label(gradient.model) and row.error.startswith("ValueError: training loss is not finite")
    esn_row = failed_row(esn, RuntimeError("boom"))
    assert (esn_row.config, esn_row.data_seed, esn_row.learning_rate) == (esn.task_params["difficulty"], 3, None)


def test_failed_rote_rows_say_which_run_failed():
    specs = expand(SweepConfig.from_yaml(CONFIGS / "rote_smoke.yaml"))
    spec = specs[-1]
    row = failed_row(spec, ValueError("x"))
    assert row.config == f"s{spec.task_params['seed_index']}" and row.data_seed == spec.task_params["seed_index"]
    assert row.init_seed == spec.settings.base_seed + spec.run
    assert isinstance(row.learning_rate, float) and math.isfinite(row.learning_rate)
