"""``rote-hf rote ...``: ROTE seed utilities on the command line."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("table1", help="recompute the ROTE paper's Table 1 from the 40 main-track seeds")
    p.set_defaults(func=_table1)


def _table1(args: argparse.Namespace) -> int:
    from rote_hf.symbolic.table1 import format_table1, table1

    print(format_table1(table1()))
    return 0
