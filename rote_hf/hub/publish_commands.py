"""``rote-hf publish``: assemble, validate and (with ``--push ORG``) upload every hub repo."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "publish",
        help="assemble every hub repo in the local mirror, validate the cards, optionally upload",
        description="Assemble the datasets, the five metric Spaces, the leaderboard Space and the results "
        "dataset under ROOT/rote/, validate each card with huggingface_hub's card classes, and with "
        "--push ORG upload each folder (token from $HF_TOKEN). Without --push it is a dry run.",
    )
    p.add_argument("--root", default=".", type=Path, help="mirror root; repos go to ROOT/rote/<repo> (default: .)")
    p.add_argument("--results", default="results", help="results store to publish as rote/results (default: ./results)")
    p.add_argument("--push", metavar="ORG", default=None, help="upload to this hub user or organisation")
    p.add_argument("--rebuild", action="store_true", help="rebuild dataset and metric repos that already exist")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_publish)


def _publish(args: argparse.Namespace) -> int:
    from rote_hf.mirror.repo import paste_lines  # lazy: imports yaml
    from rote_hf.hub.publish import HUB_ONLY_CHECKS, OFFLINE_CHECKS, PushError, assemble, check_repo, push  # lazy: imports yaml

    repos = assemble(args.root, results=args.results, rebuild=args.rebuild, progress=not args.quiet)
    for repo in repos:
        details = check_repo(repo)
        print(f"ok  {repo.repo_type:<7}  rote/{repo.name}  {repo.path}")
        for line in details:
            print(f"      {line}")
    print("checks run offline:")
    for line in OFFLINE_CHECKS:
        print(f"  - {line}")
    print("checks that need the Hub (run after --push):")
    for line in HUB_ONLY_CHECKS:
        print(f"  - {line}")
    if args.push is None:
        print(paste_lines(args.root))
        print(f"dry run: {len(repos)} repos assembled and validated; upload with --push ORG")
        return 0
    try:
        for repo_id in push(repos, args.push):
            print(f"pushed  {repo_id}")
    except PushError as exc:
        print(f"rote-hf: error: {exc}", file=sys.stderr)
        return 1
    return 0
