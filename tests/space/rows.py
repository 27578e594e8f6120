"""A small, deterministic results store for the leaderboard tests: our ROTE, CogScale and
LLM-query rows (real ResultRow objects written with the real ResultStore)."""

from __future__ import annotations

import random
from pathlib import Path

from rote_hf.results import ResultRow, ResultStore, make_run_id

ROTE_MODELS = ("GRU", "LSTM")
COG_MODELS = ("GRU", "TransformerDecoder")
LRS = (1e-3, 3e-3)


def rote_rows(rng: random.Random) -> list[ResultRow]:
    rows = []
    for model in ROTE_MODELS:
        for n in (2, 4):
            for c in (10, 30):
                for run in range(2):
                    target = "".join(rng.choice("ABCD"[:n]) for _ in range(20))
                    wrong = 0 if model == "GRU" else rng.randrange(0, 8)
                    forecast = target[: 20 - wrong] + "".join("A" if ch != "A" else "B" for ch in target[20 - wrong:])
                    dl = wrong / 20
                    spec = {"n": n, "c": c, "run": run}
                    rows.append(ResultRow(
                        run_id=make_run_id("rote", model, f"n{n}-c{c}", spec), suite="rote", task=f"n{n}-c{c}",
                        model=model, config="s0", task_params={"symbols": n, "complexity": c, "seed_index": 0},
                        param_count=151560 if model == "GRU" else 201860, data_seed=0, init_seed=3407 + run, run=run,
                        protocol="rote", learning_rate=1e-3,
                        metrics={"DL": dl, "JW": dl / 2, "exact": float(wrong == 0), "test_loss": 0.05 + dl,
                                 "test_accuracy": 1.0 - dl / 4},
                        outputs={"forecast": forecast, "target": target}, score_name="DL", score=dl,
                        train_time_s=10.0 + run + (5 if model == "LSTM" else 0), time_per_epoch_s=0.5, epochs=20,
                        peak_cpu_mb=300.0, device="cpu", package_version="0.1.0", git_commit="a" * 40,
                        dataset_fingerprint=f"fp{n}{c}", config_name="rote_smoke", timestamp="2026-11-30T12:00:00Z"))
    return rows


def cogscale_rows(rng: random.Random) -> list[ResultRow]:
    rows = []
    for task in ("simple_copy", "adding_problem"):
        for model in COG_MODELS:
            for budget in ("1k", "10k"):
                for lr in LRS:
                    for seed in range(3):
                        test = round(rng.uniform(0.0, 0.6), 4)
                        spec = {"task": task, "budget": budget, "lr": lr, "seed": seed}
                        rows.append(ResultRow(
                            run_id=make_run_id("cogscale", model, f"{task}-small", spec), suite="cogscale", task=task,
                            model=model, config="small", budget=budget, data_seed=seed, init_seed=seed,
                            task_params={"task": task, "difficulty": "small", "seed": seed},
                            protocol="cogscale", learning_rate=lr,
                            # scores are error rates: never below 0
                            metrics={"test_score": test, "best_val_score": max(0.0, round(test + rng.uniform(-0.05, 0.05), 4))},
                            score_name="test_score", score=test, train_time_s=3.0, time_per_epoch_s=0.1, epochs=30,
                            peak_cpu_mb=250.0, device="cpu", package_version="0.1.0", git_commit="b" * 40,
                            dataset_fingerprint=f"cog-{task}-{seed}", timestamp="2026-11-30T12:00:00Z"))
    return rows


def llm_rows() -> list[ResultRow]:
    from rote_hf.metrics import confabulation

    rows = []
    for k, stratum in enumerate(("clean", "revising", "wilderness")):
        preds = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 1, 1]]
        refs = [[1, 2, 3], [4, 5, 7], [7, 8, 9], [2, 2, 2]]
        metrics = confabulation(preds, refs, confidence=[5, 4, 3, 2], abstained=[False, False, k == 2, True],
                                recognized=[True, False, False, None])
        rows.append(ResultRow(
            run_id=f"mdl-tiny-llm-{stratum}", suite="mdl", task=stratum, model="tiny-llm", config="llm_eval",
            protocol="llm-query", task_params={"stratum": stratum}, metrics=metrics, score_name="accuracy",
            score=float(metrics["accuracy"]), lower_is_better=False, device="api", package_version="0.1.0",
            git_commit="c" * 40, dataset_fingerprint="sample-seed0", timestamp="2026-11-30T12:00:00Z"))
    return rows


ROTE_PAPER_FITS = (("gru", "GRU", "n2-c10", 0, 0.0), ("transformer-ed", "Transformer", "n2-c30", 2, 0.25))
"""Our ``rote_paper`` fits of :func:`rote_paper_rows`: (zoo name, the archive's name, task, epochs
added to the archived fit's, DL added)."""


def rote_paper_rows() -> list[ResultRow]:
    """Our ``rote_paper`` fits (seed 1, run 1) made from ROTE's archived twins, with the epochs and
    DL of :data:`ROTE_PAPER_FITS` added (an exact rollout where DL becomes 0)."""
    import dataclasses

    from rote_hf.results.published import rote_main_run_rows

    archive = {(r.model, r.task, r.data_seed, r.run): r for r in rote_main_run_rows()}
    rows = []
    for zoo, paper, task, epochs, dl in ROTE_PAPER_FITS:
        twin = archive[(paper, task, 1, 1)]
        new_dl = twin.metrics["DL"] + dl
        rows.append(dataclasses.replace(
            twin, run_id=f"ours-rote_paper-{zoo}-{task}-s1-r1", model=zoo, source="ours", config_name="rote_paper",
            verified=False, epochs=twin.epochs + epochs, metrics={**twin.metrics, "DL": new_dl, "exact": float(new_dl == 0)},
            score=new_dl, model_config={"preset": "rote-paper"}, device="cpu", peak_cuda_mb=None, package_version="0.1.0",
            git_commit="d" * 40, dataset_fingerprint="fp-rote", timestamp="2026-12-04T00:00:00Z"))
    return rows


def make_store(root: Path) -> ResultStore:
    rng = random.Random(0)
    store = ResultStore(root)
    for row in rote_rows(rng) + cogscale_rows(rng) + llm_rows():
        store.append(row)
    return store
