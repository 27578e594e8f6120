"""``rote-hf build`` and ``rote-hf demo``: write the local mirror of the hub org."""

from __future__ import annotations

import argparse
from pathlib import Path

from rote_hf.hub.targets import BUILD_TARGETS, build


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "build",
        help="build hub repos into the local mirror DIR/rote/<repo>/",
        description="Build a dataset or metric repo of the rote org into a local mirror folder.",
    )
    p.add_argument("target", choices=[*BUILD_TARGETS.names(), "all"], help="what to build")
    p.add_argument("--root", default=".", type=Path, help="mirror root; repos go to ROOT/rote/<repo> (default: .)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument(
        "--config", default=None,
        help="part of the target to build, for targets that have configs (cogscale: a config name "
        "such as simple_copy-small, a difficulty small/medium/large, or all; default small+medium)",
    )
    p.set_defaults(func=_build)

    d = sub.add_parser(
        "demo",
        help="the main job on embedded defaults: build the whole local mirror and summarise it",
        description="Build every repo of the local mirror under ROOT and print a short summary.",
    )
    d.add_argument("--root", default=".", type=Path, help="mirror root (default: .)")
    d.set_defaults(func=_demo)


def _build(args: argparse.Namespace) -> int:
    from rote_hf.mirror.repo import paste_lines  # lazy: imports yaml

    for repo in build(args.target, args.root, progress=not args.quiet, config=args.config):
        print(repo.summary())
    print(paste_lines(args.root))
    return 0


def _demo(args: argparse.Namespace) -> int:
    from rote_hf.mirror.repo import paste_lines  # lazy: imports yaml
    from rote_hf.symbolic.table1 import format_table1, table1  # lazy: imports numpy

    print(f"Building the local mirror under {args.root.resolve()}/rote ...")
    for repo in build("all", args.root, progress=True):
        print("  " + repo.summary())
    print("\nROTE paper Table 1 recomputed from the 40 main-track seeds:")
    print(format_table1(table1()))
    print()
    print(paste_lines(args.root))
    return 0
