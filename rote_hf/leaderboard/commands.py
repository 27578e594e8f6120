"""``rote-hf backend``: verify the Space's architecture requests by re-running them.

    rote-hf backend --requests DIR_OR_REPO --results DIR [--once] [--max-requests N] [--poll S]

``--requests`` is a desk folder (the Space's ``--results`` folder, which holds ``requests/``) or the
Hub dataset repo ``ORG/requests`` (token from ``HF_TOKEN``); ``--results`` is the results store the
verified rows go to. See :mod:`rote_hf.leaderboard.backend` and docs/space.md.
"""

from __future__ import annotations

import argparse

from rote_hf.argtypes import int_in


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("backend", help="re-run the Space's pending architecture requests",
                       description="Train the pending architecture requests of a requests folder or Hub repo with "
                                   "their track's official protocol and mark each verified, failed or rejected.")
    p.add_argument("--requests", required=True, metavar="DIR_OR_REPO",
                   help="the requests folder (the Space's --results folder) or a Hub dataset repo ORG/requests")
    p.add_argument("--results", required=True, metavar="DIR", help="results store for the verified rows")
    p.add_argument("--once", action="store_true", help="one pass over the queue, then exit (for cron)")
    p.add_argument("--max-requests", type=int_in(1, 1_000_000, "--max-requests"), default=None, metavar="N",
                   help="exit after handling N requests")
    p.add_argument("--poll", type=int_in(1, 86_400, "--poll"), default=60, metavar="S",
                   help="seconds between looks at an empty queue (default 60; not with --once)")
    p.set_defaults(func=_backend)


def _backend(args: argparse.Namespace) -> int:
    from rote_hf.leaderboard.backend import run_backend  # lazy: the sweep runner imports torch

    report = run_backend(args.requests, args.results, once=args.once, max_requests=args.max_requests,
                         poll_s=float(args.poll))
    print(f"requests: {len(report.verified)} verified, {len(report.failed)} failed, "
          f"{len(report.rejected)} rejected")
    return 0  # a failed request is recorded in its status; the backend did its job
