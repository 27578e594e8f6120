"""Data behind the leaderboard's plots, and the plots themselves as SVG strings.

ROTE (inputs: :func:`rote_hf.boards.tables.rote_frame` rows after filtering, or the board):

- :func:`complexity_curves`: DL and next-symbol accuracy vs LZW complexity ``c`` per model;
- :func:`rollout_error_curves`: the paper's Figure 2, mean cumulative rollout error vs horizon;
- :func:`pareto`: quality (DL mean) vs compute (median train time), with the Pareto front marked;
- :func:`dl_vs_params`: DL mean vs parameter count.

Each returns a long-format DataFrame (for Gradio's native Vega plots) with a ``series`` column,
``"<architecture> (<source>)"`` (e.g. ``GRU (paper)``), that names ours and the paper's apart in a
legend; :func:`source_series_colours` colours those series (the paper's a lighter tint of the
architecture's colour), :func:`data_ticks` and :func:`padded_limits` give ticks at the data's
values and a domain that clips nothing. Gradio's plots encode a series by colour only, so the
SVG renderers (:func:`complexity_svg`, :func:`rollout_svg`, :func:`pareto_svg`,
:func:`params_svg`) draw what they cannot: one colour per architecture, a marker and line style
per source (:data:`SOURCE_STYLES`), ticks at the data's values, and the models named on the
Pareto plot. The plots of our single fits and the paper's archived fits show one track: the main
track unless the track filter picks another.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from rote_hf.results.schema import SOURCES
from rote_hf.zoo.display import display_name

COMPLEXITY_COLUMNS = ["model", "c", "DL", "accuracy", "source", "series"]
ROLLOUT_COLUMNS = ["model", "horizon", "error", "source", "series"]
PARETO_COLUMNS = ["model", "train_time_s", "DL_mean", "params", "source", "pareto_front", "series", "label"]
PARAMS_COLUMNS = ["model", "params", "DL_mean", "source", "series"]


def series_name(model: str, source: str) -> str:
    """The legend name of one architecture from one source: ``"GRU (ours)"``, ``"GRU (paper)"``."""
    return f"{model} ({source})"


def one_track(frame, track: str = "all"):
    """The rows of one ROTE track: ``track`` itself, or the main track (``rote``) for ``all``."""
    return frame[frame["track"] == (track if track not in (None, "", "all") else "rote")]


def complexity_curves(frame):
    """Mean DL and accuracy per (architecture, source, c) over ok rows with a numeric c
    (``c`` an int, LZW complexity); columns :data:`COMPLEXITY_COLUMNS`."""
    import pandas as pd

    rows = frame[(frame["status"] == "ok") & frame["c"].str.fullmatch(r"\d+")]
    if not len(rows):
        return _typed(pd.DataFrame(columns=COMPLEXITY_COLUMNS), ints=("c",))
    rows = rows.assign(model=[display_name(m) for m in rows["model"]], cval=rows["c"].astype(int))
    agg = rows.groupby(["model", "source", "cval"], sort=True).agg(
        DL=("DL", "mean"), accuracy=("accuracy", "mean")).reset_index().rename(columns={"cval": "c"})
    return _with_series(agg)[COMPLEXITY_COLUMNS]


def rollout_error_curves(frame):
    """Per model and source: the mean cumulative rollout error (mismatches in 1..h / h, a
    fraction) at each integer horizon ``h`` (steps), from the stored forecasts and targets
    (:func:`rote_hf.metrics.cumulative_error_curve`); columns :data:`ROLLOUT_COLUMNS`, ``horizon``
    an integer column even when empty."""
    import pandas as pd

    from rote_hf.metrics import cumulative_error_curve  # lazy: imports numpy, rapidfuzz

    rows = frame[(frame["status"] == "ok") & (frame["forecast"].str.len() > 0) & (frame["target"].str.len() > 0)]
    out = []
    rows = rows.assign(model=[display_name(m) for m in rows["model"]])
    for (model, source), g in rows.groupby(["model", "source"], sort=True):
        curve = cumulative_error_curve(list(g["forecast"]), list(g["target"]))
        out.extend({"model": model, "horizon": h, "error": e, "source": source}
                   for h, e in enumerate(curve, start=1) if not math.isnan(e))
    frame = pd.DataFrame(out, columns=["model", "horizon", "error", "source"])
    return _typed(_with_series(frame), ints=("horizon",))[ROLLOUT_COLUMNS]


def pareto(board):
    """Board lines with both a DL mean and a train time (seconds): (architecture, time, DL,
    params, source, on the front?, series, label); ``label`` names the point's model and source
    (the text written beside it).

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
    pts = _with_series(pts)
    pts["label"] = pts["series"]
    return pts.reset_index(drop=True)[PARETO_COLUMNS]


def dl_vs_params(board):
    """(architecture, params, DL mean, source, series) for board lines that have both."""
    import pandas as pd

    pts = board.dropna(subset=["DL_mean", "params"])
    pts = pd.DataFrame({"model": [display_name(m) for m in pts["model"]], "params": pts["params"].astype(float),
                        "DL_mean": pts["DL_mean"].astype(float), "source": list(pts["source"])})
    return _with_series(pts)[PARAMS_COLUMNS]


def _with_series(frame):
    """``frame`` with a ``series`` column (:func:`series_name` of its model and source)."""
    return frame.assign(series=[series_name(m, s) for m, s in zip(frame["model"], frame["source"])])


def _typed(frame, *, ints: Sequence[str] = ()):
    """``frame`` with the ``ints`` columns as int64, the numeric plot columns as float and the
    others as text (an empty frame's columns are objects, which Gradio cannot plot)."""
    numeric = {"DL", "accuracy", "error", "train_time_s", "DL_mean", "params"}
    return frame.astype({c: ("int64" if c in ints else "float64" if c in numeric else "str") for c in frame.columns})


# -- axes for Gradio's plots and the SVG charts ---------------------------------------------------------

def data_ticks(values: Iterable[float], *, max_ticks: int = 12) -> list[float]:
    """Ticks at the data's own values (sorted, distinct) when there are at most ``max_ticks`` of
    them (e.g. complexity c 10, 30, 50, 70, 90), else :func:`nice_ticks` over their range."""
    vals = sorted({float(v) for v in values if _finite(v)})
    if len(vals) <= max_ticks:
        return vals
    ticks = nice_ticks(vals[0], vals[-1])
    return [t for t in ticks if vals[0] <= t <= vals[-1]]


def nice_ticks(lo: float, hi: float, *, count: int = 5) -> list[float]:
    """About ``count`` round ticks (steps 1, 2, 2.5 or 5 x 10^k) covering ``[lo, hi]``."""
    if not (_finite(lo) and _finite(hi)):
        return []
    if hi <= lo:
        return [float(lo)]
    raw = (hi - lo) / max(1, count)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step + 1e-9) * step
    return [round(first + k * step, 12) for k in range(int(math.ceil((hi - first) / step - 1e-9)) + 1)]


def log_ticks(lo: float, hi: float) -> list[float]:
    """Ticks of a log axis over ``[lo, hi]`` (both > 0): the powers of ten in it, with 2 and 5
    times them added when it spans fewer than three decades."""
    if not (_finite(lo) and _finite(hi)) or lo <= 0 or hi <= 0:
        return []
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    mults = (1, 2, 5) if last - first < 3 else (1,)
    ticks = [m * 10.0 ** e for e in range(first, last + 1) for m in mults]
    inside = [t for t in ticks if lo <= t <= hi]
    return inside if len(inside) >= 2 else [t for t in ticks if lo / 10 <= t <= hi * 10][:4]


def padded_limits(values: Iterable[float], *, log: bool = False, pad: float = 0.06) -> list[float]:
    """``[lo, hi]`` of the data widened by ``pad`` of its span on each side (in log space for a
    log axis), so that no point or line sits on the plot's edge; ``[0, 1]`` without data."""
    vals = [float(v) for v in values if _finite(v) and (not log or float(v) > 0)]
    if not vals:
        return [1.0, 10.0] if log else [0.0, 1.0]
    lo, hi = min(vals), max(vals)
    if log:
        a, b = math.log10(lo), math.log10(hi)
        span = (b - a) or 1.0
        return [10 ** (a - pad * span), 10 ** (b + pad * span)]
    span = (hi - lo) or (abs(hi) or 1.0)
    return [lo - pad * span, hi + pad * span]


def tick_text(value: float) -> str:
    """A tick label: integers without a decimal point, thousands as ``k`` and millions as ``M``
    (``150k``, ``1.5M``), other numbers with 3 significant digits."""
    v = float(value)
    if abs(v) >= 1e6:
        return f"{v / 1e6:.3g}M"
    if abs(v) >= 1e4:
        return f"{v / 1e3:.3g}k"
    if v == int(v):
        return str(int(v))
    return f"{v:.3g}"


def _finite(v) -> bool:
    try:
        return math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


# -- ROTE plots as SVG -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SourceStyle:
    """How one source is drawn: ``marker`` (``circle``, ``square``, ``triangle``), filled or
    hollow, and the SVG ``stroke-dasharray`` of its lines (``""``: solid)."""

    marker: str
    filled: bool
    dash: str


SOURCE_STYLES: Mapping[str, SourceStyle] = {
    "ours": SourceStyle("circle", True, ""),
    "paper": SourceStyle("square", False, "6 4"),
    "submitted": SourceStyle("triangle", False, "2 3"),
}
"""Ours: filled circles, solid lines; the paper's: hollow squares, dashed; submitted: hollow
triangles, dotted."""


def source_series_colours(names: Iterable[str], sources: Sequence[str] = SOURCES) -> dict[str, str]:
    """A colour per :func:`series_name` of every name and source (a ``color_map`` for Gradio's
    plots): the architecture's colour (:func:`series_colours`) for ours, a lighter tint of it
    for the paper's and submitted rows."""
    base = series_colours(list(names))
    return {series_name(n, s): (c if s == "ours" else _tint(c, 0.45)) for n, c in base.items() for s in sources}


def _tint(colour: str, amount: float) -> str:
    """``#rrggbb`` mixed with white by ``amount`` (0: unchanged, 1: white)."""
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(v + (255 - v) * amount):02x}" for v in rgb)


@dataclass(frozen=True)
class _Axis:
    """One axis: data range ``[lo, hi]`` (padded), linear or log, drawn from pixel ``a`` to ``b``."""

    lo: float
    hi: float
    log: bool
    a: float
    b: float

    def px(self, v: float) -> float:
        f = (lambda t: math.log10(t)) if self.log else (lambda t: t)
        return self.a + (f(v) - f(self.lo)) / ((f(self.hi) - f(self.lo)) or 1.0) * (self.b - self.a)


def _marker(style: SourceStyle, x: float, y: float, colour: str, tip: str = "", r: float = 4.0) -> str:
    fill = colour if style.filled else "white"
    title = f"<title>{html.escape(tip)}</title>" if tip else ""
    attrs = f'class="marker marker-{style.marker}" fill="{fill}" stroke="{colour}" stroke-width="1.6"'
    if style.marker == "square":
        return f'<rect {attrs} x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r:.1f}" height="{2 * r:.1f}">{title}</rect>'
    if style.marker == "triangle":
        pts = f"{x:.1f},{y - r - 1:.1f} {x - r - 1:.1f},{y + r:.1f} {x + r + 1:.1f},{y + r:.1f}"
        return f'<polygon {attrs} points="{pts}">{title}</polygon>'
    return f'<circle {attrs} cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}">{title}</circle>'


def xy_svg(data, *, x: str, y: str, title: str, x_title: str, y_title: str, lines: bool = False,
           log_x: bool = False, log_y: bool = False, labels: bool = False,
           join: Sequence[tuple[float, float]] = (), width: int = 640, height: int = 380) -> str:
    """A scatter (or line) chart of ``data`` (columns ``model``, ``source``, ``x``, ``y``) as SVG:
    one colour per architecture, the marker and line style of its source (:data:`SOURCE_STYLES`),
    x ticks at the data's values (:func:`data_ticks`; powers of ten on a log axis), a padded
    domain, each point's values in its tooltip, ``labels`` writes each point's series beside it,
    ``join`` (data (x, y) pairs) is drawn as a grey line under the points, and a legend names every
    (architecture, source) series. ``width`` and ``height`` (px) are the drawing's size at most: it
    shrinks with a narrower page. Deterministic text."""
    rows = data[[_finite(a) and _finite(b) for a, b in zip(data[x], data[y])]] if len(data) else data
    if log_x and len(rows):
        rows = rows[rows[x].astype(float) > 0]
    if log_y and len(rows):
        rows = rows[rows[y].astype(float) > 0]
    series = sorted({(str(m), str(s)) for m, s in zip(rows["model"], rows["source"])},
                    key=lambda ms: (ms[0].lower(), _source_rank(ms[1])))
    legend_cols = 3
    legend_rows = math.ceil(len(series) / legend_cols)
    left, right, top, plot_h = 64, 16, 34, height - 90
    total_h = top + plot_h + 56 + 18 * max(1, legend_rows)
    xs, ys = [float(v) for v in rows[x]], [float(v) for v in rows[y]]
    ax = _Axis(*padded_limits(xs, log=log_x), log_x, left, width - right)
    ay = _Axis(*padded_limits(ys, log=log_y), log_y, top + plot_h, top)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="rote-chart" width="100%" '
             f'style="max-width: {width}px; height: auto" viewBox="0 0 {width} {total_h}" font-family="sans-serif" '
             'font-size="11">',
             f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">'
             f'{html.escape(title)}</text>',
             f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{plot_h}" fill="none" stroke="#ccc"/>']
    parts += _x_ticks(ax, xs, top, plot_h) + _y_ticks(ay, ys, left, width - right)
    parts.append(f'<text class="axis-title" x="{(left + width - right) / 2}" y="{top + plot_h + 34}" '
                 f'text-anchor="middle">{html.escape(x_title)}</text>')
    parts.append(f'<text class="axis-title" x="14" y="{top + plot_h / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 14 {top + plot_h / 2})">{html.escape(y_title)}</text>')
    if len(join) > 1:
        path = " ".join(f"{ax.px(float(a)):.1f},{ay.px(float(b)):.1f}" for a, b in join)
        parts.append(f'<polyline class="joined" points="{path}" fill="none" stroke="#999" stroke-width="1.5"/>')
    colours = series_colours(sorted({m for m, _ in series}))
    for model, source in series:
        g = rows[(rows["model"] == model) & (rows["source"] == source)].sort_values(x)
        parts += _series_marks(g, x, y, ax, ay, colours[model], SOURCE_STYLES.get(source, SOURCE_STYLES["submitted"]),
                               series_name(model, source), lines=lines)
    if labels:
        parts += _point_labels(rows, x, y, ax, ay)
    parts += _legend(series, colours, top + plot_h + 52, left, (width - left) / legend_cols, lines=lines)
    if not series:
        parts.append(f'<text x="{width / 2}" y="{top + plot_h / 2}" text-anchor="middle" fill="#888">no runs</text>')
    parts.append("</svg>")
    return "".join(parts)


def _source_rank(source: str) -> int:
    return SOURCES.index(source) if source in SOURCES else len(SOURCES)


def _x_ticks(ax: _Axis, xs: list[float], top: float, plot_h: float) -> list[str]:
    lo, hi = (min(xs), max(xs)) if xs else (ax.lo, ax.hi)
    ticks = log_ticks(ax.lo, ax.hi) if ax.log else data_ticks(xs)
    ticks = [t for t in ticks if ax.lo <= t <= ax.hi] or [lo, hi]
    base = top + plot_h
    return [f'<line x1="{ax.px(t):.1f}" y1="{top}" x2="{ax.px(t):.1f}" y2="{base + 4}" stroke="#eee"/>'
            f'<text class="x-tick" x="{ax.px(t):.1f}" y="{base + 16}" text-anchor="middle">{tick_text(t)}</text>'
            for t in ticks]


def _y_ticks(ay: _Axis, ys: list[float], left: float, right: float) -> list[str]:
    ticks = log_ticks(ay.lo, ay.hi) if ay.log else nice_ticks(ay.lo, ay.hi)
    ticks = [t for t in ticks if ay.lo <= t <= ay.hi]
    return [f'<line x1="{left - 4}" y1="{ay.px(t):.1f}" x2="{right}" y2="{ay.px(t):.1f}" stroke="#eee"/>'
            f'<text class="y-tick" x="{left - 6}" y="{ay.px(t) + 4:.1f}" text-anchor="end">{tick_text(t)}</text>'
            for t in ticks]


def _series_marks(g, x: str, y: str, ax: _Axis, ay: _Axis, colour: str, style: SourceStyle, name: str, *,
                  lines: bool) -> list[str]:
    pts = [(ax.px(float(a)), ay.px(float(b)), float(a), float(b)) for a, b in zip(g[x], g[y])]
    out = []
    if lines and len(pts) > 1:
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py, _, _ in pts)
        dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
        out.append(f'<polyline class="series-line" points="{path}" fill="none" stroke="{colour}" '
                   f'stroke-width="2"{dash}>'
                   f'<title>{html.escape(name)}</title></polyline>')
    if not lines or len(pts) <= 12:  # a long line shows its points through its hover title only
        out += [_marker(style, px, py, colour, f"{name}: {x} = {tick_text(a)}, {y} = {b:.4g}")
                for px, py, a, b in pts]
    return out


def _point_labels(rows, x: str, y: str, ax: _Axis, ay: _Axis) -> list[str]:
    """The series name beside each point, nudged down where two labels would overlap (11 px lines)."""
    spots = sorted(((ay.px(float(b)), ax.px(float(a)), series_name(m, s))
                    for a, b, m, s in zip(rows[x], rows[y], rows["model"], rows["source"])), key=lambda t: (t[0], t[1]))
    placed: list[tuple[float, float, float]] = []
    out = []
    for py, px, text in spots:
        w = 6.0 * len(text)
        anchor_end = px + 8 + w > ax.b  # near the right edge: write to the left of the point
        x0 = px - 8 - w if anchor_end else px + 8
        ty = py + 4
        while any(abs(ty - qy) < 11 and x0 < qx1 and qx0 < x0 + w for qx0, qx1, qy in placed):
            ty += 11
        placed.append((x0, x0 + w, ty))
        anchor = "end" if anchor_end else "start"
        tx = px - 8 if anchor_end else px + 8
        out.append(f'<text class="point-label" x="{tx:.1f}" y="{ty:.1f}" text-anchor="{anchor}" font-size="10">'
                   f'{html.escape(text)}</text>')
    return out


def _legend(series: list[tuple[str, str]], colours: dict[str, str], top: float, left: float, col_w: float, *,
            lines: bool) -> list[str]:
    out = []
    for k, (model, source) in enumerate(series):
        lx, ly = left + (k % 3) * col_w, top + 18 * (k // 3)
        style = SOURCE_STYLES.get(source, SOURCE_STYLES["submitted"])
        if lines:
            dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
            out.append(f'<line x1="{lx - 4:.1f}" y1="{ly}" x2="{lx + 18:.1f}" y2="{ly}" stroke="{colours[model]}" '
                       f'stroke-width="2"{dash}/>')
        out.append(_marker(style, lx + 7, ly, colours[model]))
        out.append(f'<text class="chart-legend" x="{lx + 24:.1f}" y="{ly + 4}">'
                   f'{html.escape(series_name(model, source))}</text>')
    return out


def complexity_svg(curves, metric: str = "DL") -> str:
    """:func:`complexity_curves` as an SVG chart of ``metric`` (``DL``: mean normalised edit
    distance; ``accuracy``: mean next-symbol test accuracy) vs c, ticks at the c values run."""
    if metric not in ("DL", "accuracy"):
        raise ValueError(f"metric must be 'DL' or 'accuracy', got {metric!r}")
    what = "DL (normalised edit distance, mean)" if metric == "DL" else "next-symbol test accuracy (mean)"
    title = "DL vs LZW complexity" if metric == "DL" else "Next-symbol accuracy vs LZW complexity"
    return xy_svg(curves, x="c", y=metric, title=title, x_title="c (LZW complexity of the seed)", y_title=what,
                  lines=True)


def rollout_svg(curves) -> str:
    """:func:`rollout_error_curves` as an SVG line chart: error (a fraction) vs horizon (integer steps)."""
    return xy_svg(curves, x="horizon", y="error", title="Rollout error vs horizon", x_title="horizon h (steps)",
                  y_title="cumulative error (mismatches / h)", lines=True)


def pareto_svg(points) -> str:
    """:func:`pareto` as an SVG chart: DL mean vs median train time (seconds, log axis), every point
    named, the Pareto front joined by a grey line."""
    front = points[points["pareto_front"] == "front"].sort_values("train_time_s") if len(points) else points
    return xy_svg(points, x="train_time_s", y="DL_mean", title="Quality vs compute (grey line: Pareto front)",
                  x_title="train time (s, median; log scale)", y_title="DL (mean)", log_x=True, labels=True,
                  join=list(zip(front["train_time_s"], front["DL_mean"])))


def params_svg(points) -> str:
    """:func:`dl_vs_params` as an SVG chart: DL mean vs trainable parameters (log axis)."""
    return xy_svg(points, x="params", y="DL_mean", title="DL vs parameters", x_title="trainable parameters (log scale)",
                  y_title="DL (mean)", log_x=True, labels=True)


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


RADAR_SOURCES = ("ours", "paper", "both")
"""What a radar shows: our best runs, the paper's best published means, or both (ours solid, the
paper's dashed, in each model's panel)."""


def radar_data(df, *, difficulty: str, source: str = "ours", tasks: tuple[str, ...] = RADAR_TASKS):
    """Peak accuracy ``1 - best score`` (a fraction, clipped to [0, 1]) per (architecture, task,
    source) for one difficulty; columns ``model``, ``task``, ``accuracy``, ``source``.

    ``source="ours"``: the best overall score (lowest test score over all our seeds, learning
    rates and budgets; the paper's definition). ``source="paper"``: the lowest published
    mean over budgets (the published table has no single best runs). ``source="both"``: the two
    stacked.
    """
    import pandas as pd

    if source not in RADAR_SOURCES:
        raise ValueError(f"source must be one of {RADAR_SOURCES}, got {source!r}")
    if source == "both":
        return pd.concat([radar_data(df, difficulty=difficulty, source=s, tasks=tasks) for s in ("ours", "paper")],
                         ignore_index=True)
    rows = df[(df["suite"] == "cogscale") & (df["config"] == difficulty) & (df["source"] == source)
              & (df["status"] == "ok") & df["task"].isin(tasks)]
    key = "test_score" if source == "ours" else "test_score_mean"
    scores = [m.get(key) if isinstance(m, dict) else None for m in rows["metrics"]]
    rows = rows.assign(score=[math.nan if s is None else float(s) for s in scores],
                       model=[display_name(m) for m in rows["model"]]).dropna(subset=["score"])
    best = rows.groupby(["model", "task"], sort=True)["score"].min().reset_index()
    best["accuracy"] = (1.0 - best["score"]).clip(0.0, 1.0)
    best["source"] = source
    return pd.DataFrame(best[["model", "task", "accuracy", "source"]])


def radar_title(difficulty: str, source: str) -> str:
    """The title of one difficulty's radar for a :data:`RADAR_SOURCES` choice."""
    what = {"ours": "best overall, ours", "paper": "best published mean",
            "both": "ours: best overall; paper: best published mean"}[source]
    return f"{difficulty}: accuracy = 1 - score at each model's best ({what})"


RADAR_COLUMNS = 3
"""Panels per row of the radar's small multiples."""


def radar_svg(data, *, title: str, tasks: tuple[str, ...] = RADAR_TASKS, size: int = 560) -> str:
    """The cognitive radar as SVG small multiples: one panel per architecture (:data:`RADAR_COLUMNS`
    a row), one numbered spoke per task (0 at the centre, accuracy 1 at the rim; rings at 0.25
    steps), each source's outline in the architecture's colour (ours solid with a light fill, the
    paper's dashed and unfilled: :data:`SOURCE_STYLES`), a key naming the sources drawn and one
    numbering the tasks. A task without a run is drawn at 0 and counted under the panel's name.
    Deterministic text; empty data gives a chart with a 'no runs' note. ``size``: width in px."""
    models = sorted(set(data["model"]), key=str.lower) if len(data) else []
    sources = _radar_sources(data)
    panel = size / RADAR_COLUMNS
    rows_of_panels = max(1, math.ceil(len(models) / RADAR_COLUMNS))
    head = _title_lines(title, size)
    top = 16 * len(head) + 30
    key_top = top + rows_of_panels * (panel + 10) + 8
    height = int(key_top + 14 * math.ceil(len(tasks) / 2) + 8)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="rote-radar" width="{size}" height="{height}" '
             f'viewBox="0 0 {size} {height}" font-family="sans-serif" font-size="11">']
    weights = ('font-size="14" font-weight="bold"', 'font-size="12"')
    parts += [f'<text class="radar-title" x="{size / 2}" y="{16 * (k + 1)}" text-anchor="middle" {weights[min(k, 1)]}>'
              f'{html.escape(line)}</text>' for k, line in enumerate(head)]
    parts += _radar_source_key(sources, size, 16 * len(head) + 16)
    colours = series_colours(models)
    for k, model in enumerate(models):
        x0, y0 = (k % RADAR_COLUMNS) * panel, top + (k // RADAR_COLUMNS) * (panel + 10)
        parts += _radar_panel(data[data["model"] == model], model, colours[model], sources, tasks, x0, y0, panel)
    if not models:
        parts.append(f'<text x="{size / 2}" y="{top + panel / 2}" text-anchor="middle" fill="#888">no runs</text>')
    for i, task in enumerate(tasks):
        col, row = divmod(i, math.ceil(len(tasks) / 2))
        parts.append(f'<text class="radar-task" x="{12 + col * size / 2:.1f}" y="{key_top + 14 * row + 10}">'
                     f'{i + 1} {html.escape(task)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _radar_sources(data) -> list[str]:
    """The sources in radar data, ours first (data without a ``source`` column: ours)."""
    if not len(data) or "source" not in data.columns:
        return ["ours"] if len(data) else []
    return sorted(set(data["source"]), key=_source_rank)


def _title_lines(title: str, width: int) -> list[str]:
    """``title`` on one line, or split after its first ``": "`` when it is wider than ``width`` px
    (about 7 px a character at 12-14 px)."""
    head, sep, rest = title.partition(": ")
    return [title] if len(title) * 7 <= width or not sep else [head, rest]


def _radar_source_key(sources: list[str], size: int, y: float) -> list[str]:
    """One line at ``y`` (px) under the title: how each source drawn is outlined."""
    how = {"ours": "our runs: solid outline", "paper": "paper: dashed outline",
           "submitted": "submitted: dotted outline"}
    text = "; ".join(how.get(s, s) for s in sources)
    if not text:
        return []
    return [f'<text class="radar-key" x="{size / 2}" y="{y}" text-anchor="middle" fill="#444">{html.escape(text)}</text>']


def _radar_panel(rows, model: str, colour: str, sources: list[str], tasks: tuple[str, ...], x0: float, y0: float,
                 panel: float) -> list[str]:
    """One architecture's panel: rings, numbered spokes, one outline per source, its name (and
    how many tasks have no run) above."""
    n = len(tasks)
    radius = panel / 2 - 22
    cx, cy = x0 + panel / 2, y0 + 22 + radius + 10

    def point(i: int, r: float) -> tuple[float, float]:
        angle = -math.pi / 2 + 2 * math.pi * i / n
        return (cx + r * radius * math.cos(angle), cy + r * radius * math.sin(angle))

    out = ['<g class="radar-panel">']
    for level in (0.25, 0.5, 0.75, 1.0):
        ring = " ".join(f"{x:.1f},{y:.1f}" for x, y in (point(i, level) for i in range(n)))
        out.append(f'<polygon points="{ring}" fill="none" stroke="#ddd"/>')
    for i in range(n):
        x, y = point(i, 1.0)
        lx, ly = point(i, 1.14)
        out.append(f'<line x1="{cx:.1f}" y1="{cy:.1f}" x2="{x:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
                   f'<text class="radar-spoke" x="{lx:.1f}" y="{ly + 3:.1f}" text-anchor="middle" font-size="8" '
                   f'fill="#666">{i + 1}</text>')
    missing = 0
    for source in sources:
        here = rows[rows["source"] == source] if "source" in rows.columns else rows
        if not len(here):
            continue
        acc = dict(zip(here["task"], here["accuracy"]))
        missing = max(missing, sum(t not in acc for t in tasks))
        style = SOURCE_STYLES.get(source, SOURCE_STYLES["submitted"])
        poly = " ".join(f"{x:.1f},{y:.1f}" for x, y in (point(i, float(acc.get(t, 0.0))) for i, t in enumerate(tasks)))
        fill = f'fill="{colour}" fill-opacity="0.15"' if style.filled else 'fill="none"'
        dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
        out.append(f'<polygon class="radar-model" points="{poly}" {fill} stroke="{colour}" stroke-width="2"{dash}>'
                   f'<title>{html.escape(series_name(model, source))}</title></polygon>')
    out.append(f'<text class="radar-legend" x="{cx:.1f}" y="{y0 + 12}" text-anchor="middle" font-weight="bold" '
               f'fill="{colour}">{html.escape(model)}</text>')
    if missing:
        out.append(f'<text class="radar-missing" x="{cx:.1f}" y="{y0 + 24}" text-anchor="middle" font-size="9" '
                   f'fill="#888">no runs: {missing} of {n} tasks, drawn at 0</text>')
    return [*out, "</g>"]


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
