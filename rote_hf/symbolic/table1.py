"""The ROTE paper's Table 1: seed length, predictive order r* and max α_100 per complexity c."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from rote_hf.symbolic.identifiability import ambiguity_rate, predictive_order
from rote_hf.symbolic.paper_seeds import PaperSeed, paper_seeds
from rote_hf.symbolic.windows import PAPER_WINDOW


@dataclass(frozen=True)
class Table1Row:
    """One row: medians and ranges over the seeds of complexity ``c`` (lengths in symbols)."""

    c: int
    n_seeds: int
    length_median: float
    length_min: int
    length_max: int
    r_star_median: float
    r_star_min: int
    r_star_max: int
    max_alpha: float


def table1(seeds: Iterable[PaperSeed] | None = None, window: int = PAPER_WINDOW) -> list[Table1Row]:
    """Table 1 over ``seeds`` (default: the 40 main-track paper seeds), one row per c."""
    seeds = list(paper_seeds("main") if seeds is None else seeds)
    rows = []
    for c in sorted({s.complexity for s in seeds}):
        group = [s.seed for s in seeds if s.complexity == c]
        lengths = [len(s) for s in group]
        orders = [predictive_order(s) for s in group]
        rows.append(
            Table1Row(
                c=c,
                n_seeds=len(group),
                length_median=float(statistics.median(lengths)),
                length_min=min(lengths),
                length_max=max(lengths),
                r_star_median=float(statistics.median(orders)),
                r_star_min=min(orders),
                r_star_max=max(orders),
                max_alpha=max(ambiguity_rate(s, window) for s in group),
            )
        )
    return rows


def format_table1(rows: list[Table1Row], window: int = PAPER_WINDOW) -> str:
    """Markdown table in the paper's layout: median (range)."""
    lines = [
        f"| c | seeds | seed length | r* | max α_{window} |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.c} | {r.n_seeds} | {r.length_median:.1f} ({r.length_min}–{r.length_max}) "
            f"| {r.r_star_median:.1f} ({r.r_star_min}–{r.r_star_max}) | {r.max_alpha:g} |"
        )
    return "\n".join(lines)
