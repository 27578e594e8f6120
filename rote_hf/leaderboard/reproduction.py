"""The leaderboard's reproduction tab: our ``cogscale_paper`` runs against CogScale's published
runs, from :func:`rote_hf.results.aggregate.reproduction_report`, and our ``rote_paper`` fits
against ROTE's archived fits, fit by fit, from :mod:`rote_hf.results.rote_reproduction` (see
``docs/reproduction.md``).

Input: the leaderboard's rows (:func:`rote_hf.leaderboard.load_rows`: the shipped reproduction
rows + the local store + a results repo); only our rows of the chosen CogScale config (default
``cogscale_paper``) and of ``rote_paper`` are compared. Output: display tables (numbers rounded
for reading) and a one-paragraph headline each.
"""

from __future__ import annotations

import math
from typing import Any

from rote_hf.boards.tables import ALL
from rote_hf.results import rote_reproduction as rote
from rote_hf.results.aggregate import REPRODUCTION_MODEL_NAMES, reproduction_report
from rote_hf.results.reproduction import cells, fraction_text, headline, rules_text, summary, worst
from rote_hf.results.shipped import with_shipped_failures

REPRODUCTION_MODELS = ("GRU", "LSTM", "xLSTM", "Transformer", "TransformerEncDec", "Mamba", "ESN")
"""The display names (rote_hf.zoo.display) of CogScale's models, the choices of the view's model filter."""
REPRODUCTION_VIEWS = ("by model", "by category", "worst groups", "all groups", "cells (LR chosen on test)")
_GROUP_COLUMNS = ["task", "difficulty", "budget", "model", "learning_rate", "n_ours", "mean_ours", "std_ours",
                  "n_paper", "mean_paper", "std_paper", "diff", "se", "z", "agree", "diverged_ours", "diverged_paper",
                  "agree_strict", "n_pairs", "diff_paired", "se_paired", "agree_paired", "cause"]


def _round(frame, digits: int = 4):
    """Floats to ``digits`` significant digits (display only); booleans/NA as text."""
    import pandas as pd

    def cell(v: Any) -> Any:
        if isinstance(v, float):
            return v if math.isnan(v) or v == 0 or math.isinf(v) else float(f"{v:.{digits}g}")
        return v
    out = frame.copy()
    for col in out.columns:
        if str(out[col].dtype) in ("bool", "boolean"):
            out[col] = ["–" if pd.isna(v) else ("yes" if bool(v) else "no") for v in out[col].astype(object)]
        elif out[col].dtype.kind == "f":
            out[col] = [cell(float(v)) for v in out[col]]
    return out


def reproduction_configs(df) -> list[str]:
    """Config names of our CogScale rows that have a published counterpart (the view's choices),
    ``cogscale_paper`` first: configs with a run of one of CogScale's published models
    (:data:`REPRODUCTION_MODELS`, by display name). A config of other architectures only (``hf_zoo``:
    transformers models, which CogScale never ran) has nothing to be compared with."""
    ours = df[(df["source"] == "ours") & (df["suite"] == "cogscale")]
    published = [REPRODUCTION_MODEL_NAMES.get(m, m) in REPRODUCTION_MODELS for m in ours["model"]]
    names = sorted({c for c in ours.loc[published, "config_name"] if isinstance(c, str) and c} - {"cogscale_paper"})
    return ["cogscale_paper", *names]


def our_rows(df, config: str = "cogscale_paper"):
    """Our CogScale rows of sweep ``config`` in the leaderboard's rows ``df``."""
    if not isinstance(config, str) or not config:
        raise ValueError(f"config must be a non-empty sweep config name, got {config!r}")
    return df[(df["source"] == "ours") & (df["suite"] == "cogscale") & (df["config_name"] == config)]


def group_report(ours, config: str = "cogscale_paper"):
    """:func:`~rote_hf.results.aggregate.reproduction_report` of our rows ``ours`` of sweep
    ``config``, with the failed runs the shipped rows of ``config`` list (the strict rule counts
    the groups whose runs diverged: :func:`rote_hf.results.shipped.with_shipped_failures`)."""
    return reproduction_report(with_shipped_failures(ours, config), config_name=config)


def reproduction_view(df, *, view: str = "by model", model: str = ALL, difficulty: str = ALL,
                      config: str = "cogscale_paper", worst_k: int = 30, report=None, cell_table=None) -> tuple[Any, str]:
    """``(table, headline_markdown)`` for one of :data:`REPRODUCTION_VIEWS`: our rows of sweep
    ``config`` against the published runs, filtered by ``model`` (a display name) and
    ``difficulty`` (``"all"``: no filter). ``report`` / ``cell_table``: the unfiltered
    :func:`~rote_hf.results.aggregate.reproduction_report` / :func:`~rote_hf.results.reproduction.cells`
    of those rows, when a server has them already (computed here otherwise)."""
    import pandas as pd

    if view not in REPRODUCTION_VIEWS:
        raise ValueError(f"view must be one of {REPRODUCTION_VIEWS}, got {view!r}")
    ours = our_rows(df, config)
    if not len(ours):
        return pd.DataFrame(columns=["message"]), (f"No runs of `{config}` yet (the reproduction rows ship with "
                                                   "`rote-hf results --export-reproduction --results DIR`).")
    if view.startswith("cells"):
        table = cells(ours, config_name=config) if cell_table is None else cell_table
        table = _filtered(table, model, difficulty)
        tested = int(table["agree"].notna().sum())
        agree = int(table["agree"].fillna(False).sum())
        text = (f"**{len(table)}** cells (task, difficulty, budget, model) with our runs, each at the learning rate "
                f"chosen on test as the published table was made. Within 2 standard errors of the published mean: "
                f"**{agree}/{tested}** ({agree / tested:.1%}) of the cells with a standard error."
                if tested else f"**{len(table)}** cells; none has a standard error yet.")
        return _round(table.reset_index(drop=True)), text
    report = group_report(ours, config) if report is None else report
    report = _filtered(report, model, difficulty)
    h, h_all = headline(report), headline(report, exclude=())
    text = (f"**{len(ours):,}** of our runs; **{h_all['groups']}** groups (task, difficulty, budget, model, LR) on both "
            f"sides. Within 2 standard errors: **{fraction_text(h)}** of the tested non-ESN groups, {fraction_text(h_all)} with the ESN. "
            "`se = sqrt(s_ours²/n_ours + s_paper²/n_paper)`.\n\n"
            f"Three rules side by side (non-ESN groups), {rules_text(report, bold=True)}")
    if view == "by model":
        table = summary(report, "model")
    elif view == "by category":
        table = summary(report, "category", exclude=("ESN",))
    elif view == "worst groups":
        table = worst(report, worst_k)[_GROUP_COLUMNS]
    else:
        table = report[_GROUP_COLUMNS]
    return _round(table.reset_index(drop=True)), text


ROTE_FIT_COLUMNS = ["model", "paper_model", "task", "seed", "run", "epochs_ours", "epochs_paper", "accuracy_ours",
                    "accuracy_paper", "accuracy_diff", "DL_ours", "DL_paper", "DL_diff", "JW_ours", "JW_paper", "JW_diff",
                    "exact_ours", "exact_paper"]
"""Columns of the ROTE fit-by-fit table (:data:`rote_hf.results.rote_reproduction.PAIR_COLUMNS` less n and c)."""


def rote_fit_view(df) -> tuple[Any, Any, str]:
    """``(summary, fits, headline_markdown)``: our ``rote_paper`` fits in the leaderboard's rows
    ``df`` beside ROTE's archived twins (:func:`~rote_hf.results.rote_reproduction.fit_pairs`):
    the summary by model and ``all`` (:func:`~rote_hf.results.rote_reproduction.fit_summary`),
    one line per fit (exact rollouts as ``yes``/``no``), and the summary in one sentence."""
    pairs = rote.fit_pairs(df)
    summary_table = rote.fit_summary(pairs)
    fits = pairs[ROTE_FIT_COLUMNS].copy()
    for col in ("exact_ours", "exact_paper"):
        fits[col] = ["–" if v != v else ("yes" if v == 1.0 else "no") for v in fits[col]]
    for col in ("epochs_ours", "epochs_paper"):  # whole epochs; a missing one as NaN for the table
        fits[col] = fits[col].astype("float64")
    text = rote.summary_text(summary_table, bold=True)
    if not len(pairs):
        text += (" The ROTE rows ship with `rote-hf results --export-reproduction --results DIR "
                 f"--config eval_suite/configs/{rote.ROTE_CONFIG}.yaml`.")
    return _round(summary_table), _round(fits.reset_index(drop=True)), text


def _filtered(table, model: str, difficulty: str):
    if model != ALL:
        table = table[table["model"] == model]
    if difficulty != ALL:
        table = table[table["difficulty"] == difficulty]
    return table


#: One colour per published model name in the mean-vs-mean plot (a colour-blind-safe palette).
MODEL_COLOURS = {"GRU": "#0072b2", "LSTM": "#e69f00", "xLSTM": "#009e73", "Transformer": "#cc79a7",
                 "TransformerEncDec": "#56b4e9", "Mamba": "#d55e00", "ESN": "#7f7f7f"}


def mean_vs_mean_svg(report, *, size: int = 520, top: float = 1.0) -> str:
    """Our mean test score against the published mean, one point per group of ``report``
    (:func:`~rote_hf.results.aggregate.reproduction_report` rows), with the diagonal, as an SVG.
    Both axes run 0..``top`` (scores above are drawn on the rim); a hollow point lies outside
    2 standard errors. Empty report: an empty frame with the diagonal."""
    import html

    import pandas as pd

    pad, legend_w = 56, 150
    inner = size - 2 * pad

    def xy(paper: float, ours: float) -> tuple[float, float]:
        px = min(max(paper, 0.0), top) / top
        py = min(max(ours, 0.0), top) / top
        return pad + px * inner, size - pad - py * inner

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size + legend_w}" height="{size}" '
             f'viewBox="0 0 {size + legend_w} {size}" font-family="sans-serif" font-size="12">',
             f'<rect x="{pad}" y="{pad}" width="{inner}" height="{inner}" fill="none" stroke="#999"/>']
    for k in range(6):  # ticks at 0, 0.2, ..., 1 of top
        v = top * k / 5
        x, y = xy(v, v)
        parts += [f'<text x="{x:.1f}" y="{size - pad + 16}" text-anchor="middle">{v:g}</text>',
                  f'<text x="{pad - 6}" y="{y + 4:.1f}" text-anchor="end">{v:g}</text>']
    (x0, y0), (x1, y1) = xy(0, 0), xy(top, top)
    parts.append(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="black" stroke-width="1"/>')
    parts += [f'<text x="{pad + inner / 2}" y="{size - 12}" text-anchor="middle">published mean test score</text>',
              f'<text transform="translate(16 {pad + inner / 2}) rotate(-90)" text-anchor="middle">our mean test score</text>']
    models = list(dict.fromkeys(report["model"])) if len(report) else []
    for model in models:
        colour = MODEL_COLOURS.get(model, "#444444")
        g = report[report["model"] == model]
        for paper, ours, agree in zip(g["mean_paper"], g["mean_ours"], g["agree"]):
            if paper != paper or ours != ours:  # NaN
                continue
            x, y = xy(float(paper), float(ours))
            fill = colour if agree is pd.NA or bool(agree) else "none"
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.6" fill="{fill}" stroke="{colour}" stroke-width="1"/>')
    for i, model in enumerate(models):
        y = pad + 18 * i
        parts += [f'<circle cx="{size + 8}" cy="{y}" r="4" fill="{MODEL_COLOURS.get(model, "#444444")}"/>',
                  f'<text x="{size + 18}" y="{y + 4}">{html.escape(str(model))}</text>']
    y = pad + 18 * len(models)
    parts += [f'<circle cx="{size + 8}" cy="{y}" r="4" fill="none" stroke="#444"/>',
              f'<text x="{size + 18}" y="{y + 4}">outside 2 SE</text>',
              f'<line x1="{size + 2}" y1="{y + 18}" x2="{size + 14}" y2="{y + 18}" stroke="black"/>',
              f'<text x="{size + 18}" y="{y + 22}">ours = published</text>', "</svg>"]
    return "".join(parts)
