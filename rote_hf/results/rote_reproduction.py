"""The ROTE reproduction, fit by fit: our fits of ``eval_suite/configs/rote_paper.yaml`` against
the ROTE paper's archived fits (:func:`rote_hf.results.published.rote_main_run_rows`: 640 fits,
8 models x n in {2,4,6,8} x c in {10,...,90} x 2 seeds x 2 runs).

A fit is one (task ``n<symbols>-c<complexity>``, seed index, run, model) on both sides: the seed
index picks the published seed string and the run the initialisation seed (``3407 + run``), so
each of our fits has exactly one archived twin. Compared per fit: the stopping epoch, the
next-symbol test accuracy, DL and JW (rollout distances, 0..1, lower is better) and the exact
rollout (``DL == 0``).

Model names: both sides go by their display name (:mod:`rote_hf.zoo.display`; the archive's
through :func:`~rote_hf.zoo.display.published_display_name`), and :data:`ROTE_PAPER_MODEL_NAMES`
gives each of our models its name in the ROTE paper's files. The two differ for one model only:
the ROTE reference's ``Transformer`` is an encoder-decoder, our ``transformer-ed`` (display name
``TransformerEncDec``), not the decoder-only ``transformer`` that CogScale's ``TransformerDecoder``
meets (:data:`rote_hf.results.aggregate.REPRODUCTION_MODEL_NAMES`, unchanged).

>>> from rote_hf.results.rote_reproduction import fit_pairs, fit_summary
>>> pairs = fit_pairs()          # the shipped rote_paper rows (empty frame when none is shipped)
>>> fit_summary(pairs)           # per model, and "all"
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

from rote_hf.results.aggregate import decode_metrics
from rote_hf.results.reproduction import md_table
from rote_hf.results.shipped import shipped_frame
from rote_hf.results.store import rows_to_frame
from rote_hf.zoo.display import display_name, published_display_name

ROTE_CONFIG = "rote_paper"
"""Our sweep config of the ROTE main grid (the config name our rows carry)."""
ROTE_PAPER_MODEL_NAMES: Mapping[str, str] = {
    "lstm": "LSTM", "gru": "GRU", "mingru": "minGRU", "minlstm-rote": "minLSTM",
    # the ROTE reference's Transformer is an encoder-decoder fed the same window twice (docs/zoo.md)
    "transformer-ed": "Transformer",
    "linear-attention": "LinearAttention", "performer": "Performer", "rwkv-rote": "RWKV",
}
"""Zoo names of the eight models of ``rote_paper`` -> their names in the ROTE paper's archived fits."""
ACCURACY_TOL = 0.01
"""|Δ test accuracy| at or below which a fit counts as matching in the summary (accuracy units, 0..1)."""
FIT_KEYS = ("model", "task", "seed", "run")
PAIR_COLUMNS = ["model", "paper_model", "task", "n", "c", "seed", "run",
                "epochs_ours", "epochs_paper", "epochs_diff",
                "accuracy_ours", "accuracy_paper", "accuracy_diff",
                "DL_ours", "DL_paper", "DL_diff", "JW_ours", "JW_paper", "JW_diff",
                "exact_ours", "exact_paper"]
"""Columns of :func:`fit_pairs` (``*_diff`` = ours − paper)."""
SUMMARY_COLUMNS = ["model", "paper_model", "fits", "epochs_equal", "accuracy_within", "DL_mad", "JW_mad",
                   "exact_agree", "exact_ours", "exact_paper", "DL_mean_ours", "DL_mean_paper"]
"""Columns of :func:`fit_summary`."""
_METRICS = {"accuracy": "test_accuracy", "DL": "DL", "JW": "JW", "exact": "exact"}


def _fits(df, source: str, names: Mapping[str, str]):
    """One line per ok ROTE main-track fit of ``source`` in result rows ``df``: the fit keys
    (``model`` = display name), ``paper_model`` and the compared values."""
    import pandas as pd

    df = df[(df["source"] == source) & (df["suite"] == "rote") & (df["status"] == "ok")]
    df = decode_metrics(df)
    models = [str(m) for m in df["model"]]
    out = pd.DataFrame({
        "model": [display_name(m) for m in models],
        "paper_model": [names.get(m, m) for m in models],
        "task": df["task"].astype(str).to_numpy(),
        "seed": pd.to_numeric(df["data_seed"], errors="coerce").to_numpy(),
        "run": pd.to_numeric(df["run"], errors="coerce").to_numpy(),
        "epochs": pd.to_numeric(df["epochs"], errors="coerce").to_numpy(float),
    })
    for col, key in _METRICS.items():
        out[col] = [float(m[key]) if isinstance(m, dict) and m.get(key) is not None else math.nan
                    for m in df["metrics"]]
    return out.dropna(subset=["seed", "run"])  # a fit without its seed or run has no twin


@functools.lru_cache(maxsize=1)
def _paper_fits():
    from rote_hf.results.published import rote_main_run_rows  # lazy: imports numpy

    paper = _fits(rows_to_frame(rote_main_run_rows()), "paper", {})
    # the archive's names meet ours on the display name: the paper's Transformer is our transformer-ed
    return paper.assign(model=[published_display_name(p, "rote") for p in paper["paper_model"]])


def paper_fits():
    """The ROTE paper's 640 archived fits as :func:`fit_pairs`' paper side (``model``: our display
    name of the same architecture, ``paper_model``: the archive's name). A copy each call."""
    return _paper_fits().copy()


def fit_pairs(ours=None, paper=None, *, config_name: str | None = ROTE_CONFIG):
    """Our ok ROTE fits paired with the paper's archived twins on (task, seed, run, model).

    ``ours``: result rows (default: the rows shipped with the package); only ``source == "ours"``,
    ``suite == "rote"``, ``status == "ok"`` and (unless ``None``) ``config_name``. ``paper``: the
    paper side (default :func:`paper_fits`). One row per fit on both sides, columns
    :data:`PAIR_COLUMNS`: ``epochs`` (stopping epoch), ``accuracy`` (next-symbol test accuracy,
    0..1), ``DL`` and ``JW`` (rollout distances, 0..1), ``exact`` (1.0 = exact rollout), each
    ``_ours`` / ``_paper`` with ``_diff = ours − paper``. Sorted by model, n, c, seed, run.
    """
    import pandas as pd

    if ours is None:
        ours = shipped_frame(ROTE_CONFIG)
    if not isinstance(ours, pd.DataFrame):
        raise TypeError(f"ours must be a pandas DataFrame of result rows, got {type(ours).__name__}")
    if config_name is not None and len(ours):
        ours = ours[ours["config_name"] == config_name]
    mine = _fits(ours, "ours", ROTE_PAPER_MODEL_NAMES) if len(ours) else None
    if mine is None or not len(mine):
        return pd.DataFrame(columns=PAIR_COLUMNS)
    theirs = paper_fits() if paper is None else paper
    out = mine.merge(theirs.drop(columns="paper_model"), on=list(FIT_KEYS), how="inner", suffixes=("_ours", "_paper"))
    for col in ("epochs", "accuracy", "DL", "JW"):
        out[f"{col}_diff"] = out[f"{col}_ours"] - out[f"{col}_paper"]
    nc = out["task"].str.extract(r"^n(\d+)-c(\d+)$").astype(float)
    out["n"], out["c"] = nc[0].astype("Int64"), nc[1].astype("Int64")
    out["seed"], out["run"] = out["seed"].astype(int), out["run"].astype(int)
    for col in ("epochs_ours", "epochs_paper", "epochs_diff"):  # whole epochs (NA when a side has none)
        out[col] = out[col].round().astype("Int64")
    return out[PAIR_COLUMNS].sort_values(["model", "n", "c", "seed", "run"]).reset_index(drop=True)


def _summary_line(model: str, paper_model: str, g) -> dict[str, Any]:
    ours_exact, paper_exact = g["exact_ours"] == 1.0, g["exact_paper"] == 1.0
    return {"model": model, "paper_model": paper_model, "fits": len(g),
            "epochs_equal": int((g["epochs_diff"] == 0).sum()),
            "accuracy_within": int((g["accuracy_diff"].abs() <= ACCURACY_TOL + 1e-12).sum()),
            "DL_mad": float(g["DL_diff"].abs().mean()), "JW_mad": float(g["JW_diff"].abs().mean()),
            "exact_agree": int((ours_exact == paper_exact).sum()),
            "exact_ours": int(ours_exact.sum()), "exact_paper": int(paper_exact.sum()),
            "DL_mean_ours": float(g["DL_ours"].mean()), "DL_mean_paper": float(g["DL_paper"].mean())}


def fit_summary(pairs):
    """Per model of :func:`fit_pairs` ``pairs``, then one ``all`` line: ``fits`` compared,
    ``epochs_equal`` (same stopping epoch), ``accuracy_within`` (|Δ accuracy| <= :data:`ACCURACY_TOL`),
    ``DL_mad`` / ``JW_mad`` (mean |Δ|), ``exact_agree`` (both exact or both not), the exact
    rollouts of each side and the mean DL of each side. Counts are fits; empty pairs: no lines."""
    import pandas as pd

    lines = [_summary_line(model, g["paper_model"].iloc[0], g) for model, g in pairs.groupby("model", sort=True)]
    if lines:
        lines.append(_summary_line("all", "", pairs))
    return pd.DataFrame(lines, columns=SUMMARY_COLUMNS)


def summary_text(summary, *, bold: bool = False) -> str:
    """The ``all`` line of :func:`fit_summary` in one sentence (``"no fit of ours ..."`` when empty)."""
    if not len(summary):
        return f"No fit of `{ROTE_CONFIG}` is paired with an archived fit yet."
    a = summary[summary["model"] == "all"].iloc[0]
    n = int(a["fits"])
    b = "**" if bold else ""
    return (f"{b}{n}{b} fits compared with their archived twins (same task, seed, run and model): "
            f"same stopping epoch in {b}{a['epochs_equal']}/{n}{b}, test accuracy within {ACCURACY_TOL} in "
            f"{b}{a['accuracy_within']}/{n}{b}, exact rollout agreeing in {b}{a['exact_agree']}/{n}{b} "
            f"(ours {a['exact_ours']}, paper {a['exact_paper']}); mean |ΔDL| {a['DL_mad']:.3f}, "
            f"mean |ΔJW| {a['JW_mad']:.3f}.")


def markdown(pairs, summary, provenance: dict | None, *, command: str = "") -> str:
    """The generated ROTE block of ``docs/reproduction.md``: counts, the summary by model and the
    fit-by-fit table (or a line saying that no ROTE rows are shipped yet)."""
    lines = ["<!-- generated by: " + (command or "python benchmarks/reproduction_report.py") + " -->", ""]
    if provenance is None:
        lines += [f"**No ROTE rows are shipped yet**; export them with `rote-hf results --export-reproduction "
                  f"--results DIR --config eval_suite/configs/{ROTE_CONFIG}.yaml`.", ""]
        return "\n".join(lines) + "\n"
    lines += [f"**Fits**: {provenance['runs_ok']:,} finished (ok), {provenance['runs_failed']} failed, "
              f"{provenance['runs_left']:,} left of the {provenance['runs_expected']:,} of `{provenance['config_name']}` "
              f"(sweep hash `{provenance['sweep_hash']}`; commits "
              f"{', '.join(c[:12] for c in provenance['git_commits']) or '–'}; exported with `{provenance['command']}`).",
              "", summary_text(summary, bold=True), ""]
    if not len(pairs):
        return "\n".join(lines) + "\n"
    lines += ["### ROTE: by model", "",
              f"`epochs_equal`: same stopping epoch; `accuracy_within`: |Δ test accuracy| ≤ {ACCURACY_TOL}; "
              "`DL_mad`, `JW_mad`: mean |ours − paper|; `exact_agree`: both exact or both not.", "",
              md_table(summary, SUMMARY_COLUMNS), "",
              "### ROTE: fit by fit", "",
              md_table(pairs.assign(n=pairs["n"].astype(int), c=pairs["c"].astype(int),
                                    exact_ours=pairs["exact_ours"].map(_yes), exact_paper=pairs["exact_paper"].map(_yes)),
                       ["model", "task", "seed", "run", "epochs_ours", "epochs_paper", "accuracy_ours", "accuracy_paper",
                        "DL_ours", "DL_paper", "JW_ours", "JW_paper", "exact_ours", "exact_paper"]), ""]
    return "\n".join(lines) + "\n"


def _yes(v: Any) -> str:
    return "–" if v != v else ("yes" if v == 1.0 else "no")


__all__ = ["ACCURACY_TOL", "PAIR_COLUMNS", "ROTE_CONFIG", "ROTE_PAPER_MODEL_NAMES", "SUMMARY_COLUMNS", "fit_pairs",
           "fit_summary", "markdown", "paper_fits", "summary_text"]
