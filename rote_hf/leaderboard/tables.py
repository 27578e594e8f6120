"""The three leaderboard tables: ROTE, CogScale and OEIS-LLM, each with filters and provenance.

Input everywhere: the DataFrame of :func:`rote_hf.results.load` (``include_paper=True``, JSON
columns decoded to dicts). Our runs are aggregated over seeds and runs; published rows
(``source="paper"``) are already aggregates (one table cell each) and are shown as they are,
beside ours. Every output row carries its provenance: ``source``, ``version``, ``commit``,
``fingerprint`` and ``verified`` (``verified``, ``unverified`` or ``unverified (submitted)``).

A filter value of :data:`ALL` keeps everything; other values are compared as strings, because
the Gradio dropdowns hand strings back.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

ALL = "all"

ROTE_SUITES = ("rote", "rote_matched")
PROVENANCE_COLUMNS = ("source", "version", "commit", "fingerprint", "verified")
LR_LABELS = {
    "validation": "validation (the paper's stated protocol)",
    "test": "test (as the published table was made)",
}
PAPER_LR_LABEL = "test (published table)"
DIGITS = 4
"""Decimals shown in the boards (values are rounded for display only; the store keeps all)."""


# -- provenance -------------------------------------------------------------------------------------

def verified_mark(verified: Any, settings: Any) -> str:
    """The ``verified`` column: ``verified``, ``unverified (submitted)`` or ``unverified``."""
    if bool(verified) and verified is not None and not _nan(verified):
        return "verified"
    if isinstance(settings, dict) and "submission" in settings:
        return "unverified (submitted)"
    return "unverified"


def _nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _join(values: Iterable[Any], limit: int = 3, width: int = 0) -> str:
    """Distinct non-empty values, sorted, at most ``limit`` shown (``+k more`` after)."""
    seen = sorted({str(v)[:width] if width else str(v) for v in values
                   if v is not None and not _nan(v) and str(v) != ""})
    text = ", ".join(seen[:limit])
    return text + (f" (+{len(seen) - limit} more)" if len(seen) > limit else "")


def _provenance(group) -> dict[str, str]:
    return {
        "source": _join(group["source"]),
        "version": _join(group["package_version"]),
        "commit": _join(group["git_commit"], width=12),
        "fingerprint": _join(group["dataset_fingerprint"]),
        "verified": _join(group["verified_mark"]),
    }


def _with_marks(df):
    df = df.copy()
    df["verified_mark"] = [verified_mark(v, s) for v, s in zip(df["verified"], df["settings"])]
    return df


def _metric(df, name: str) -> list[float]:
    return [float(m[name]) if isinstance(m, dict) and m.get(name) is not None else math.nan for m in df["metrics"]]


def _match(value: Any, wanted: str) -> bool:
    return wanted in (None, "", ALL) or str(value) == str(wanted)


def _check_choice(name: str, value: str, allowed: Iterable[str]) -> None:
    allowed = list(allowed)
    if value not in (None, "", ALL) and value not in allowed:
        raise ValueError(f"{name} must be one of {[ALL, *allowed]}, got {value!r}")


# -- ROTE ---------------------------------------------------------------------------------------------

def _paper_scope(config: str) -> tuple[str, str]:
    """(n, c) that a published ROTE table covers."""
    if config.startswith("table2"):
        return ALL, "90"
    if config.startswith("table3"):
        return "4,8", "90"
    return ALL, ALL  # summary_by_model: all 80 fits of each model


def rote_frame(df):
    """One line per ROTE row (ours and paper) with the columns the board and plots need.

    Columns: ``track`` (suite), ``model``, ``table`` (paper table or ``runs``), ``n``, ``c``
    (strings; a published aggregate over several values has ``all`` or ``4,8``), ``status``,
    ``DL``, ``accuracy`` (next-symbol test accuracy), ``exact`` (1 = exact rollout),
    ``test_loss``, ``params``, ``train_time_s``, ``time_per_epoch_s``, ``peak_cuda_mb``,
    ``peak_cpu_mb``, ``device``, ``forecast``, ``target`` and the provenance fields.
    """
    import pandas as pd

    df = _with_marks(df[df["suite"].isin(ROTE_SUITES)])
    out = []
    for rec in df.to_dict("records"):
        m = rec["metrics"] if isinstance(rec["metrics"], dict) else {}
        cell = rec["source"] == "paper" and "DL" not in m  # a published aggregate, not one fit
        if cell:
            n, c = _paper_scope(rec["config"])
            dl = m.get("DL_mean")
            acc = m.get("test_accuracy_mean")
            exact = m.get("exact_rollout_rate")
            loss = m.get("test_loss_mean")
        else:
            p = rec["task_params"] if isinstance(rec["task_params"], dict) else {}
            n, c = str(p.get("symbols", "")), str(p.get("complexity", ""))
            dl, acc, exact, loss = m.get("DL"), m.get("test_accuracy"), m.get("exact"), m.get("test_loss")
        outputs = rec["outputs"] if isinstance(rec["outputs"], dict) else {}
        out.append({
            "track": rec["suite"], "model": rec["model"], "table": rec["config"] if cell else "runs", "n": n, "c": c,
            "status": rec["status"], "DL": _num(dl), "accuracy": _num(acc), "exact": _num(exact), "test_loss": _num(loss),
            "params": _num(rec["param_count"]), "train_time_s": _num(rec["train_time_s"]),
            "time_per_epoch_s": _num(rec["time_per_epoch_s"]), "peak_cuda_mb": _num(rec["peak_cuda_mb"]),
            "peak_cpu_mb": _num(rec["peak_cpu_mb"]), "device": rec["device"] or "",
            "forecast": outputs.get("forecast", ""), "target": outputs.get("target", ""),
            "source": rec["source"], "package_version": rec["package_version"], "git_commit": rec["git_commit"],
            "dataset_fingerprint": rec["dataset_fingerprint"], "verified_mark": rec["verified_mark"],
        })
    columns = ["track", "model", "table", "n", "c", "status", "DL", "accuracy", "exact", "test_loss", "params",
               "train_time_s", "time_per_epoch_s", "peak_cuda_mb", "peak_cpu_mb", "device", "forecast", "target",
               "source", "package_version", "git_commit", "dataset_fingerprint", "verified_mark"]
    return pd.DataFrame(out, columns=columns)


def _num(value: Any) -> float:
    if value is None:
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _covers(scope: str, wanted: str) -> bool:
    """Does a row whose n (or c) is ``scope`` belong to filter value ``wanted``?"""
    if wanted in (None, "", ALL) or scope == ALL:
        return True
    return str(wanted) in scope.split(",")


def filter_rote(frame, *, n: str = ALL, c: str = ALL, track: str = ALL, source: str = ALL, device: str = ALL):
    """Rows of :func:`rote_frame` that pass the filters (published aggregates over all n or c
    pass any n or c filter: they cover it)."""
    keep = [
        _covers(rn, n) and _covers(rc, c) and _match(rt, track) and _match(rs, source) and _match(rd, device)
        for rn, rc, rt, rs, rd in zip(frame["n"], frame["c"], frame["track"], frame["source"], frame["device"])
    ]
    return frame[keep].reset_index(drop=True)


def rote_board(df, *, n: str = ALL, c: str = ALL, track: str = ALL, source: str = ALL, device: str = ALL):
    """The ROTE table: one line per (source, track, model, device, verified) of single fits (ours and
    the published per-fit rows) and one per published aggregate cell. Columns: identity, ``runs``/``failed``, ``exact_rate``, ``DL_mean``, ``DL@c<c>``
    for each complexity present, ``test_loss``, ``test_accuracy``, ``params``, ``train_time_s``,
    ``time_per_epoch_s`` (medians for our runs), ``peak_cuda_mb``, ``peak_cpu_mb``, provenance."""
    import pandas as pd

    from rote_hf.results.aggregate import rote_stats

    frame = rote_frame(df)
    choices = filter_choices(df)
    for name, value in (("n", n), ("c", c), ("track", track), ("source", source), ("device", device)):
        _check_choice(name, value, choices[name])
    frame = filter_rote(frame, n=n, c=c, track=track, source=source, device=device)
    cs = sorted({v for v in frame["c"] if v not in (ALL, "")}, key=lambda v: (len(v), v))
    out = []
    fits = frame[frame["table"] == "runs"]  # ours and the published per-fit rows, aggregated alike
    for key, g in fits.groupby(["track", "model", "device", "verified_mark", "source"], sort=True):
        ok = g[g["status"] == "ok"]
        # the one ROTE aggregation (also behind `rote-hf results --view rote`)
        st = rote_stats(ok.rename(columns={"accuracy": "test_accuracy", "params": "param_count"}))
        rec = {"track": key[0], "model": key[1], "table": "runs", "n": _join(g["n"], limit=8),
               "c": _join(g["c"], limit=8), "runs": len(ok), "failed": int((g["status"] != "ok").sum()),
               "exact_rate": st["exact_rate"], "DL_mean": st["DL_mean"]}
        for cv in cs:
            rec[f"DL@c{cv}"] = ok.loc[ok["c"] == cv, "DL"].mean()
        rec.update({"test_loss": st["test_loss_mean"], "test_accuracy": st["test_accuracy_mean"],
                    "params": st["params"], "train_time_s": st["train_time_median_s"],
                    "time_per_epoch_s": st["time_per_epoch_median_s"], "peak_cuda_mb": st["peak_cuda_mb_median"],
                    "peak_cpu_mb": st["peak_cpu_mb_median"], "device": key[2]})
        rec.update(_provenance(g))
        out.append(rec)
    for r in frame[frame["table"] != "runs"].to_dict("records"):
        rec = {"track": r["track"], "model": r["model"], "table": r["table"], "n": r["n"], "c": r["c"],
               "runs": math.nan, "failed": 0, "exact_rate": r["exact"], "DL_mean": r["DL"]}
        for cv in cs:
            rec[f"DL@c{cv}"] = r["DL"] if r["c"] == cv else math.nan
        rec.update({"test_loss": r["test_loss"], "test_accuracy": r["accuracy"], "params": r["params"],
                    "train_time_s": r["train_time_s"], "time_per_epoch_s": r["time_per_epoch_s"],
                    "peak_cuda_mb": r["peak_cuda_mb"], "peak_cpu_mb": r["peak_cpu_mb"], "device": r["device"]})
        rec.update({"source": "paper", "version": "", "commit": "", "fingerprint": "", "verified": r["verified_mark"]})
        out.append(rec)
    columns = ["source", "track", "model", "table", "n", "c", "runs", "failed", "exact_rate", "DL_mean",
               *[f"DL@c{cv}" for cv in cs], "test_loss", "test_accuracy", "params", "train_time_s",
               "time_per_epoch_s", "peak_cuda_mb", "peak_cpu_mb", "device", "version", "commit", "fingerprint",
               "verified"]
    board = pd.DataFrame(out, columns=columns)
    if len(board):
        board = board.sort_values(["track", "source", "DL_mean", "model"], na_position="last", kind="stable")
    return board.reset_index(drop=True).round(DIGITS)


def filter_choices(df) -> dict[str, list[str]]:
    """Dropdown choices (without :data:`ALL`) of every filter of the three boards."""
    frame = rote_frame(df)

    def values(series, numeric: bool = False) -> list[str]:
        vals = {str(v) for v in series if str(v) not in ("", ALL, "nan", "None")}
        parts = {p for v in vals for p in v.split(",")} if numeric else vals
        return sorted(parts, key=(lambda v: (len(v), v)) if numeric else str)

    cog = df[df["suite"] == "cogscale"]
    llm = _llm_rows(df)
    return {
        "n": values(frame["n"], numeric=True), "c": values(frame["c"], numeric=True),
        "track": values(frame["track"]), "source": values(df["source"]), "device": values(frame["device"]),
        "task": values(cog["task"]), "difficulty": values(cog["config"]), "budget": _budgets(cog["budget"]),
        "stratum": values(llm["task"]), "llm_model": values(llm["model"]),
    }


def _budgets(series) -> list[str]:
    def key(b: str) -> tuple[float, str]:
        mult = {"k": 1e3, "M": 1e6}.get(b[-1:], 1.0)
        try:
            return (float(b[:-1] if b[-1:] in "kM" else b) * mult, b)
        except ValueError:
            return (math.inf, b)

    return sorted({str(b) for b in series if str(b) not in ("", "nan", "None")}, key=key)


# -- CogScale ------------------------------------------------------------------------------------------

def cogscale_board(df, *, lr_selection: str = "validation", task: str = ALL, difficulty: str = ALL,
                   budget: str = ALL, source: str = ALL):
    """CogScale task x difficulty x budget x model: mean ± std over seeds at the chosen learning rate.

    Our runs: ``lr_selection="validation"`` (the paper's stated protocol, default) or ``"test"``
    (the published-table variant, labelled as such) via :func:`rote_hf.results.aggregate.cogscale_table`,
    plus ``best_overall``: the single lowest test score over all seeds, learning rates and budgets of
    (task, difficulty, model). Published cells are shown with their own label (LR chosen on test).
    """
    import pandas as pd

    from rote_hf.results.aggregate import LR_SELECTIONS, cogscale_table

    if lr_selection not in LR_SELECTIONS:
        raise ValueError(f"lr_selection must be one of {list(LR_SELECTIONS)}, got {lr_selection!r}")
    choices = filter_choices(df)
    for name, value in (("task", task), ("difficulty", difficulty), ("budget", budget), ("source", source)):
        _check_choice(name, value, choices[name])
    cog = _with_marks(df[df["suite"] == "cogscale"])
    cog = cog[[_match(t, task) and _match(d, difficulty) and _match(s, source)
               for t, d, s in zip(cog["task"], cog["config"], cog["source"])]]
    out = []
    ours = cog[cog["source"] != "paper"]
    for mark, g in ours.groupby("verified_mark", sort=True):
        ok = g[g["status"] == "ok"]
        scores = pd.Series(_metric(ok, "test_score"), index=ok.index)
        best = scores.groupby([ok["task"], ok["config"], ok["model"]]).min()
        table = cogscale_table(g, lr_selection=lr_selection)
        for r in table.to_dict("records"):
            cell = g[(g["task"] == r["task"]) & (g["config"] == r["difficulty"]) & (g["model"] == r["model"])
                     & (g["budget"] == r["budget"])]
            rec = {"task": r["task"], "difficulty": r["difficulty"], "budget": r["budget"], "model": r["model"],
                   "mean ± std": _pm(r["mean"], r["std"]), "mean": r["mean"], "std": r["std"],
                   "ci95": _interval(r["ci95_low"], r["ci95_high"]), "seeds": r["seeds"], "failed": r["failed"],
                   "learning_rate": r["learning_rate"], "lr_selection": LR_LABELS[lr_selection],
                   "best_overall": best.get((r["task"], r["difficulty"], r["model"]), math.nan)}
            rec.update(_provenance(cell))
            out.append(rec)
    for r in cog[cog["source"] == "paper"].to_dict("records"):
        mean, std = r["metrics"].get("test_score_mean"), r["metrics"].get("test_score_std")
        out.append({"task": r["task"], "difficulty": r["config"], "budget": r["budget"], "model": r["model"],
                    "mean ± std": _pm(mean, std), "mean": mean, "std": std, "ci95": "", "seeds": 10, "failed": 0,
                    "learning_rate": math.nan, "lr_selection": PAPER_LR_LABEL, "best_overall": math.nan,
                    "source": "paper", "version": "", "commit": "", "fingerprint": "",
                    "verified": r["verified_mark"]})
    columns = ["task", "difficulty", "budget", "model", "mean ± std", "mean", "std", "ci95", "seeds", "failed",
               "learning_rate", "lr_selection", "best_overall", *PROVENANCE_COLUMNS]
    board = pd.DataFrame(out, columns=columns)
    board = board[[_match(b, budget) for b in board["budget"]]]
    if len(board):
        order = {b: i for i, b in enumerate(_budgets(board["budget"]))}
        board = board.assign(_b=[order[b] for b in board["budget"]]).sort_values(
            ["task", "difficulty", "_b", "mean", "model"], na_position="last", kind="stable").drop(columns="_b")
    return board.reset_index(drop=True).round(DIGITS)


def _pm(mean: Any, std: Any) -> str:
    mean, std = _num(mean), _num(std)
    if math.isnan(mean):
        return ""
    return f"{mean:.2f} ± {std:.2f}" if not math.isnan(std) else f"{mean:.2f}"


def _interval(low: Any, high: Any) -> str:
    low, high = _num(low), _num(high)
    return "" if math.isnan(low) or math.isnan(high) else f"[{low:.3f}, {high:.3f}]"


# -- OEIS-LLM ----------------------------------------------------------------------------------------

LLM_RATES = (
    ("accuracy", "accuracy"), ("abstention", "abstention_rate"), ("confabulation", "confabulation_rate"),
    ("recognition", "recognition_rate"), ("acc | recognised", "accuracy_recognized"),
    ("acc | unrecognised", "accuracy_unrecognized"),
)


def _llm_rows(df):
    """Per-(model, stratum) LLM-query rows: suite ``mdl`` with protocol ``llm-query``."""
    return df[(df["suite"] == "mdl") & (df["protocol"] == "llm-query")]


def llm_board(df, *, stratum: str = ALL, model: str = ALL, source: str = ALL):
    """OEIS-LLM: per model and MDL stratum, the rates of :func:`rote_hf.metrics.confabulation` with
    their Wilson 95 % intervals, mean stated confidence, scored and failed counts, provenance."""
    import pandas as pd

    choices = filter_choices(df)
    for name, value, key in (("stratum", stratum, "stratum"), ("model", model, "llm_model"), ("source", source, "source")):
        _check_choice(name, value, choices[key])
    rows = _with_marks(_llm_rows(df))
    rows = rows[[_match(t, stratum) and _match(m, model) and _match(s, source)
                 for t, m, s in zip(rows["task"], rows["model"], rows["source"])]]
    out = []
    for r in rows.to_dict("records"):
        m = r["metrics"] if isinstance(r["metrics"], dict) else {}
        rec = {"source": r["source"], "model": r["model"], "stratum": r["task"],
               "scored": _num(m.get("n_scored")), "failed": _num(m.get("n_failed"))}
        for label, key in LLM_RATES:
            rec[label] = _num(m.get(key))
            rec[f"{label} 95% CI"] = _interval(m.get(f"{key}_ci_low"), m.get(f"{key}_ci_high"))
        rec["mean confidence"] = _num(m.get("mean_confidence"))
        rec.update({"version": r["package_version"], "commit": str(r["git_commit"] or "")[:12],
                    "fingerprint": r["dataset_fingerprint"], "verified": r["verified_mark"]})
        out.append(rec)
    columns = ["source", "model", "stratum", "scored", "failed"]
    for label, _ in LLM_RATES:
        columns += [label, f"{label} 95% CI"]
    columns += ["mean confidence", "version", "commit", "fingerprint", "verified"]
    board = pd.DataFrame(out, columns=columns)
    strata = {"clean": 0, "revising": 1, "wilderness": 2}
    if len(board):
        board = board.assign(_s=[strata.get(s, 9) for s in board["stratum"]]).sort_values(
            ["_s", "stratum", "source", "model"], kind="stable").drop(columns="_s")
    return board.reset_index(drop=True).round(DIGITS)
