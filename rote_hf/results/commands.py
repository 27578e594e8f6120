"""``rote-hf results``: print the tables of a results folder (and the papers' published rows).

``--view leaderboard`` is the suite-agnostic table; ``--view <suite>`` prints that suite's own
summary table (the one ``eval_suite/train.py`` prints at the end), whatever suites are registered.
CogScale's published-table variant (learning rate chosen on test) is ``--view cogscale-test``.
"""

from __future__ import annotations

import argparse

LEADERBOARD = "leaderboard"
#: Extra views: name -> (suite, summary keyword arguments).
VARIANTS = {"cogscale-test": ("cogscale", {"lr_selection": "test"})}


def views() -> list[str]:
    """The accepted ``--view`` values: the leaderboard, every registered suite, the variants."""
    from rote_hf.suites import SUITES

    return [LEADERBOARD, *SUITES.names(), *VARIANTS]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("results", help="print the tables of a results folder",
                       description="Aggregate the result rows of a folder written by eval_suite/train.py.")
    p.add_argument("--dir", default="results", help="results folder (default: ./results)")
    p.add_argument("--view", default=LEADERBOARD, choices=views(),
                   help="leaderboard (any suite), a suite's own summary table (rote / rote_matched: per-model "
                        "summary; cogscale: LR chosen on validation; mdl: the OEIS-LLM strata), or cogscale-test "
                        "(LR chosen on test, as the published table)")
    p.add_argument("--paper", action="store_true", help="include the papers' published rows (leaderboard view)")
    p.set_defaults(func=_results)


def _results(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rote_hf.results import load
    from rote_hf.results.aggregate import format_table, leaderboard
    from rote_hf.suites import get_suite

    if not Path(args.dir).is_dir() and not args.paper:
        raise FileNotFoundError(f"results folder not found: {args.dir}")
    df = load(args.dir if Path(args.dir).is_dir() else None, include_paper=args.paper)
    if args.view == LEADERBOARD:
        table = leaderboard(df, include_paper=args.paper)
        print(format_table(table, ["suite", "task", "config", "model", "budget", "source", "score_name", "runs",
                                   "failed", "score_mean", "score_std"]))
        return 0
    suite, kwargs = VARIANTS.get(args.view, (args.view, {}))
    print(get_suite(suite).summary_table(df, **kwargs))
    return 0
