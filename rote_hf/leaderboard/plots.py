"""Data behind the leaderboard's plots (long-format DataFrames for Gradio's native Vega plots),
and the CogScale cognitive radar as an SVG string (Gradio has no radar plot).

ROTE (inputs: :func:`rote_hf.boards.tables.rote_frame` rows after filtering, or the board):

- :func:`complexity_curves`: DL and next-symbol accuracy vs LZW complexity ``c`` per model;
- :func:`rollout_error_curves`: the paper's Figure 2, mean cumulative rollout error vs horizon;
- :func:`pareto`: quality (DL mean) vs compute (median train time), with the Pareto front marked;
- :func:`dl_vs_params`: DL mean vs parameter count.

Every series is one architecture under its display name (:func:`rote_hf.zoo.display.display_name`):
our points and the paper's share its colour, and a ``source`` column (shown on hover) tells them
apart. The plots of our single fits and the paper's archived fits show one track: the main track
unless the track filter picks another.
"""

from __future__ import annotations

import html
import math

from rote_hf.zoo.display import display_name

COMPLEXITY_COLUMNS = ["model", "c", "DL", "accuracy", "source"]
ROLLOUT_COLUMNS = ["model", "horizon", "error"]
PARETO_COLUMNS = ["model", "train_time_s", "DL_mean", "params", "source", "pareto_front"]
PARAMS_COLUMNS = ["model", "params", "DL_mean", "source"]


def one_track(frame, track: str = "all"):
    """The rows of one ROTE track: ``track`` itself, or the main track (``rote``) for ``all``."""
    return frame[frame["track"] == (track if track not in (None, "", "all") else "rote")]


def complexity_curves(frame):
    """Mean DL and accuracy per (architecture, source, c) over ok rows with a numeric c
    (``c`` an int); columns :data:`COMPLEXITY_COLUMNS`."""
    import pandas as pd

    rows = frame[(frame["status"] == "ok") & frame["c"].str.fullmatch(r"\d+")]
    if not len(rows):
        return pd.DataFrame(columns=COMPLEXITY_COLUMNS)
    rows = rows.assign(series=[display_name(m) for m in rows["model"]], cval=rows["c"].astype(int))
    agg = rows.groupby(["series", "source", "cval"], sort=True).agg(
        DL=("DL", "mean"), accuracy=("accuracy", "mean")).reset_index()
    return agg.rename(columns={"series": "model", "cval": "c"})[COMPLEXITY_COLUMNS]


def rollout_error_curves(frame):
    """Per model: the mean cumulative rollout error at each horizon (mismatches in 1..h / h),
    from the stored forecasts and targets of our runs (:func:`rote_hf.metrics.cumulative_error_curve`)."""
    import pandas as pd

    from rote_hf.metrics import cumulative_error_curve  # lazy: imports numpy, rapidfuzz

    rows = frame[(frame["status"] == "ok") & (frame["forecast"].str.len() > 0) & (frame["target"].str.len() > 0)]
    out = []
    rows = rows.assign(series=[display_name(m) for m in rows["model"]])
    for model, g in rows.groupby("series", sort=True):
        curve = cumulative_error_curve(list(g["forecast"]), list(g["target"]))
        out.extend({"model": model, "horizon": h, "error": e} for h, e in enumerate(curve, start=1) if not math.isnan(e))
    return pd.DataFrame(out, columns=ROLLOUT_COLUMNS)


def pareto(board):
    """Board lines with both a DL mean and a train time: (architecture, time, DL, params, on the
    front?, source).

    A point is on the Pareto front when no other point is at least as good on both axes
    (lower train time and lower DL) and strictly better on one.
    """
    import pandas as pd

    pts = board.dropna(subset=["DL_mean", "train_time_s"])
    pts = pd.DataFrame({"model": [display_name(m) for m in pts["model"]],
                        "train_time_s": pts["train_time_s"].astype(float), "DL_mean": pts["DL_mean"].astype(float),
                        "params": pts["params"].astype(float), "source": list(pts["source"])})
    pts = pts.reset_index(drop=True)
    xy = list(zip(pts["train_time_s"], pts["DL_mean"]))
    pts["pareto_front"] = [
        "front" if not any(x2 <= x and y2 <= y and (x2 < x or y2 < y) for x2, y2 in xy) else "dominated"
        for x, y in xy
    ]
    return pts.reset_index(drop=True)[PARETO_COLUMNS]


def dl_vs_params(board):
    """(architecture, params, DL mean, source) for board lines that have both."""
    import pandas as pd

    pts = board.dropna(subset=["DL_mean", "params"])
    return pd.DataFrame({"model": [display_name(m) for m in pts["model"]], "params": pts["params"].astype(float),
                         "DL_mean": pts["DL_mean"].astype(float), "source": list(pts["source"])},
                        columns=PARAMS_COLUMNS)


# -- CogScale cognitive radar ---------------------------------------------------------------------------

def _radar_tasks() -> tuple[str, ...]:
    from rote_hf.cogscale.tasks import TASKS  # lazy: imports numpy

    return tuple(TASKS)


RADAR_TASKS = _radar_tasks()
"""All 14 CogScale tasks (the registry's order, which keeps each category together)."""
ARCHITECTURE_COLOURS = {
    "GRU": "#1f77b4", "LSTM": "#ff7f0e", "LinearAttention": "#2ca02c", "Transformer": "#d62728",
    "Performer": "#9467bd", "ESN": "#8c564b", "Mamba": "#e377c2", "RWKV": "#7f7f7f", "minLSTM": "#bcbd22",
    "minGRU": "#17becf", "TransformerEncDec": "#393b79", "xLSTM": "#637939",
}
"""One fixed colour per architecture of the zoo (display names), the same in every chart."""
PALETTE = ("#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5",
           "#843c39", "#7b4173", "#5254a3")
"""Colours for other series (a visitor's architecture, an LLM), in name order."""


def series_colours(names) -> dict[str, str]:
    """A colour per series name: an architecture's own (:data:`ARCHITECTURE_COLOURS`), other names
    from :data:`PALETTE` in sorted order."""
    others = sorted({str(n) for n in names} - set(ARCHITECTURE_COLOURS), key=str.lower)
    return {str(n): ARCHITECTURE_COLOURS.get(str(n)) or PALETTE[others.index(str(n)) % len(PALETTE)] for n in names}


def radar_data(df, *, difficulty: str, source: str = "ours", tasks: tuple[str, ...] = RADAR_TASKS):
    """Peak accuracy ``1 - best score`` (clipped to [0, 1]) per (architecture, task) for one difficulty.

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
    rows = rows.assign(score=[math.nan if s is None else float(s) for s in scores],
                       model=[display_name(m) for m in rows["model"]]).dropna(subset=["score"])
    best = rows.groupby(["model", "task"], sort=True)["score"].min().reset_index()
    best["accuracy"] = (1.0 - best["score"]).clip(0.0, 1.0)
    return pd.DataFrame(best[["model", "task", "accuracy"]])


def radar_svg(data, *, title: str, tasks: tuple[str, ...] = RADAR_TASKS, size: int = 560) -> str:
    """An SVG radar chart: one axis per task (0 at the centre, accuracy 1 at the rim; rings at
    0.25 steps, labelled), one closed polygon per architecture, a legend naming every one. A
    task without a run of a model is drawn at 0 and listed under the legend. Deterministic
    text; empty data gives a chart with a 'no runs' note."""
    radius = size / 2 - 150  # room for the longest task name on either side
    cx, cy = size / 2, 44 + radius * 1.08
    legend_top = cy + radius * 1.08 + 24
    n = len(tasks)

    def point(i: int, r: float) -> tuple[float, float]:
        angle = -math.pi / 2 + 2 * math.pi * i / n
        return (cx + r * radius * math.cos(angle), cy + r * radius * math.sin(angle))

    models = sorted(set(data["model"])) if len(data) else []
    height = int(legend_top + 16 * max(1, len(models)) + 8)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="rote-radar" width="{size}" height="{height}" '
             f'viewBox="0 0 {size} {height}" font-family="sans-serif" font-size="11">',
             f'<text x="{size / 2}" y="16" text-anchor="middle" font-size="14" font-weight="bold">{html.escape(title)}</text>']
    for level in (0.25, 0.5, 0.75, 1.0):
        ring = " ".join(f"{x:.1f},{y:.1f}" for x, y in (point(i, level) for i in range(n)))
        parts.append(f'<polygon points="{ring}" fill="none" stroke="#ccc"/>')
        lx, ly = point(0, level)
        if level < 1.0:  # the rim is 1 (said in the caption); its label would sit under the first task's
            parts.append(f'<text x="{lx + 3:.1f}" y="{ly - 2:.1f}" font-size="9" fill="#888">{level:g}</text>')
    for i, task in enumerate(tasks):
        x, y = point(i, 1.0)
        lx, ly = point(i, 1.08)
        anchor = "middle" if abs(lx - cx) < 1 else ("start" if lx > cx else "end")
        parts.append(f'<line x1="{cx}" y1="{cy}" x2="{x:.1f}" y2="{y:.1f}" stroke="#ccc"/>')
        parts.append(f'<text class="radar-task" x="{lx:.1f}" y="{ly + 4:.1f}" text-anchor="{anchor}">'
                     f'{html.escape(task)}</text>')
    colours = series_colours(models)
    for k, model in enumerate(models):
        colour = colours[model]
        acc = dict(zip(data.loc[data["model"] == model, "task"], data.loc[data["model"] == model, "accuracy"]))
        poly = " ".join(f"{x:.1f},{y:.1f}" for x, y in (point(i, float(acc.get(t, 0.0))) for i, t in enumerate(tasks)))
        parts.append(f'<polygon class="radar-model" points="{poly}" fill="{colour}" fill-opacity="0.12" '
                     f'stroke="{colour}" stroke-width="2"><title>{html.escape(model)}</title></polygon>')
        ly = legend_top + 16 * k
        missing = [t for t in tasks if t not in acc]
        note = f" (no runs: {len(missing)} of {n} tasks, drawn at 0)" if missing else ""
        parts.append(f'<rect x="20" y="{ly}" width="10" height="10" fill="{colour}"/>'
                     f'<text class="radar-legend" x="36" y="{ly + 9}">{html.escape(model)}{html.escape(note)}</text>')
    if not models:
        parts.append(f'<text x="{cx}" y="{cy}" text-anchor="middle" fill="#888">no runs</text>')
    parts.append("</svg>")
    return "".join(parts)


# -- OEIS-LLM ---------------------------------------------------------------------------------------------

LLM_STRATA_ORDER = ("clean", "revising", "wilderness", "all")


def llm_bars(board, metric: str = "accuracy"):
    """One bar per (stratum, series) of one rate column of :func:`rote_hf.boards.tables.llm_board`:
    columns ``bar`` (``"<stratum> | <series>"``), ``stratum``, ``model`` (series: the model id,
    ``(paper)`` or ``(submitted)`` added for those sources) and ``value``."""
    import pandas as pd

    if metric not in board.columns:
        raise ValueError(f"metric must be a column of the LLM board, got {metric!r}")
    series = [_series(m, s) for m, s in zip(board["model"], board["source"])]
    return pd.DataFrame({"bar": [f"{st} | {m}" for st, m in zip(board["stratum"], series)],
                         "stratum": board["stratum"], "model": series, "value": board[metric].astype(float)})


def _series(model: str, source: str) -> str:
    return model if source == "ours" else f"{model} ({source})"


def llm_bars_svg(bars, *, metric: str, width: int = 1100, height: int = 300) -> str:
    """Grouped bars as SVG: one group per stratum on the x axis, one bar per series in it (never
    stacked), the y axis titled with ``metric`` (0..1 for rates, up to 5 for mean confidence),
    a legend naming every series in full. Deterministic text."""
    strata = [s for s in LLM_STRATA_ORDER if s in set(bars["stratum"])] + sorted(
        set(bars["stratum"]) - set(LLM_STRATA_ORDER))
    series = sorted(set(bars["model"]), key=str.lower)
    top = 5.0 if metric == "mean confidence" else 1.0
    left, right, plot_top, plot_h = 70, 20, 40, height - 90
    legend_rows = max(1, math.ceil(len(series) / 3))
    legend_top = plot_top + plot_h + 52  # below the stratum names and the axis title
    total_h = legend_top + 18 * legend_rows + 4
    colours = dict(zip(series, ("#4c78a8", "#f58518", "#54a24b", "#e45756", *PALETTE)))
    colours.update({m: PALETTE[i % len(PALETTE)] for i, m in enumerate(series) if m not in colours})
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="rote-bars" width="{width}" height="{total_h}" '
             f'viewBox="0 0 {width} {total_h}" font-family="sans-serif" font-size="11">',
             f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">'
             f'{html.escape(metric)} per MDL stratum and model</text>']
    base = plot_top + plot_h
    for k in range(6):
        v = top * k / 5
        y = base - plot_h * k / 5
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="#eee"/>'
                     f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{v:g}</text>')
    parts.append(f'<text x="16" y="{plot_top + plot_h / 2}" text-anchor="middle" transform="rotate(-90 16 '
                 f'{plot_top + plot_h / 2})">{html.escape(metric)}</text>')
    group_w = (width - left - right) / max(1, len(strata))
    bar_w = min(40.0, (group_w - 20) / max(1, len(series)))
    for g, stratum in enumerate(strata):
        gx = left + g * group_w
        parts.append(f'<text x="{gx + group_w / 2:.1f}" y="{base + 18}" text-anchor="middle" font-weight="bold">'
                     f'{html.escape(stratum)}</text>')
        here = bars[bars["stratum"] == stratum]
        present = [m for m in series if m in set(here["model"])]
        x0 = gx + (group_w - bar_w * len(present)) / 2
        for j, model in enumerate(present):
            value = float(here.loc[here["model"] == model, "value"].iloc[0])
            if math.isnan(value):
                continue
            h = plot_h * max(0.0, min(value, top)) / top
            parts.append(f'<rect class="bar" x="{x0 + j * bar_w + 1:.1f}" y="{base - h:.1f}" width="{bar_w - 2:.1f}" '
                         f'height="{h:.1f}" fill="{colours[model]}"><title>{html.escape(model)} | {html.escape(stratum)}: '
                         f'{value:.3g}</title></rect>')
    parts.append(f'<line x1="{left}" y1="{base}" x2="{width - right}" y2="{base}" stroke="#888"/>')
    parts.append(f'<text x="{left + (width - left - right) / 2}" y="{base + 38}" text-anchor="middle">MDL stratum</text>')
    col_w = (width - left) / 3
    for k, model in enumerate(series):
        lx, ly = left + (k % 3) * col_w, legend_top + 18 * (k // 3)
        parts.append(f'<rect x="{lx:.1f}" y="{ly}" width="10" height="10" fill="{colours[model]}"/>'
                     f'<text class="bars-legend" x="{lx + 16:.1f}" y="{ly + 9}">{html.escape(model)}</text>')
    if not series:
        parts.append(f'<text x="{width / 2}" y="{plot_top + plot_h / 2}" text-anchor="middle" fill="#888">no rows</text>')
    parts.append("</svg>")
    return "".join(parts)
