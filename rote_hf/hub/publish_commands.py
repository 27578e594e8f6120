"""``rote-hf publish``: assemble and validate every hub repo for ``--org``; with ``--push``, upload them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DEFAULT_ORG = "rote"  # rote_hf.hub.org.DEFAULT_ORG (not imported: the CLI starts without yaml)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "publish",
        help="assemble every hub repo of an org in the local mirror, validate the cards, optionally upload",
        description="Assemble the datasets, the results dataset, the five metric Spaces and the leaderboard Space "
        "for ORG under ROOT/ORG/, validate each card with huggingface_hub's card classes, and with --push upload "
        "what was assembled (token from $HF_TOKEN or the stored login; private repos unless --public). "
        "Without --push it is a dry run.",
    )
    p.add_argument("--root", default=".", type=Path, help="mirror root; repos go to ROOT/ORG/<repo> (default: .)")
    p.add_argument("--org", default=DEFAULT_ORG,
                   help=f"hub user or organisation every repo id is written for (default: {DEFAULT_ORG})")
    p.add_argument("--results", required=True, metavar="DIR",
                   help="results store whose rows join config 'ours' of ORG/results (required: no default, so "
                   "local smoke runs are never published by accident)")
    p.add_argument("--include-failed", action="store_true",
                   help="publish the store's failed and unverified rows too (refused otherwise)")
    p.add_argument("--push", action="store_true", help="upload the assembled repos to ORG")
    vis = p.add_mutually_exclusive_group()
    vis.add_argument("--private", dest="public", action="store_false", default=False,
                     help="create missing repos private (the default)")
    vis.add_argument("--public", dest="public", action="store_true", help="create missing repos public")
    p.add_argument("--revision", default=None, metavar="BRANCH", help="push to this branch (created if missing)")
    p.add_argument("--create-pr", action="store_true", help="open a pull request per repo instead of committing")
    p.add_argument("--rebuild", action="store_true", help="rebuild dataset and metric repos that already exist")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_publish)


def _publish(args: argparse.Namespace) -> int:
    from rote_hf.hub.org import check_org  # lazy: imports huggingface_hub
    from rote_hf.hub.publish import HUB_ONLY_CHECKS, OFFLINE_CHECKS, assemble, check_repo  # lazy: imports yaml
    from rote_hf.hub.push import PushError, PushOptions, find_token, provenance, push  # lazy: imports yaml
    from rote_hf.mirror.repo import paste_lines  # lazy: imports yaml

    check_org(args.org, "--org")
    options = PushOptions(private=not args.public, revision=args.revision, create_pr=args.create_pr)
    token = find_token() if args.push else None
    if args.push and not token:  # before minutes of assembling
        print("rote-hf: error: no Hugging Face token: set HF_TOKEN or run `hf auth login`; nothing was pushed",
              file=sys.stderr)
        return 1
    repos = assemble(args.root, results=args.results, org=args.org, include_failed=args.include_failed,
                     rebuild=args.rebuild, progress=not args.quiet)
    for repo in repos:
        details = check_repo(repo)
        print(f"ok  {repo.repo_type:<7}  {repo.repo_id}  {repo.path}")
        for line in details:
            print(f"      {line}")
    print("checks run offline:")
    for line in OFFLINE_CHECKS:
        print(f"  - {line}")
    print("checks that need the Hub (run after --push):")
    for line in HUB_ONLY_CHECKS:
        print(f"  - {line}")
    if not args.push:
        print(paste_lines(args.root))
        print(f"dry run: {len(repos)} repos assembled and validated for {args.org}; upload with --push")
        return 0
    from huggingface_hub import HfApi

    try:
        report = push(repos, api=HfApi(token=token), options=options,
                      description=provenance(repos, results=args.results, include_failed=args.include_failed))
    except PushError as exc:
        print(f"rote-hf: error: {exc}", file=sys.stderr)
        return 1
    print(f"{len(report.pushed)} pushed, {len(report.unchanged)} unchanged"
          + (f", {len(report.pull_requests)} pull requests" if args.create_pr else f"; tagged {options.tag}"))
    return 0
