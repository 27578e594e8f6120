"""Data behind the leaderboard's plots (long-format DataFrames for Gradio's native Vega plots),
and the CogScale cognitive radar as an SVG string (Gradio has no radar plot).

ROTE (inputs: :func:`rote_hf.leaderboard.tables.rote_frame` rows after filtering, or the board):

- :func:`complexity_curves`: DL and next-symbol accuracy vs LZW complexity ``c`` per model;
- :func:`rollout_error_curves`: the paper's Figure 2, mean cumulative rollout error vs horizon;
- :func:`pareto`: quality (DL mean) vs compute (median train time), with the Pareto front marked;
- :func:`dl_vs_params`: DL mean vs parameter count.

Published points appear with the series name ``<model> (paper)``.
"""

from __future__ import annotations

import html
import math

COMPLEXITY_COLUMNS = ["model", "c", "DL", "accuracy"]
ROLLOUT_COLUMNS = ["model", "horizon", "error"]
PARETO_COLUMNS = ["model", "train_time_s", "DL_mean", "params", "pareto_front"]


def _label(model: str, source: str, track: str = "rote") -> str:
    """Series name: ``GRU``, ``GRU (paper)``, ``GRU (matched)``, ``GRU (paper, matched)``."""
    tags = [t for t, on in (("paper", source == "paper"), ("matched", track == "rote_matched")) if on]
    return f"{model} ({', '.join(tags)})" if tags else model


def complexity_curves(frame):
    """Mean DL and accuracy per (series, c) over ok rows with a numeric c; ``c`` is an int."""
    import pandas as pd

    rows = frame[(frame["status"] == "ok") & frame["c"].str.fullmatch(r"\d+")]
    if not len(rows):
        return pd.DataFrame(columns=COMPLEXITY_COLUMNS)
    rows = rows.assign(series=[_label(m, s, t) for m, s, t in zip(rows["model"], rows["source"], rows["track"])],
                       cval=rows["c"].astype(int))
    agg = rows.groupby(["series", "cval"], sort=True).agg(DL=("DL", "mean"), accuracy=("accuracy", "mean")).reset_index()
    return agg.rename(columns={"series": "model", "cval": "c"})[COMPLEXITY_COLUMNS]


def rollout_error_curves(frame):
    """Per model: the mean cumulative rollout error at each horizon (mismatches in 1..h / h),
    from the stored forecasts and targets of our runs (:func:`rote_hf.metrics.cumulative_error_curve`)."""
    import pandas as pd

    from rote_hf.metrics import cumulative_error_curve

    rows = frame[(frame["status"] == "ok") & (frame["forecast"].str.len() > 0) & (frame["target"].str.len() > 0)]
    out = []
    rows = rows.assign(series=[_label(m, "ours", t) for m, t in zip(rows["model"], rows["track"])])
    for model, g in rows.groupby("series", sort=True):
        curve = cumulative_error_curve(list(g["forecast"]), list(g["target"]))
        out.extend({"model": model, "horizon": h, "error": e} for h, e in enumerate(curve, start=1) if not math.isnan(e))
    return pd.DataFrame(out, columns=ROLLOUT_COLUMNS)


def pareto(board):
    """Board lines with both a DL mean and a train time: (series, time, DL, params, on the front?).

    A point is on the Pareto front when no other point is at least as good on both axes
    (lower train time and lower DL) and strictly better on one.
    """
    import pandas as pd

    pts = board.dropna(subset=["DL_mean", "train_time_s"])
    pts = pd.DataFrame({"model": [_label(m, s, t) for m, s, t in zip(pts["model"], pts["source"], pts["track"])],
                        "train_time_s": pts["train_time_s"].astype(float), "DL_mean": pts["DL_mean"].astype(float),
                        "params": pts["params"].astype(float)})
    xy = list(zip(pts["train_time_s"], pts["DL_mean"]))
    pts["pareto_front"] = [
        "front" if not any(x2 <= x and y2 <= y and (x2 < x or y2 < y) for x2, y2 in xy) else "dominated"
        for x, y in xy
    ]
    return pts.reset_index(drop=True)[PARETO_COLUMNS]


def dl_vs_params(board):
    """(series, params, DL mean) for board lines that have both."""
    import pandas as pd

    pts = board.dropna(subset=["DL_mean", "params"])
    return pd.DataFrame({"model": [_label(m, s, t) for m, s, t in zip(pts["model"], pts["source"], pts["track"])],
                         "params": pts["params"].astype(float), "DL_mean": pts["DL_mean"].astype(float)})


# -- CogScale cognitive radar ---------------------------------------------------------------------------

#: The tasks the paper's Figure 15 discusses by name (its radar shows six tasks).
RADAR_TASKS = ("simple_copy", "adding_problem", "induction_heads", "sorting_problem", "selective_copy",
               "bracket_matching")
PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac",
           "#eeca3b")


def radar_data(df, *, difficulty: str, source: str = "ours", tasks: tuple[str, ...] = RADAR_TASKS):
    """Peak accuracy ``1 - best score`` (clipped to [0, 1]) per (model, task) for one difficulty.

    ``source="ours"``: the best overall score (lowest test score over all our seeds, learning
    rates and budgets; the paper's definition). ``source="paper"``: the lowest published
    mean over budgets (the published table has no single best runs).
    """
    import pandas as pd

    if source not in ("ours", "paper"):
        raise ValueError(f"source must be 'ours' or 'paper', got {source!r}")
    rows = df[(df["suite"] == "cogscale") & (df["config"] == difficulty) & (df["source"] == source)
              & (df["status"] == "ok") & df["task"].isin(tasks)]
    key = "test_score" if source == "ours" else "test_score_mean"
    scores = [m.get(key) if isinstance(m, dict) else None for m in rows["metrics"]]
    rows = rows.assign(score=[math.nan if s is None else float(s) for s in scores]).dropna(subset=["score"])
    best = rows.groupby(["model", "task"], sort=True)["score"].min().reset_index()
    best["accuracy"] = (1.0 - best["score"]).clip(0.0, 1.0)
    return pd.DataFrame(best[["model", "task", "accuracy"]])


def radar_svg(data, *, title: str, tasks: tuple[str, ...] = RADAR_TASKS, size: int = 360) -> str:
    """An SVG radar chart: one axis per task (0 at the centre, accuracy 1 at the rim), one closed
    polygon per model. Deterministic text; empty data gives a chart with a 'no runs' note."""
    cx = cy = size / 2
    radius = size / 2 - 70
    n = len(tasks)

    def point(i: int, r: float) -> tuple[float, float]:
        angle = -math.pi / 2 + 2 * math.pi * i / n
        return (cx + r * radius * math.cos(angle), cy + r * radius * math.sin(angle))

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="rote-radar" width="{size}" height="{size + 20 * 8}" '
             f'viewBox="0 0 {size} {size + 20 * 8}" font-family="sans-serif" font-size="11">',
             f'<text x="{cx}" y="16" text-anchor="middle" font-size="14" font-weight="bold">{html.escape(title)}</text>']
    for level in (0.25, 0.5, 0.75, 1.0):
        ring = " ".join(f"{x:.1f},{y:.1f}" for x, y in (point(i, level) for i in range(n)))
        parts.append(f'<polygon points="{ring}" fill="none" stroke="#ccc"/>')
    for i, task in enumerate(tasks):
        x, y = point(i, 1.0)
        lx, ly = point(i, 1.18)
        parts.append(f'<line x1="{cx}" y1="{cy}" x2="{x:.1f}" y2="{y:.1f}" stroke="#ccc"/>')
        parts.append(f'<text x="{lx:.1f}" y="{ly:.1f}" text-anchor="middle">{html.escape(task)}</text>')
    models = sorted(set(data["model"])) if len(data) else []
    for k, model in enumerate(models):
        colour = PALETTE[k % len(PALETTE)]
        acc = dict(zip(data.loc[data["model"] == model, "task"], data.loc[data["model"] == model, "accuracy"]))
        poly = " ".join(f"{x:.1f},{y:.1f}" for x, y in (point(i, float(acc.get(t, 0.0))) for i, t in enumerate(tasks)))
        parts.append(f'<polygon class="radar-model" points="{poly}" fill="{colour}" fill-opacity="0.15" '
                     f'stroke="{colour}" stroke-width="2"><title>{html.escape(model)}</title></polygon>')
        ly = size + 4 + 16 * k
        parts.append(f'<rect x="20" y="{ly}" width="10" height="10" fill="{colour}"/>'
                     f'<text x="36" y="{ly + 9}">{html.escape(model)}</text>')
    if not models:
        parts.append(f'<text x="{cx}" y="{cy}" text-anchor="middle" fill="#888">no runs</text>')
    parts.append("</svg>")
    return "".join(parts)


# -- OEIS-LLM ---------------------------------------------------------------------------------------------

def llm_bars(board, metric: str = "accuracy"):
    """One bar per (stratum, series) of one rate column of :func:`rote_hf.leaderboard.tables.llm_board`:
    columns ``bar`` (``"<stratum> | <series>"``, the x axis; rates must not be stacked), ``stratum``,
    ``model`` and ``value``."""
    import pandas as pd

    if metric not in board.columns:
        raise ValueError(f"metric must be a column of the LLM board, got {metric!r}")
    series = [_label(m, s) for m, s in zip(board["model"], board["source"])]
    return pd.DataFrame({"bar": [f"{st} | {m}" for st, m in zip(board["stratum"], series)],
                         "stratum": board["stratum"], "model": series, "value": board[metric].astype(float)})
