"""The three leaderboard tables: ROTE, CogScale and OEIS-LLM, each with filters and provenance.

Input everywhere: the DataFrame of :func:`rote_hf.leaderboard.load_rows` (published rows and
stored rows that meet the row schema, JSON columns decoded to dicts). Our runs are aggregated
over seeds and runs; published aggregates (``source="paper"``, one table cell each) are shown as
they are, beside ours. Every architecture appears under its one display name
(:func:`rote_hf.zoo.display.display_name`) with what distinguishes a model within it (registry
variant, preset or width) in the ``variant`` column. Every output row carries its provenance:
``source`` (``ours``, ``paper`` or ``submitted``), ``version``, ``commit``, ``fingerprint`` and
``verified`` (``verified``, ``unverified`` or ``unverified (submitted)``).

A filter value of :data:`ALL` keeps everything; other values are compared as strings, because
the Gradio dropdowns hand strings back.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from rote_hf.results.aggregate import LR_SELECTIONS, cogscale_table, rote_summary
from rote_hf.results.schema import SOURCES, budget_value
from rote_hf.zoo.display import display_name, published_display_name, variant

ALL = "all"
RUNS = "runs"
"""The ROTE board's default table kind: one line per model and track, aggregated from the runs."""
ROTE_TABLES = (RUNS, "summary_by_model", "table2_main_c90", "table3_matched")
SOURCE_ORDER = {"ours": 0, "submitted": 1, "paper": 2}
COG_VIEWS = ("ours", "all")
"""CogScale cell views: ``ours`` = the cells (task, difficulty, budget) we ran, each with the
paper's rows beside ours (all cells when we ran none); ``all`` = every cell."""

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
    if settings == "submitted" or (isinstance(settings, dict) and "submission" in settings):
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
    df["verified_mark"] = [verified_mark(v, "submitted" if src == "submitted" else s)
                           for v, s, src in zip(df["verified"], df["settings"], df["source"])]
    # a published row's name is read in its paper's terms (ROTE's Transformer is the encoder-decoder)
    df["display_model"] = [published_display_name(m, suite) if src == "paper" else display_name(m)
                           for m, suite, src in zip(df["model"], df["suite"], df["source"])]
    df["variant"] = [variant(m, c) for m, c in zip(df["model"], df["model_config"])]
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

    Columns: ``run_id``, ``track`` (suite), ``model`` (display name), ``variant``, ``table`` (paper table or ``runs``), ``n``, ``c``
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
            "run_id": rec["run_id"], "track": rec["suite"], "model": rec["display_model"], "variant": rec["variant"],
            "table": rec["config"] if cell else RUNS, "n": n, "c": c,
            "status": rec["status"], "DL": _num(dl), "accuracy": _num(acc), "exact": _num(exact), "test_loss": _num(loss),
            "params": _num(rec["param_count"]), "train_time_s": _num(rec["train_time_s"]),
            "time_per_epoch_s": _num(rec["time_per_epoch_s"]), "peak_cuda_mb": _num(rec["peak_cuda_mb"]),
            "peak_cpu_mb": _num(rec["peak_cpu_mb"]), "device": rec["device"] or "",
            "forecast": outputs.get("forecast", ""), "target": outputs.get("target", ""),
            "source": rec["source"], "package_version": rec["package_version"], "git_commit": rec["git_commit"],
            "dataset_fingerprint": rec["dataset_fingerprint"], "verified_mark": rec["verified_mark"],
        })
    columns = ["run_id", "track", "model", "variant", "table", "n", "c", "status", "DL", "accuracy", "exact", "test_loss", "params",
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


def rote_board(df, *, n: str = ALL, c: str = ALL, track: str = ALL, source: str = ALL, device: str = ALL,
               table: str = RUNS):
    """The ROTE table. ``table="runs"`` (default): one line per (source, track, model, variant,
    device, verified) aggregated from the single fits (ours and the paper's archived fits) by
    :func:`rote_hf.results.aggregate.rote_summary`; a published table's name
    (``summary_by_model``, ``table2_main_c90``, ``table3_matched``) shows its cells as published;
    ``"all"`` shows both. Columns: identity, ``runs``/``failed``, ``exact_rate``, ``DL_mean``,
    ``DL@c<c>`` for each complexity present, ``test_loss``, ``test_accuracy``, ``params``,
    ``train_time_s``, ``time_per_epoch_s`` (medians), ``peak_cuda_mb``, ``peak_cpu_mb``, provenance."""
    import pandas as pd

    frame = rote_frame(df)
    choices = filter_choices(df)
    choices["source"] = _sources(choices["source"])
    for name, value in (("n", n), ("c", c), ("track", track), ("source", source), ("device", device),
                        ("table", table)):
        _check_choice(name, value, choices[name])
    frame = filter_rote(frame, n=n, c=c, track=track, source=source, device=device)
    if table not in (None, "", ALL):
        frame = frame[frame["table"] == table]
    cs = sorted({v for v in frame["c"] if v not in (ALL, "")}, key=lambda v: (len(v), v))
    fits = frame[frame["table"] == RUNS]
    out = _rote_fit_lines(df, fits, cs)
    for r in frame[frame["table"] != RUNS].to_dict("records"):
        rec = {"track": r["track"], "model": r["model"], "variant": r["variant"], "table": r["table"], "n": r["n"],
               "c": r["c"], "runs": math.nan, "failed": 0, "exact_rate": r["exact"], "DL_mean": r["DL"]}
        for cv in cs:
            rec[f"DL@c{cv}"] = r["DL"] if r["c"] == cv else math.nan
        rec.update({"test_loss": r["test_loss"], "test_accuracy": r["accuracy"], "params": r["params"],
                    "train_time_s": r["train_time_s"], "time_per_epoch_s": r["time_per_epoch_s"],
                    "peak_cuda_mb": r["peak_cuda_mb"], "peak_cpu_mb": r["peak_cpu_mb"], "device": r["device"]})
        rec.update({"source": "paper", "version": "", "commit": "", "fingerprint": "", "verified": r["verified_mark"]})
        out.append(rec)
    board = pd.DataFrame(out, columns=rote_columns(cs))
    if len(board):
        board = board.assign(_s=[SOURCE_ORDER.get(v, 9) for v in board["source"]]).sort_values(
            ["track", "_s", "DL_mean", "model"], na_position="last", kind="stable").drop(columns="_s")
    return board.reset_index(drop=True).round(DIGITS)


def rote_columns(cs: Iterable[str] = ()) -> list[str]:
    """The ROTE board's columns (``cs``: the complexities with a ``DL@c`` column)."""
    return ["source", "track", "model", "variant", "table", "n", "c", "runs", "failed", "exact_rate", "DL_mean",
            *[f"DL@c{cv}" for cv in cs], "test_loss", "test_accuracy", "params", "train_time_s",
            "time_per_epoch_s", "peak_cuda_mb", "peak_cpu_mb", "device", "version", "commit", "fingerprint",
            "verified"]


_FIT_KEYS = ["display_model", "variant", "device", "verified_mark"]


def _rote_fit_lines(df, fits, cs: list[str]) -> list[dict]:
    """One board line per (track, source, model, variant, device, verified) of the single fits in
    ``fits`` (rows of :func:`rote_frame`), the figures from :func:`rote_summary`."""
    if not len(fits):
        return []
    raw = _with_marks(df[df["run_id"].isin(set(fits["run_id"]))])
    raw["device"] = raw["device"].fillna("")
    out = []
    for (track, src), g in raw.groupby(["suite", "source"], sort=True):
        summary = rote_summary(g, suite=track, by=tuple(_FIT_KEYS), source=src)
        per_c = rote_summary(g, suite=track, by=(*_FIT_KEYS, "c"), source=src) if cs else None
        lines = fits[(fits["track"] == track) & (fits["source"] == src)]
        for s in summary.to_dict("records"):
            key = tuple(s[k] for k in _FIT_KEYS)
            part = lines[(lines["model"] == key[0]) & (lines["variant"] == key[1]) & (lines["device"] == key[2])
                         & (lines["verified_mark"] == key[3])]
            rec = {"track": track, "model": key[0], "variant": key[1], "table": RUNS, "n": _join(part["n"], limit=8),
                   "c": _join(part["c"], limit=8), "runs": s["fits"], "failed": s["failed"],
                   "exact_rate": s["exact_rate"], "DL_mean": s["DL_mean"]}
            for cv in cs:
                match = per_c[(per_c[_FIT_KEYS] == list(key)).all(axis=1) & (per_c["c"].astype(str) == cv)]
                rec[f"DL@c{cv}"] = match["DL_mean"].iloc[0] if len(match) else math.nan
            rec.update({"test_loss": s["test_loss_mean"], "test_accuracy": s["test_accuracy_mean"],
                        "params": s["params"], "train_time_s": s["train_time_median_s"],
                        "time_per_epoch_s": s["time_per_epoch_median_s"], "peak_cuda_mb": s["peak_cuda_mb_median"],
                        "peak_cpu_mb": s["peak_cpu_mb_median"], "device": key[2]})
            rec.update(_provenance(part))
            out.append(rec)
    return out


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
        "table": list(ROTE_TABLES),
        "task": values(cog["task"]), "difficulty": values(cog["config"]), "budget": _budgets(cog["budget"]),
        "stratum": values(llm["task"]), "llm_model": values(llm["model"]),
    }


def _sources(present: list[str]) -> list[str]:
    """Every source a row can have (a filter on one with no rows yet gives an empty board)."""
    return [*SOURCES, *[s for s in present if s not in SOURCES]]


def _budgets(series) -> list[str]:
    """Distinct budget labels, smallest budget first (:func:`rote_hf.results.schema.budget_value`)."""
    return sorted({str(b) for b in series if str(b) not in ("", "nan", "None")}, key=lambda b: (budget_value(b), b))


# -- CogScale ------------------------------------------------------------------------------------------

def cogscale_board(df, *, lr_selection: str = "validation", task: str = ALL, difficulty: str = ALL,
                   budget: str = ALL, source: str = ALL, cells: str = "ours"):
    """CogScale task x difficulty x budget x model: mean ± std over seeds at the chosen learning rate.

    Our runs: ``lr_selection="validation"`` (the paper's stated protocol, default) or ``"test"``
    (the published-table variant, labelled as such) via :func:`rote_hf.results.aggregate.cogscale_table`,
    plus ``best_overall``: the single lowest test score over all seeds, learning rates and budgets of
    (task, difficulty, model). Published cells are shown with their own label (LR chosen on test).

    ``cells="ours"`` (default) keeps the cells (task, difficulty, budget) that hold rows of ours or
    submitted rows, each with the paper's rows for the same cell beside them (every cell when
    there are none); ``cells="all"`` keeps every cell. Lines are sorted by task, difficulty,
    budget, model (display name), then source (ours, submitted, paper).

    The same as :func:`select_cogscale` on :func:`cogscale_lines` (every cell is computed from its
    own rows alone, so filtering the lines equals filtering the rows first); a server computes
    the lines once per version of its rows and selects per request.
    """
    return select_cogscale(cogscale_lines(df, lr_selection=lr_selection), filter_choices(df), task=task,
                           difficulty=difficulty, budget=budget, source=source, cells=cells)


def cogscale_lines(df, *, lr_selection: str = "validation"):
    """Every line of the CogScale board, unfiltered and unsorted (columns :data:`COGSCALE_COLUMNS`):
    the aggregation behind :func:`cogscale_board`, which costs seconds at the full grid."""
    import pandas as pd

    if lr_selection not in LR_SELECTIONS:
        raise ValueError(f"lr_selection must be one of {list(LR_SELECTIONS)}, got {lr_selection!r}")
    cog = _with_marks(df[df["suite"] == "cogscale"])
    out = []
    cog = cog.assign(model=cog["display_model"])
    ours = cog[cog["source"] != "paper"]
    cell_keys = ["task", "config", "model", "budget"]
    for (src, mark, var), g in ours.groupby(["source", "verified_mark", "variant"], sort=True):
        ok = g[g["status"] == "ok"]
        scores = pd.Series(_metric(ok, "test_score"), index=ok.index)
        best = scores.groupby([ok["task"], ok["config"], ok["model"]]).min()
        provenance = {key: _provenance(cell) for key, cell in g.groupby(cell_keys, sort=False)}
        table = cogscale_table(g, lr_selection=lr_selection, source=src)
        for r in table.to_dict("records"):
            rec = {"task": r["task"], "difficulty": r["difficulty"], "budget": r["budget"], "model": r["model"],
                   "variant": var, "mean ± std": _pm(r["mean"], r["std"]), "mean": r["mean"], "std": r["std"],
                   "ci95": _interval(r["ci95_low"], r["ci95_high"]), "seeds": r["seeds"], "failed": r["failed"],
                   "learning_rate": r["learning_rate"], "lr_selection": LR_LABELS[lr_selection],
                   "best_overall": best.get((r["task"], r["difficulty"], r["model"]), math.nan)}
            rec.update(provenance[(r["task"], r["difficulty"], r["model"], r["budget"])])
            out.append(rec)
    for r in cog[cog["source"] == "paper"].to_dict("records"):
        mean, std = r["metrics"].get("test_score_mean"), r["metrics"].get("test_score_std")
        out.append({"task": r["task"], "difficulty": r["config"], "budget": r["budget"], "model": r["model"],
                    "variant": r["variant"], "mean ± std": _pm(mean, std), "mean": mean, "std": std, "ci95": "", "seeds": 10, "failed": 0,
                    "learning_rate": math.nan, "lr_selection": PAPER_LR_LABEL, "best_overall": math.nan,
                    "source": "paper", "version": "", "commit": "", "fingerprint": "",
                    "verified": r["verified_mark"]})
    return pd.DataFrame(out, columns=COGSCALE_COLUMNS).round(DIGITS)


def select_cogscale(lines, choices: dict[str, list[str]], *, task: str = ALL, difficulty: str = ALL,
                    budget: str = ALL, source: str = ALL, cells: str = "ours"):
    """The board of :func:`cogscale_board` from its :func:`cogscale_lines`: the filters, the cells
    shown and the order. ``choices``: :func:`filter_choices` of the same rows (a value outside
    them is refused, naming the filter)."""
    if cells not in COG_VIEWS:
        raise ValueError(f"cells must be one of {list(COG_VIEWS)}, got {cells!r}")
    sources = _sources(choices["source"])
    for name, value, allowed in (("task", task, choices["task"]), ("difficulty", difficulty, choices["difficulty"]),
                                 ("budget", budget, choices["budget"]), ("source", source, sources)):
        _check_choice(name, value, allowed)
    keep = [_match(t, task) and _match(d, difficulty) and _match(b, budget) and _match(s, source)
            for t, d, b, s in zip(lines["task"], lines["difficulty"], lines["budget"], lines["source"])]
    board = lines[keep]
    if cells == "ours":
        mine = {(t, d, b) for t, d, b, s in zip(board["task"], board["difficulty"], board["budget"], board["source"])
                if s != "paper"}
        if mine:
            board = board[[(t, d, b) in mine for t, d, b in zip(board["task"], board["difficulty"], board["budget"])]]
    if len(board):
        order = {b: i for i, b in enumerate(_budgets(board["budget"]))}
        board = board.assign(_b=[order[b] for b in board["budget"]],
                             _s=[SOURCE_ORDER.get(v, 9) for v in board["source"]]).sort_values(
            ["task", "difficulty", "_b", "model", "_s", "variant"], kind="stable").drop(columns=["_b", "_s"])
    return board.reset_index(drop=True)


COGSCALE_COLUMNS = ["task", "difficulty", "budget", "model", "variant", "source", "mean ± std", "mean", "std", "ci95",
                    "seeds", "failed", "learning_rate", "lr_selection", "best_overall", "version", "commit",
                    "fingerprint", "verified"]
"""The CogScale board's columns (our rows and the paper's of one cell side by side)."""


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
    choices["source"] = _sources(choices["source"])
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
