"""The CogScale reproduction, summarised: agreement by model and category, worst groups with their
known causes, the LR-chosen-on-test cells against the published table, markdown and a plot.

The per-group comparison itself is :func:`rote_hf.results.aggregate.reproduction_report`; this
module only reads its output (pure functions), except :func:`write_plot` (a PNG file).

>>> from rote_hf.results.aggregate import reproduction_report
>>> from rote_hf.results.reproduction import headline, summary, worst
>>> report = reproduction_report()            # the shipped rows against the published runs
>>> headline(report)                          # agreeing fraction of the tested non-ESN groups
"""

from __future__ import annotations

import math
import os
from typing import Any

from rote_hf.files import write_atomic
from rote_hf.results.aggregate import (
    AGREEMENT_RULES, REPRODUCTION_KEYS, REPRODUCTION_MODEL_NAMES, cogscale_table, decode_metrics, format_table,
    null_agreement, published_cogscale_runs, seed_twins, welch_df,
)
from rote_hf.results.schema import budget_value
from rote_hf.results.shipped import shipped_frame

HEADLINE_EXCLUDES = ("ESN",)
"""Models left out of the headline figure (the issue's goal is stated for the trained models): the ESN
has no training to reproduce, and its reservoirs are drawn anew for every run (unseeded in the reference)."""
SUMMARY_BY = ("model", "category", "difficulty", "budget", "task")
CELL_ATOL = 0.005
"""Slack of the cell comparison: the published cells are rounded to 2 decimals."""

#: Tasks where a model that sees future inputs can read the answer (spec §12.2).
_LEAKY_TASKS = frozenset({"discrete_pattern_completion", "continuous_pattern_completion", "sinus_forecasting",
                          "chaotic_forecasting", "induction_heads"})

CAUSES = {
    "esn": "ESN reservoirs: the reference's are unseeded, ours seeded by the run's seed, so the 10 reservoirs "
           "of a group are other draws of the same distribution; hyper-parameters are the reference's per-task "
           "values (esn_hp_report.md) on both sides (spec §10, §12.4)",
    "encdec_future": "the encoder-decoder sees the future (bidirectional encoder, unmasked cross-attention, as "
                     "the reference): on this task the answer leaks from future inputs, so the score measures "
                     "how much of the leak is learnt, not memory (spec §12.2)",
    "threshold": "multi-label threshold tuned for exact match but scored label-wise: a model that learns little "
                 "keeps the first threshold (0.01) and predicts all ones, so runs jump between two plateaus "
                 "(spec §12.3); and our input columns are sorted, the reference's follow PYTHONHASHSEED, so a "
                 "seed's run is not the published run",
    "forecasting": "forecasting data ignore the seed: the 10 runs differ only by initialisation, so the std and "
                   "the 2-SE band are small; at most 200 optimiser steps (spec §12.6)",
    "xlstm": "xLSTM: ours is xlstm 2.0.6 on CPU through the twin sLSTM (the CUDA kernel's step and backward in "
             "float32), the paper's xlstm 1.0.8 on the CUDA kernels in bfloat16",
    "mamba": "Mamba: ours is a pure-torch re-implementation of mamba_ssm's layout (CPU), the paper's the CUDA "
             "kernels",
}


def known_cause(task: str, difficulty: str, budget: str, model: str) -> str:
    """The documented reasons a group may differ from the published one (``"; "``-joined), or ``""``.

    Names are the display names (:data:`rote_hf.results.aggregate.REPRODUCTION_MODEL_NAMES`: ``ESN``,
    ``TransformerEncDec``, ``Transformer``, ...). A listed cause is a known
    difference of setup or a known quirk of the benchmark, not a proof that it explains the gap.
    """
    causes = []
    if model == "ESN":
        causes.append(CAUSES["esn"])
    if model == "TransformerEncDec" and task in _LEAKY_TASKS:
        causes.append(CAUSES["encdec_future"])
    if task == "cross_situation":
        causes.append(CAUSES["threshold"])
    if task in ("sinus_forecasting", "chaotic_forecasting"):
        causes.append(CAUSES["forecasting"])
    if model == "xLSTM":
        causes.append(CAUSES["xlstm"])
    if model == "Mamba":
        causes.append(CAUSES["mamba"])
    return "; ".join(causes)


def task_categories() -> dict[str, str]:
    """Task name -> CogScale category (``classification``, ``multi_classification``, ``regression``)."""
    from rote_hf.cogscale import TASKS  # lazy: imports numpy

    return {name: task.category for name, task in TASKS.items()}


def headline(report, *, exclude: tuple[str, ...] = HEADLINE_EXCLUDES, rule: str = "ours") -> dict[str, Any]:
    """``{"groups", "tested", "agree", "fraction"}`` over the groups of models not in ``exclude``
    under ``rule`` (one of :data:`~rote_hf.results.aggregate.AGREEMENT_RULES`: ``"ours"``,
    ``"strict"``, ``"paired"``). ``tested``: groups the rule decides (ours: a defined standard
    error; strict: every group; paired: at least 2 seed twins); ``fraction`` = agree / tested, NaN if none."""
    if rule not in AGREEMENT_RULES:
        raise ValueError(f"rule must be one of {tuple(AGREEMENT_RULES)}, got {rule!r}")
    column = AGREEMENT_RULES[rule]
    rows = report[~report["model"].isin(exclude)] if len(report) else report
    tested = int(rows[column].notna().sum()) if len(rows) else 0
    agree = int(rows[column].fillna(False).astype(bool).sum()) if len(rows) else 0
    return {"groups": len(rows), "tested": tested, "agree": agree, "fraction": agree / tested if tested else math.nan}


def _mode(values) -> int | None:
    """The most frequent value (the smallest among ties), ``None`` for none."""
    import pandas as pd

    counts = pd.Series(list(values), dtype=float).value_counts()
    return None if not len(counts) else int(min(counts.index[counts == counts.max()]))


def null_expectation(report, *, exclude: tuple[str, ...] = HEADLINE_EXCLUDES) -> dict[str, Any]:
    """The agreement expected when nothing differs, at the typical size of the tested groups:
    ``n_ours``/``n_paper`` (the most frequent ``n`` of each side among the groups our rule tests),
    ``welch`` = ``P(|T| <= 2)`` for Student's t with the Welch-Satterthwaite degrees of freedom of
    n_ours vs n_paper runs (``welch_df``: 18 for 10 vs 10), the expectation of our rule and of the
    strict rule; ``n_pairs`` (most frequent) and ``paired`` = ``P(|T| <= 2)`` with ``n_pairs - 1``
    degrees of freedom. Normal scores; NaN where nothing is tested."""
    rows = report[~report["model"].isin(exclude)] if len(report) else report
    tested = rows[rows["agree"].notna()] if len(rows) else rows
    n_o = _mode(tested["n_ours"]) if len(tested) else None
    n_p = _mode(tested["n_paper"]) if len(tested) else None
    pairs = rows[rows["agree_paired"].notna()] if len(rows) else rows
    n_pairs = _mode(pairs["n_pairs"]) if len(pairs) else None
    welch = null_agreement(float(welch_df(n_o, n_p))) if n_o and n_p and n_o > 1 and n_p > 1 else math.nan
    return {"n_ours": n_o, "n_paper": n_p, "welch": welch, "n_pairs": n_pairs,
            "paired": null_agreement(n_pairs - 1.0) if n_pairs and n_pairs > 1 else math.nan}


RULE_TEXT = {
    "ours": "our rule (Welch SE; a side with one run borrows the other's variance)",
    "strict": "strict (no borrowed variance; a group with fewer than 2 surviving runs on a side, or a diverged run, disagrees)",
    "paired": "paired over seed twins (SE of the mean twin difference)",
}


def rules_text(report, *, exclude: tuple[str, ...] = HEADLINE_EXCLUDES, bold: bool = False) -> str:
    """The three rules side by side on the groups of models not in ``exclude``, with the agreement
    expected under the null (:func:`null_expectation`), as one sentence (markdown bold when asked)."""
    b = "**" if bold else ""
    parts = [f"{RULE_TEXT[rule]} {b}{fraction_text(headline(report, exclude=exclude, rule=rule))}{b}"
             for rule in AGREEMENT_RULES]
    e = null_expectation(report, exclude=exclude)
    expected = []
    if not math.isnan(e["welch"]):
        expected.append(f"{100 * e['welch']:.1f} % for our rule and the strict one ({e['n_ours']} vs {e['n_paper']} "
                        f"runs, t with {float(welch_df(e['n_ours'], e['n_paper'])):.3g} df)")
    if not math.isnan(e["paired"]):
        expected.append(f"{100 * e['paired']:.1f} % for the paired test ({e['n_pairs']} twins, t with "
                        f"{e['n_pairs'] - 1} df)")
    text = "within 2 SE: " + "; ".join(parts)
    if expected:
        text += ". Expected if nothing differed (normal scores, the typical group size): " + " and ".join(expected)
    return text + "."


def summary(report, by: str = "model", *, exclude: tuple[str, ...] = ()):
    """Agreement per value of ``by`` (one of :data:`SUMMARY_BY`): groups, tested, agree, fraction
    (our rule), and the fractions of the strict (``strict``) and paired (``paired``) rules."""
    import pandas as pd

    if by not in SUMMARY_BY:
        raise ValueError(f"by must be one of {SUMMARY_BY}, got {by!r}")
    rows = report[~report["model"].isin(exclude)] if len(report) else report
    out = [{by: key, **headline(g, exclude=()), "strict": headline(g, exclude=(), rule="strict")["fraction"],
            "paired": headline(g, exclude=(), rule="paired")["fraction"]}
           for key, g in rows.groupby(by, sort=True)] if len(rows) else []
    return pd.DataFrame(out, columns=[by, "groups", "tested", "agree", "fraction", "strict", "paired"])


def worst(report, k: int = 15):
    """The ``k`` disagreeing groups with the largest ``|diff|`` (score units), then largest ``|z|``."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise ValueError(f"k must be an int >= 0, got {k!r}")
    if not len(report):
        return report
    bad = report[report["agree"].fillna(True) == False].copy()  # noqa: E712 -- nullable boolean
    bad["_order"] = -bad["diff"].abs()
    bad["_z"] = -bad["z"].abs()
    return bad.sort_values(["_order", "_z", "task", "model"]).head(k).drop(columns=["_order", "_z"]).reset_index(drop=True)


def cells(ours=None, *, config_name: str | None = "cogscale_paper"):
    """Our cell means with the LR chosen on **test** (as the published table was made:
    :func:`rote_hf.results.aggregate.cogscale_table` with ``lr_selection="test"``) against the
    published 560 cells (``mean_std.md``).

    Models on both sides go by their display name (:data:`REPRODUCTION_MODEL_NAMES`). One row per
    (task, difficulty, model, budget) present on both sides: ``lrs`` (learning rates
    of ours in the cell; ``complete`` when all 5 are there, 1 for the ESN), our ``learning_rate``,
    ``seeds``, ``mean_ours``/``std_ours`` and the published ``mean_paper``/``std_paper`` (2 dp),
    ``diff``, ``se = sqrt(s_o**2/n_o + s_p**2/10)`` and ``agree = |diff| <= 2 se + CELL_ATOL``.
    """
    import numpy as np
    import pandas as pd

    from rote_hf.results.published import cogscale_rows  # lazy: imports numpy

    if ours is None:
        ours = shipped_frame()
    ours = ours[(ours["source"] == "ours") & (ours["suite"] == "cogscale")]
    if config_name is not None:
        ours = ours[ours["config_name"] == config_name]
    ours = decode_metrics(ours).copy()
    ours["model"] = [REPRODUCTION_MODEL_NAMES.get(m, m) for m in ours["model"]]
    columns = ["task", "difficulty", "model", "budget", "lrs", "complete", "learning_rate", "seeds", "mean_ours",
               "std_ours", "mean_paper", "std_paper", "diff", "se", "agree"]
    if not len(ours):
        return pd.DataFrame(columns=columns)
    table = cogscale_table(ours, lr_selection="test", source="ours")
    ok = ours[ours["status"] == "ok"]
    lrs = ok.groupby(["task", "config", "model", "budget"])["learning_rate"].nunique(dropna=False)
    published = pd.DataFrame([{"task": r.task, "difficulty": r.config, "budget": r.budget,
                               "model": REPRODUCTION_MODEL_NAMES.get(r.model, r.model),
                               "mean_paper": r.metrics["test_score_mean"], "std_paper": r.metrics["test_score_std"]}
                              for r in cogscale_rows()])
    out = table.rename(columns={"mean": "mean_ours", "std": "std_ours"}).merge(
        published, on=["task", "difficulty", "model", "budget"], how="inner")
    out["lrs"] = [int(lrs.get((t, d, m, b), 0)) for t, d, m, b in
                  zip(out["task"], out["difficulty"], out["model"], out["budget"])]
    out["complete"] = out["lrs"] == np.where(out["model"] == "ESN", 1, 5)
    out["diff"] = out["mean_ours"] - out["mean_paper"]
    n_o = out["seeds"].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["se"] = np.sqrt(out["std_ours"].astype(float) ** 2 / n_o + out["std_paper"] ** 2 / 10)
    agree = pd.array((out["diff"].abs() <= 2 * out["se"] + CELL_ATOL).to_numpy(), dtype="boolean")
    agree[out["se"].isna().to_numpy()] = pd.NA
    out["agree"] = agree
    return out[columns].sort_values(["task", "difficulty", "model", "budget"]).reset_index(drop=True)


def paired_runs(ours=None, paper=None, *, config_name: str | None = "cogscale_paper"):
    """Run-by-run pairing: the same (task, difficulty, budget, model, learning rate, seed) on both
    sides (the seed drives data and initialisation in both protocols), with ``test_ours``,
    ``test_paper`` and ``diff`` (NaN scores dropped). Same data and same initialisation make many
    runs equal up to float32 CUDA-vs-CPU noise; this shows how many."""
    if ours is None:
        ours = shipped_frame()
    paper = published_cogscale_runs() if paper is None else paper
    out = seed_twins(ours, paper, config_name=config_name)
    out["learning_rate"] = out["learning_rate"].where(out["learning_rate"] >= 0)
    return out.sort_values([*REPRODUCTION_KEYS, "seed"]).reset_index(drop=True)


def paired_summary(pairs, by: str = "model") -> "Any":
    """Per ``by``: paired runs, and the fractions equal within 1e-6 and within 1e-3 (score units)."""
    import pandas as pd

    out = []
    for key, g in pairs.groupby(by, sort=True):
        d = g["diff"].abs()
        out.append({by: key, "runs": len(g), "equal_1e-6": float((d <= 1e-6).mean()),
                    "equal_1e-3": float((d <= 1e-3).mean()), "max_abs_diff": float(d.max())})
    return pd.DataFrame(out, columns=[by, "runs", "equal_1e-6", "equal_1e-3", "max_abs_diff"])


def cost_table(ours):
    """CPU cost of our finished runs per (model, difficulty, budget): ``runs``, ``median_s`` and
    ``total_h`` of ``train_time_s`` (a fleet member's share of its fleet's time; seconds and hours).
    ``model`` is our zoo name; ``budget`` sorts by size."""
    import pandas as pd

    columns = ["model", "difficulty", "budget", "runs", "median_s", "total_h"]
    ok = ours[(ours["status"] == "ok") & ours["train_time_s"].notna()] if len(ours) else ours
    if not len(ok):
        return pd.DataFrame(columns=columns)
    out = (ok.groupby(["model", "config", "budget"])["train_time_s"].agg(["size", "median", "sum"]).reset_index()
           .rename(columns={"config": "difficulty", "size": "runs", "median": "median_s", "sum": "total_h"}))
    out["total_h"] = out["total_h"] / 3600.0
    return (out.assign(_size=out["budget"].map(budget_value)).sort_values(["model", "difficulty", "_size"])[columns]
            .reset_index(drop=True))


def phase_a_table(provenance: dict | None, cost):
    """Phase A's progress (each cell at the learning rate the published table chose) per (model,
    difficulty, budget), from the export's ``phase_a`` counts: ``cells``, ``complete`` (every seed
    finished), ``runs_left``, ``mean_s``, the mean CPU-seconds per finished run of that model,
    difficulty and budget (any learning rate; :func:`cost_table`), and ``left_h``, the CPU-hours
    left at that mean (NaN where no such run has finished yet: nothing measured to go by). The mean,
    not the median, since the hours left are a sum."""
    import pandas as pd

    columns = ["model", "difficulty", "budget", "cells", "complete", "runs_left", "mean_s", "left_h"]
    counts = (provenance or {}).get("phase_a") or {}
    if not counts:
        return pd.DataFrame(columns=columns)
    mean = {} if cost is None or not len(cost) else {
        (r.model, r.difficulty, r.budget): r.total_h * 3600 / r.runs for r in cost.itertuples()}
    out = []
    for key, c in counts.items():
        model, difficulty, budget = key.rsplit("-", 2)
        left = c["runs"] - c["runs_finished"]
        m = mean.get((model, difficulty, budget), math.nan)
        out.append({"model": model, "difficulty": difficulty, "budget": budget, "cells": c["cells"],
                    "complete": c["cells_complete"], "runs_left": left, "mean_s": m, "left_h": left * m / 3600})
    out = pd.DataFrame(out, columns=columns)
    return (out.assign(_size=out["budget"].map(budget_value)).sort_values(["difficulty", "model", "_size"])[columns]
            .reset_index(drop=True))


def phase_a_text(table) -> str:
    """One sentence on Phase A: cells complete, runs left and the CPU-hours they cost at the measured
    means (with the runs that have no measured cost yet said apart)."""
    unknown = table[table["left_h"].isna() & (table["runs_left"] > 0)]
    known = table[table["left_h"].notna()]
    text = (f"{int(table['complete'].sum())} of {int(table['cells'].sum())} Phase A cells complete; "
            f"{int(table['runs_left'].sum()):,} runs left, {int(known['runs_left'].sum()):,} of them costing about "
            f"{known['left_h'].sum():.1f} CPU-hours at the measured means")
    if len(unknown):
        text += (f", {int(unknown['runs_left'].sum()):,} with no measured cost yet (no finished run of their model, "
                 "difficulty and budget)")
    return text


# -- rendering -----------------------------------------------------------------------------------------

def _fmt(v: Any, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)) or type(v).__name__ == "NAType":  # pandas' NA
        return "–"
    if isinstance(v, float):
        return f"{v:.{digits}g}" if abs(v) < 1e-3 and v != 0 else f"{v:.{digits}f}"
    return str(v)


def md_table(frame, columns: list[str]) -> str:
    """``frame[columns]`` as a Markdown table (floats to 3 decimals, missing values as ``–``)."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for rec in frame[columns].itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v) if not isinstance(v, str) else v for v in rec) + " |")
    return "\n".join(lines)


def fraction_text(h: dict[str, Any]) -> str:
    """A :func:`headline` as ``"93.1 % (81/87)"`` (``"–"`` when nothing was tested)."""
    return "–" if math.isnan(h["fraction"]) else f"{100 * h['fraction']:.1f} % ({h['agree']}/{h['tested']})"


def text_report(report, cell_table=None, provenance: dict | None = None, *, k: int = 15, pairs=None,
                ours=None) -> str:
    """The console summary of ``rote-hf results --reproduction`` (plain text); ``ours``, our rows,
    prices Phase A's runs left at their measured CPU time."""
    lines = []
    if provenance is not None:
        lines.append(f"runs: {provenance['runs_ok']} ok, {provenance['runs_failed']} failed, "
                     f"{provenance['runs_left']} left of {provenance['runs_expected']} "
                     f"({provenance['config_name']}, sweep {provenance['sweep_hash']})")
        phase = phase_a_table(provenance, cost_table(ours) if ours is not None else None)
        if len(phase):
            lines.append(f"Phase A (each cell at the published learning rate): {phase_a_text(phase)}")
    if not len(report):
        lines.append("no group has runs on both sides yet (no reproduction rows shipped, or none match)")
        return "\n".join(lines)
    lines.append(f"headline (non-ESN groups within 2 SE): {fraction_text(headline(report))}; "
                 f"all groups incl. ESN: {fraction_text(headline(report, exclude=()))}")
    lines.append(f"non-ESN groups, three rules {rules_text(report)}")
    for by in ("model", "category"):
        lines += ["", f"agreement by {by}:", format_table(summary(report, by), digits=3)]
    bad = worst(report, k)
    lines += ["", f"worst disagreeing groups (largest |diff|, {len(bad)} shown):",
              format_table(bad, ["task", "difficulty", "budget", "model", "learning_rate", "n_ours", "mean_ours",
                                 "n_paper", "mean_paper", "diff", "z"], digits=3)]
    for rec in bad.itertuples():
        if rec.cause:
            lines.append(f"  {rec.task} {rec.difficulty} {rec.budget} {rec.model} lr={_fmt(rec.learning_rate)}: {rec.cause}")
    if pairs is not None and len(pairs):
        lines += ["", "run by run (same task, difficulty, budget, model, LR and seed on both sides):",
                  format_table(paired_summary(pairs), digits=3)]
    if cell_table is not None and len(cell_table):
        complete = cell_table[cell_table["complete"]]
        h = headline(complete)
        lines += ["", f"LR chosen on test, complete cells vs the published table: {fraction_text(h)} within 2 SE + "
                      f"{CELL_ATOL} ({len(cell_table) - len(complete)} incomplete cells left out)"]
    return "\n".join(lines)


def markdown_report(report, cell_table, provenance: dict | None, *, plot: str | None = None, k: int = 20,
                    command: str = "", pairs=None, cost=None) -> str:
    """The generated part of ``docs/reproduction.md``: counts, headline, tables, worst groups, plot."""
    lines = ["<!-- generated by: " + (command or "python benchmarks/reproduction_report.py") + " -->", ""]
    if provenance is not None:
        done = provenance["runs_by_model_difficulty"]
        lines += [f"**Runs**: {provenance['runs_ok']:,} finished (ok), {provenance['runs_failed']} failed, "
                  f"{provenance['runs_left']:,} left of the {provenance['runs_expected']:,} of `{provenance['config_name']}` "
                  f"(sweep hash `{provenance['sweep_hash']}`; commits {', '.join(c[:12] for c in provenance['git_commits']) or '–'}; "
                  f"rows from {provenance['first_timestamp']} to {provenance['last_timestamp']}; "
                  f"exported with `{provenance['command']}`).", "",
                  "| model | difficulty | ok | failed | expected |", "|---|---|---|---|---|"]
        for key, c in done.items():
            model, difficulty = key.rsplit("-", 1)
            lines.append(f"| {model} | {difficulty} | {c['ok']} | {c['failed']} | {c['expected']} |")
        lines.append("")
        phase = phase_a_table(provenance, cost)
        if len(phase):
            open_ = set(phase.loc[phase["complete"] < phase["cells"], "difficulty"])
            shown = phase[phase["difficulty"].isin(open_)]
            done = sorted(set(phase["difficulty"]) - open_)
            lines += ["### Phase A: each cell at the published learning rate", "",
                      f"**{phase_a_text(phase)}.** A cell is (task, difficulty, budget, model) at the learning rate "
                      "the published table chose for it (`train.py --only lr=published`); it is complete when its 10 "
                      "seeds have finished (a diverged run is stored as failed and not retried). `mean_s`: mean "
                      "CPU-seconds per finished run of that model, difficulty and budget (any learning rate; a fleet "
                      "member's share of its fleet; the machine was shared); `left_h`: CPU-hours left at that mean."
                      + (f" Every {' and '.join(done)} cell is complete." if done else ""), "",
                      md_table(shown, list(shown.columns)), ""]
    else:
        lines += ["**No reproduction rows are shipped yet**; export them with "
                  "`rote-hf results --export-reproduction --results DIR`.", ""]
    if not len(report):
        lines.append("No group has runs on both sides yet.")
        return "\n".join(lines) + "\n"
    h, h_all = headline(report), headline(report, exclude=())
    partial = int((report["n_ours"] < 10).sum())
    short = (f", {partial} of them with fewer than 10 of our runs (still running, or diverged and stored as failed)"
             if partial else "")
    lines += [f"**Headline**: {fraction_text(h)} of the tested non-ESN groups agree within 2 standard errors "
              f"(all groups including the ESN: {fraction_text(h_all)}); {h_all['groups']} groups of "
              f"(task, difficulty, budget, model, learning rate) have runs on both sides{short}.", "",
              f"**Three rules side by side** (non-ESN groups), {rules_text(report, bold=True)} "
              "Our rule tests the groups with a standard error; the strict rule counts every group (one with fewer "
              "than 2 surviving runs on a side, or with a diverged run on either side, as disagreeing), so it is "
              "a lower bound of ours; the paired rule tests the groups with at least 2 seed twins "
              "(`rote_hf.results.aggregate.reproduction_report`).", ""]
    for by in ("model", "category", "difficulty"):
        lines += [f"### Agreement by {by}", "",
                  "`fraction`: our rule; `strict` and `paired`: the fractions under the other two rules.", "",
                  md_table(summary(report, by), [by, "groups", "tested", "agree", "fraction", "strict", "paired"]), ""]
    bad = worst(report, k)
    lines += [f"### Worst groups ({len(bad)} largest |diff| among the disagreeing)", "",
              md_table(bad.assign(lr=[_fmt(v, 4) for v in bad["learning_rate"]], cause=[c or "–" for c in bad["cause"]]),
                        ["task", "difficulty", "budget", "model", "lr", "n_ours", "mean_ours", "std_ours", "n_paper",
                         "mean_paper", "std_paper", "diff", "z", "cause"]), ""]
    if pairs is not None and len(pairs):
        ps = paired_summary(pairs)
        lines += ["### Run by run", "",
                  "The seed drives the data and the initialisation on both sides, so each of our runs has a "
                  "published twin (same task, difficulty, budget, model, LR and seed). Fraction of twins whose "
                  "test scores are equal within 1e-6 and 1e-3:", "",
                  md_table(ps, list(ps.columns)), ""]
    if cell_table is not None and len(cell_table):
        complete = cell_table[cell_table["complete"]]
        lines += ["### LR chosen on test: our cells vs the published table", "",
                  f"{len(complete)} complete cells (all learning rates done) of {len(cell_table)} with runs; "
                  f"{fraction_text(headline(complete))} within 2 SE + {CELL_ATOL} of the published mean.", ""]
        if len(complete):
            far = complete.assign(_d=-complete["diff"].abs()).sort_values(["_d", "task", "model"]).head(k)
            lines += [f"The {len(far)} complete cells with the largest |diff|:", "",
                      md_table(far.assign(lr=[_fmt(v, 4) for v in far["learning_rate"]]),
                                ["task", "difficulty", "model", "budget", "lr", "mean_ours", "std_ours", "mean_paper",
                                 "std_paper", "diff", "agree"]), ""]
    if cost is not None and len(cost):
        lines += ["### CPU time per run", "",
                  "`train_time_s` of our finished runs (one thread; a fleet member counts its share of the "
                  "fleet's time; the machine was shared with other work):", "",
                  md_table(cost.assign(runs=cost["runs"].astype(int)), list(cost.columns)), ""]
    if plot:
        lines += [f"![our mean against the published mean per group]({plot})", ""]
    return "\n".join(lines) + "\n"


def write_plot(report, path: str | os.PathLike) -> None:
    """Scatter of our mean against the published mean per group, with the diagonal (PNG, atomic)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11.5, 5.6), dpi=100)
    hi = 1.0
    if len(report):
        hi = max(1.0, float(min(2.0, max(report["mean_ours"].max(), report["mean_paper"].max()))) * 1.02)
    floor = 1e-9  # log panel: MSEs of solved regression groups go down to ~1e-8
    for ax, log in zip(axes, (False, True)):
        for model, g in report.groupby("model", sort=True) if len(report) else ():
            ok = g["agree"].fillna(True).to_numpy(bool)
            x, y = g["mean_paper"].to_numpy(float), g["mean_ours"].to_numpy(float)
            if log:
                x, y = x.clip(min=floor), y.clip(min=floor)
            line = ax.scatter(x[ok], y[ok], s=14, alpha=0.7, label=model)
            ax.scatter(x[~ok], y[~ok], s=30, facecolors="none", edgecolors=line.get_facecolor()[0], linewidths=1.2)
        lo = floor if log else 0.0
        ax.plot([lo, hi], [lo, hi], color="black", lw=0.8, label="diagonal (ours = published)")
        if log:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(floor / 2, hi * 1.5)
            ax.set_ylim(floor / 2, hi * 1.5)
        else:
            ax.set_xlim(-0.02, hi)
            ax.set_ylim(-0.02, hi)
        ax.set_xlabel("published mean test score (per group)" + (", log" if log else ""))
        ax.set_ylabel("our mean test score (per group)" + (f", log, clipped at {floor:g}" if log else ""))
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle("CogScale reproduction: one point per (task, difficulty, budget, model, LR); "
                 "hollow = outside 2 standard errors", fontsize=10)
    fig.tight_layout()
    try:
        write_atomic(path, lambda tmp: fig.savefig(tmp, format="png", metadata={"Software": None}), mode=0o644)
    finally:
        plt.close(fig)
