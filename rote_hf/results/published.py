"""The papers' published numbers as result rows with ``source="paper"``.

The source files live in ``rote_hf/results/published/`` with their origin and licence in
``SOURCES.md``. Published numbers are aggregates, so each row is one table cell: its ``metrics``
hold the aggregate's values (e.g. ``DL_mean``, ``DL_sd``), ``config`` names the table, and
``run_id`` is ``paper-<table>-<model>-<task>``. ``verified`` is True: the values are the
authors' own.
"""

from __future__ import annotations

import csv
import functools
import math
from pathlib import Path

from rote_hf.mdl.strata import LLM_K_NEXT, LLM_N_SHOWN, LLM_STRATA
from rote_hf.results.headlines import COGSCALE_HEADLINE, OEIS_LLM_HEADLINE, ROTE_FALLBACK, ROTE_HEADLINE
from rote_hf.results.schema import ResultRow
from rote_hf.symbolic.windows import PAPER_HORIZON, PAPER_SEQUENCE_LENGTH, PAPER_WINDOW

DATA_DIR = Path(__file__).with_name("published")

#: CogScale table model names -> our zoo names (the table's column headers are upper case).
COGSCALE_MODEL_NAMES = {
    "ESN": "ESN", "GRU": "GRU", "LSTM": "LSTM", "MAMBA": "Mamba",
    "TRANSFORMER_DECODER": "TransformerDecoder", "TRANSFORMER_ENCDEC": "TransformerEncDec", "XLSTM": "xLSTM",
}
COGSCALE_DIFFICULTY = {"SM": "small", "MD": "medium"}


def _float(text: str) -> float:
    return float(text) if text not in ("", "nan") else math.nan


def rote_summary_rows() -> list[ResultRow]:
    """ROTE main track ``summary_by_model.csv``: one row per model (80 fits each)."""
    with open(DATA_DIR / "rote_summary_by_model.csv", newline="") as fh:
        lines = list(csv.reader(fh))
    metric_names, stats = lines[0], lines[1]
    rows = []
    for line in lines[3:]:
        model = line[0]
        values = {f"{metric_names[i]}_{stats[i]}": _float(line[i]) for i in range(1, len(line))}
        rows.append(ResultRow(
            run_id=f"paper-rote_summary_by_model-{model}", suite="rote", task="all", model=model,
            config="summary_by_model", protocol="rote", source="paper", verified=True,
            param_count=round(values["model_size_m_mean"] * 1e6), metrics=values,
            score_name="DL_mean", score=values["DL_mean"], lower_is_better=ROTE_HEADLINE.lower_is_better,
            train_time_s=values["train_time_median"], time_per_epoch_s=values["time_per_epoch_median"],
            peak_cuda_mb=values["memory_mb_median"], device="cuda (A100 3g.40gb MIG)",
            settings={"aggregate": "over 80 fits: 4 n x 5 c x 2 seeds x 2 runs; cost columns are medians"},
        ))
    return rows


def rote_table_rows() -> list[ResultRow]:
    """ROTE paper Table 2 (main track) and Table 3 (matched size) cells."""
    rows = []
    with open(DATA_DIR / "rote_paper_tables.csv", newline="") as fh:
        for rec in csv.DictReader(fh):
            metrics = {k: _float(rec[k]) for k in ("exact_rollout_rate", "DL_mean", "DL_sd", "test_loss_mean")
                       if rec[k] != ""}
            matched = rec["table"].startswith("table3")
            rows.append(ResultRow(
                run_id=f"paper-{rec['table']}-{rec['model']}", suite="rote_matched" if matched else "rote",
                task="n4,8-c90" if matched else "c90", model=rec["model"], config=rec["table"], protocol="rote",
                budget="0.2M" if matched else "", source="paper", verified=True, metrics=metrics,
                score_name="exact_rollout_rate", score=metrics["exact_rollout_rate"], lower_is_better=ROTE_FALLBACK.lower_is_better,
                train_time_s=_float(rec["train_time_median_s"]) if rec["train_time_median_s"] else None,
                peak_cuda_mb=_float(rec["peak_cuda_mb"]) if rec["peak_cuda_mb"] else None,
                device="cuda (A100 3g.40gb MIG)",
            ))
    return rows


ROTE_ATTENTION_MODELS = frozenset({"Transformer", "LinearAttention", "Performer", "RWKV"})
"""Models whose width is ``d_model`` (the others are sized by ``units``)."""


def _rote_run_rows(filename: str, suite: str, budget: str) -> list[ResultRow]:
    """One row per archived ROTE fit (numeric columns of the archive's ``results_merged.csv``).

    ``exact`` is ``DL == 0`` (identical strings of equal length); the seed, target and forecast
    strings of the archive are not shipped (the seeds are ``rote_hf.symbolic.paper_seeds()``).
    """
    rows = []
    with open(DATA_DIR / filename, newline="") as fh:
        for rec in csv.DictReader(fh):
            n, c, s, run = (int(rec[k]) for k in ("symbols", "complexity", "seed_index", "run"))
            dl = float(rec["DL"])
            metrics = {"test_loss": float(rec["test_loss"]), "test_accuracy": float(rec["test_accuracy"]), "DL": dl,
                       "JW": float(rec["JW"]), "exact": float(dl == 0.0)}
            width = ({"d_model": int(rec["d_model"]), "hidden": int(rec["units"])} if rec["model"] in ROTE_ATTENTION_MODELS
                     else {"units": int(rec["units"])})
            rows.append(ResultRow(
                run_id=f"paper-{filename.removesuffix('.csv')}-{rec['config_index']}", suite=suite, task=f"n{n}-c{c}",
                config=f"s{s}", model=rec["model"], model_config=width, budget=budget, protocol="rote",
                task_params={"symbols": n, "complexity": c, "seed_index": s, "sequence_length": PAPER_SEQUENCE_LENGTH,
                             "window": PAPER_WINDOW, "horizon": PAPER_HORIZON},
                param_count=int(rec["model_params"]), data_seed=s, init_seed=3407 + run, run=run, learning_rate=3e-4,
                metrics=metrics, score_name="DL", score=dl, lower_is_better=ROTE_HEADLINE.lower_is_better, source="paper", verified=True,
                train_time_s=float(rec["train_time"]), time_per_epoch_s=float(rec["time_per_epoch"]),
                epochs=int(rec["epochs"]), peak_cuda_mb=float(rec["memory_mb"]), device="cuda (A100 3g.40gb MIG)",
            ))
    return rows


def rote_main_run_rows() -> list[ResultRow]:
    """The 640 per-fit rows of the ROTE main track (8 models x 4 n x 5 c x 2 seeds x 2 runs)."""
    return _rote_run_rows("rote_main_runs.csv", "rote", "")


def rote_matched_run_rows() -> list[ResultRow]:
    """The 48 per-fit rows of the ROTE matched-size track (0.2 M parameters)."""
    return _rote_run_rows("rote_matched_runs.csv", "rote_matched", "0.2M")


def cogscale_rows() -> list[ResultRow]:
    """CogScale ``mean_std.md``: one row per task x difficulty x budget x model (ESN has no 100k)."""
    rows = []
    with open(DATA_DIR / "cogscale_mean_std.csv", newline="") as fh:
        for rec in csv.DictReader(fh):
            for column, model in COGSCALE_MODEL_NAMES.items():
                cell = rec[column]
                if cell == "nan":
                    continue  # ESN was not run at 100k
                mean, std = (float(x) for x in cell.split("±"))
                difficulty = COGSCALE_DIFFICULTY[rec["difficulty"]]
                rows.append(ResultRow(
                    run_id=f"paper-cogscale_mean_std-{model}-{rec['task']}-{difficulty}-{rec['budget']}",
                    suite="cogscale", task=rec["task"], config=difficulty, model=model, budget=rec["budget"],
                    protocol="cogscale-esn" if model == "ESN" else "cogscale", source="paper", verified=True,
                    metrics={"test_score_mean": mean, "test_score_std": std},
                    score_name="test_score_mean", score=mean, lower_is_better=COGSCALE_HEADLINE.lower_is_better,
                    settings={"aggregate": "10 seeds; LR chosen on TEST (published table), clipped at 1, 2 dp",
                              "lr_selection": "test"},
                ))
    return rows


COGSCALE_BUDGETS = {1000: "1k", 10000: "10k", 100000: "100k"}


def cogscale_run_rows() -> list[ResultRow]:
    """CogScale's per-run results (``baseline/results/results.csv``, 25,760 runs: task x
    difficulty x budget x model x learning rate x seed) as one row each.

    Not part of :func:`paper_rows` (the leaderboard shows the published table cells); aggregate
    them with ``rote_hf.results.aggregate.cogscale_table(..., source="paper")``:
    ``lr_selection="test"`` reproduces ``mean_std.md`` cell for cell, ``"validation"`` gives the
    protocol the paper states. Four runs without a test score keep ``test_score`` NaN.
    """
    import gzip

    rows = []
    with gzip.open(DATA_DIR / "cogscale_results.csv.gz", "rt", encoding="utf-8", newline="") as fh:
        for rec in csv.DictReader(fh):
            model = COGSCALE_MODEL_NAMES[rec["Model"]]
            lr = _float(rec["LR"])
            budget = COGSCALE_BUDGETS[int(rec["Target_Params"])]
            rows.append(ResultRow(
                run_id=f"paper-cogscale_results-{rec['']}", suite="cogscale", task=rec["Task"], config=rec["Difficulty"],
                model=model, budget=budget, param_count=int(rec["Actual_Params"]), data_seed=int(rec["Seed"]),
                learning_rate=None if math.isnan(lr) else lr,
                protocol="cogscale-esn" if model == "ESN" else "cogscale", source="paper", verified=True,
                task_params={"category": rec["Category"]}, model_config={"reference_name": rec["model"]},
                metrics={"test_score": _float(rec["Test_Score"]), "best_val_score": _float(rec["Best_Val_Score"])},
                score_name="test_score", score=_float(rec["Test_Score"]), lower_is_better=COGSCALE_HEADLINE.lower_is_better,
            ))
    return rows


#: Names of the ESN hyper-parameters in CogScale's report -> the zoo's ``esn`` arguments.
ESN_REPORT_KEYS = {"lr": "leak_rate", "sr": "spectral_radius", "input_scaling": "input_scaling"}


@functools.lru_cache(maxsize=1)
def cogscale_esn_hyperparameters() -> dict[str, dict[str, float]]:
    """CogScale's per-task ESN hyper-parameters (``baseline/results/esn_hp_report.md``, verbatim),
    as its ``run.py`` reads them: ``"<task>.<difficulty>.N<units>"`` -> ``{"leak_rate",
    "spectral_radius", "input_scaling"}`` (56 entries: 14 tasks x small/medium x N 100/1000).
    The report's dictionaries are parsed as literals (the reference ``eval``s them)."""
    import ast
    import re

    text = (DATA_DIR / "cogscale_esn_hp_report.md").read_text(encoding="utf-8")
    table = {}
    for key, literal in re.findall(r"\*\*(.*?)\*\*\n.*?```(.*?)```", text, re.DOTALL):
        values = ast.literal_eval(literal.strip())
        if key.rsplit(".N", 1)[1] != str(values["N"]):
            raise ValueError(f"esn_hp_report.md: entry {key!r} has N={values['N']}")
        table[key] = {ours: float(values[theirs]) for theirs, ours in ESN_REPORT_KEYS.items()}
    return table


def cogscale_esn_hyperparameters_for(task: str, difficulty: str, units: int) -> dict[str, float]:
    """The report's entry of (task, difficulty, N = units); a clear error when it has none."""
    table = cogscale_esn_hyperparameters()
    key = f"{task}.{difficulty}.N{units}"
    if key not in table:
        sizes = sorted({k.rsplit(".N", 1)[1] for k in table})
        raise ValueError(f"CogScale's ESN report has no entry {key!r}: it covers the 14 tasks at small and "
                         f"medium with N in {sizes} (preset cogscale-paper, budget 1000 or 10000)")
    return dict(table[key])


#: MDL LLM evaluation model codes of the per-row file -> the OpenRouter model ids the paper
#: queried (the names our own runs of the same endpoints are stored under).
MDL_LLM_MODELS = {"C": "anthropic/claude-sonnet-4.5", "G": "openai/gpt-4o", "L": "meta-llama/llama-3.3-70b-instruct"}


def _terms(text: str) -> list[int]:
    return [] if text == "-" else [int(t) for t in text.split(",")]


def mdl_llm_rows() -> list[ResultRow]:
    """MDL paper §9 LLM evaluation: one row per model x stratum, scored from the released
    per-row answers (``mdl_llm_eval_rows.txt``) with :func:`rote_hf.metrics.confabulation`
    (rates over parsed replies, failed calls counted apart, Wilson 95 % intervals)."""
    from rote_hf.metrics.confabulation import confabulation  # lazy: imports rapidfuzz

    cells: dict[tuple[str, str], list[list[str]]] = {}
    with open(DATA_DIR / "mdl_llm_eval_rows.txt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip() and not line.startswith("#"):
                fields = line.split()
                cells.setdefault((fields[0], fields[1]), []).append(fields)
    rows = []
    for (code, stratum), recs in sorted(cells.items(), key=lambda kv: (kv[0][0], LLM_STRATA.index(kv[0][1]))):
        ok = [r[7] == "ok" for r in recs]
        metrics = confabulation(
            predictions=[_terms(r[3]) for r in recs], references=[_terms(r[2]) for r in recs],
            confidence=[int(r[4]) if o else None for r, o in zip(recs, ok)],
            abstained=[r[6] == "1" if o else False for r, o in zip(recs, ok)],
            recognized=[r[5] == "1" if o else None for r, o in zip(recs, ok)],
            status=[r[7] for r in recs])
        model = MDL_LLM_MODELS[code]
        rows.append(ResultRow(
            run_id=f"paper-mdl_llm_eval-{code}-{stratum}", suite="mdl", task=stratum, model=model,
            config="llm_eval", protocol="llm-query", source="paper", verified=True,
            task_params={"stratum": stratum, "n_shown": LLM_N_SHOWN, "k_next": LLM_K_NEXT, "sample_seed": 0},
            model_config={"responder": "openai", "model": model},
            settings={"endpoint": "OpenRouter chat completions", "temperature": 0, "max_tokens": 400,
                      "aggregate": "20 sequences per stratum; failed calls not scored"},
            metrics=metrics, score_name="accuracy", score=float(metrics["accuracy"]), lower_is_better=OEIS_LLM_HEADLINE.lower_is_better,
            device="api",
        ))
    return rows


@functools.lru_cache(maxsize=1)
def _all_rows() -> tuple[ResultRow, ...]:
    return tuple(rote_summary_rows() + rote_table_rows() + rote_main_run_rows() + rote_matched_run_rows() + cogscale_rows() + mdl_llm_rows())


def paper_rows(suite: str | None = None) -> list[ResultRow]:
    """Every published row (``suite`` filters: ``rote``, ``rote_matched``, ``cogscale``, ``mdl``)."""
    rows = list(_all_rows())
    return rows if suite is None else [r for r in rows if r.suite == suite]
