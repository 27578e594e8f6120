"""``rote-hf seed`` and ``rote-hf table1``: ROTE seeds and their diagnostics on the command line."""

from __future__ import annotations

import argparse

from rote_hf.argtypes import int_in
from rote_hf.symbolic import ambiguity_rate, generate_seed, predictive_order
from rote_hf.symbolic.table1 import format_table1, table1

MAX_COMPLEXITY = 10_000
"""Largest ``--complexity`` (the papers use at most 90; 10,000 takes about a second)."""
MAX_WINDOW = 100_000
"""Largest ``--window`` (symbols)."""


def register(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser(
        "seed",
        help="generate one seed of given alphabet size and LZW complexity, with its diagnostics",
        description="Generate a seed with the reference scheme (rote-bench's lzw_string_generator).",
    )
    s.add_argument("--symbols", "-n", type=int_in(1, 52, "n_symbols"), required=True, help="alphabet size n, 1..52")
    s.add_argument("--complexity", "-c", type=int_in(1, MAX_COMPLEXITY), required=True,
                   help=f"target LZW complexity c, n..{MAX_COMPLEXITY}")
    s.add_argument("--random-state", type=int_in(0, 2**32 - 1), default=42,
                   help="seed of the generator, 0..2**32-1 (default 42)")
    s.add_argument("--window", type=int_in(1, MAX_WINDOW), default=100,
                   help=f"window w for alpha_w, 1..{MAX_WINDOW} (default 100)")
    s.set_defaults(func=_seed)

    t = sub.add_parser("table1", help="recompute the ROTE paper's Table 1 from the 40 main-track seeds")
    t.set_defaults(func=_table1)


def _seed(args: argparse.Namespace) -> int:
    seed, measured = generate_seed(args.symbols, args.complexity, args.random_state)
    print(seed)
    print(
        f"length={len(seed)} complexity={measured} exact={measured == args.complexity} "
        f"r_star={predictive_order(seed)} alpha_{args.window}={ambiguity_rate(seed, args.window):g}"
    )
    return 0


def _table1(args: argparse.Namespace) -> int:
    print(format_table1(table1()))
    return 0
