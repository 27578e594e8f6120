"""``rote-hf results``: print the tables of a results folder (and the papers' published rows)."""

from __future__ import annotations

import argparse

VIEWS = ("leaderboard", "rote", "rote_matched", "cogscale", "cogscale-test")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("results", help="print the tables of a results folder",
                       description="Aggregate the result rows of a folder written by eval_suite/train.py.")
    p.add_argument("--dir", default="results", help="results folder (default: ./results)")
    p.add_argument("--view", default="leaderboard", choices=VIEWS,
                   help="leaderboard (any suite), rote / rote_matched (per-model summary), cogscale (LR chosen "
                        "on validation) or cogscale-test (LR chosen on test, as the published table)")
    p.add_argument("--paper", action="store_true", help="include the papers' published rows (leaderboard view)")
    p.set_defaults(func=_results)


def _results(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rote_hf.results import load
    from rote_hf.results.aggregate import cogscale_table, format_table, leaderboard, rote_summary

    if not Path(args.dir).is_dir() and not args.paper:
        raise FileNotFoundError(f"results folder not found: {args.dir}")
    df = load(args.dir if Path(args.dir).is_dir() else None, include_paper=args.paper)
    if args.view == "leaderboard":
        table = leaderboard(df, include_paper=args.paper)
        cols = ["suite", "task", "config", "model", "budget", "source", "score_name", "runs", "failed",
                "score_mean", "score_std"]
    elif args.view.startswith("cogscale"):
        table = cogscale_table(df, lr_selection="test" if args.view.endswith("test") else "validation")
        cols = ["task", "difficulty", "model", "budget", "learning_rate", "lr_selection", "seeds", "failed", "mean", "std"]
    else:
        table = rote_summary(df, suite=args.view)
        cols = ["model", "fits", "failed", "params", "test_loss_mean", "DL_mean", "DL_sd", "JW_mean", "exact_rate",
                "train_time_median_s", "time_per_epoch_median_s"]
    print(format_table(table, cols))
    return 0
