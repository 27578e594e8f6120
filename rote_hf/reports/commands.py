"""``rote-hf results``: print the tables of a results folder (and the papers' published rows).

``--view leaderboard`` is the suite-agnostic table; ``--view <suite>`` prints that suite's own
summary table (the one ``eval_suite/train.py`` prints at the end), whatever suites are registered.
CogScale's published-table variant (learning rate chosen on test) is ``--view cogscale-test``.
``--reproduction`` compares our CogScale grid with the published runs; ``--export-reproduction``
ships a store's ``cogscale_paper`` runs with the package; ``--verify-sample N`` re-runs N shipped
(or ``--results DIR``) runs on this machine and says how exactly they come back
(:mod:`rote_hf.reports.verify`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rote_hf.argtypes import int_in
from rote_hf.results import load
from rote_hf.results.aggregate import format_table, leaderboard, reproduction_report
from rote_hf.results.reproduction import cells, paired_runs, text_report
from rote_hf.results.shipped import shipped_frame, shipped_provenance, with_shipped_failures
from rote_hf.suites import SUITES, get_suite

LEADERBOARD = "leaderboard"
#: Extra views: name -> (suite, summary keyword arguments).
VARIANTS = {"cogscale-test": ("cogscale", {"lr_selection": "test"})}


def views() -> list[str]:
    """The accepted ``--view`` values: the leaderboard, every registered suite, the variants."""
    return [LEADERBOARD, *SUITES.names(), *VARIANTS]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("results", help="print the tables of a results folder",
                       description="Aggregate the result rows of a folder written by eval_suite/train.py.")
    p.add_argument("--dir", "--results", dest="dir", default=None,
                   help="results folder (default: ./results; for --reproduction: the shipped rows)")
    p.add_argument("--view", default=LEADERBOARD, choices=views(),
                   help="leaderboard (any suite), a suite's own summary table (rote / rote_matched: per-model "
                        "summary; cogscale: LR chosen on validation; mdl: the OEIS-LLM strata), or cogscale-test "
                        "(LR chosen on test, as the published table)")
    p.add_argument("--paper", action="store_true", help="include the papers' published rows (leaderboard view)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--reproduction", action="store_true",
                      help="compare our cogscale_paper runs (the shipped rows, or --results DIR) with CogScale's "
                           "published runs: agreement by model and category, worst groups")
    mode.add_argument("--export-reproduction", action="store_true",
                      help="write the finished cogscale_paper runs of --results DIR into the package "
                           "(rote_hf/results/ours/cogscale_paper.parquet + .json)")
    mode.add_argument("--verify-sample", type=int_in(1, 10**6, "N"), default=None, metavar="N",
                      help="re-run N random stored runs of ours (the shipped rows, or --results DIR), stratified by "
                           "model, on this machine with the one-run executor; report per run and in total whether "
                           "they come back equal within 1e-6, within 1e-3, or different, and whether the recorded "
                           "CPU capability is this machine's")
    p.add_argument("--seed", type=int_in(0, 2**32 - 1, "seed"), default=0,
                   help="--verify-sample: seed of the draw (default 0)")
    p.add_argument("--only", action="append", default=[], metavar="FIELD=VALUE[,VALUE]",
                   help="--verify-sample: draw only runs with these values (repeatable; the filters of train.py "
                        "--only: FIELD task, model, budget, difficulty, run or lr)")
    p.add_argument("--threads", type=int_in(1, 1024, "threads"), default=None,
                   help="--verify-sample: intra-op threads of each re-run (default: the row's recorded count, 1 "
                        "when it records none)")
    p.add_argument("--config", default=None,
                   help="--export-reproduction / --verify-sample: sweep YAML (default: "
                        "eval_suite/configs/<config name>.yaml)")
    p.add_argument("--out", default=None, help="--export-reproduction: output folder (default: rote_hf/results/ours)")
    p.add_argument("--worst", type=int, default=15, help="--reproduction: how many worst groups to list (default 15)")
    p.set_defaults(func=_results)


def _export(args: argparse.Namespace) -> int:
    from rote_hf.reports.export import export_reproduction  # lazy: imports numpy

    if args.dir is None:
        raise ValueError("--export-reproduction needs --results DIR (the results store to export)")
    command = " ".join(["rote-hf results --export-reproduction --results", args.dir]
                       + (["--config", args.config] if args.config else []) + (["--out", args.out] if args.out else []))
    prov = export_reproduction(args.dir, config=args.config, out_dir=args.out, command=command)
    print(f"exported {prov['runs_ok']} ok runs of {prov['config_name']} ({prov['runs_failed']} failed, listed in the "
          f"JSON; {prov['runs_left']} of {prov['runs_expected']} left) -> {prov['data_file']} "
          f"({prov['data_bytes']} bytes, sha256 {prov['data_sha256'][:12]})")
    return 0


def _reproduction(args: argparse.Namespace) -> int:
    if args.worst < 0:
        raise ValueError(f"--worst must be >= 0, got {args.worst}")
    if args.dir is not None:
        if not Path(args.dir).is_dir():
            raise FileNotFoundError(f"results folder not found: {args.dir}")
        ours, provenance = load(args.dir, decode_json=False), None
        print(f"our rows: the results store {args.dir}")
    else:
        ours, provenance = shipped_frame(), shipped_provenance()
        if provenance is None:
            print("no reproduction rows are shipped yet: export them with "
                  "`rote-hf results --export-reproduction --results DIR`, or pass --results DIR")
            return 0
        print("our rows: shipped with the package (rote_hf/results/ours/cogscale_paper.parquet)")
        ours = with_shipped_failures(ours)  # the strict rule counts the groups of the runs that diverged
    report = reproduction_report(ours)
    print(text_report(report, cells(ours), provenance, k=args.worst, pairs=paired_runs(ours), ours=ours))
    return 0


def _verify(args: argparse.Namespace) -> int:
    from rote_hf.reports.verify import text_report, verify_sample  # lazy: imports torch

    if args.dir is not None:
        if not Path(args.dir).is_dir():
            raise FileNotFoundError(f"results folder not found: {args.dir}")
        rows, where = load(args.dir, decode_json=False), f"the results store {args.dir}"
    else:
        rows, where = shipped_frame(), "shipped with the package"
    outcome = verify_sample(rows, args.verify_sample, seed=args.seed, only=args.only, config=args.config,
                            threads=args.threads)
    report = text_report(outcome).split("\n", 1)
    print("\n".join([report[0], f"rows: {where}; draw seed {args.seed}", *report[1:]]))
    return 0


def _results(args: argparse.Namespace) -> int:
    if (args.only or args.threads is not None) and args.verify_sample is None:
        raise ValueError("--only and --threads go with --verify-sample N")
    if args.verify_sample is not None:
        return _verify(args)
    if args.export_reproduction:
        return _export(args)
    if args.reproduction:
        return _reproduction(args)
    args.dir = args.dir or "results"
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
