"""``rote-hf mdl TERMS`` (the learner on one sequence) and ``rote-hf mdl-sweep`` (OEIS sweep)."""

from __future__ import annotations

import argparse
import errno
import json
import sys
from pathlib import Path

from rote_hf.argtypes import PLAIN_INT, int_in
from rote_hf.mdl.bigint import dumps_int_rows, dumps_json, format_int, parse_int
from rote_hf.mdl.oeis_io import read_stripped, sample_records
from rote_hf.mdl.sample import sample_path
from rote_hf.mdl.spectrum import N_MIN, spectrum
from rote_hf.mdl.strata import format_summary, summarize_regimes
from rote_hf.mdl.sweep import MdlSweepConfig, run_sweep

MAX_TERMS = 1_000
"""Most terms ``rote-hf mdl`` reads (the learner runs on every prefix; the papers use 20-30)."""
MAX_DIGITS = 10_000
"""Most decimal digits of one term."""
MAX_NEXT = 1_000
"""Most continuation terms ``--next`` prints."""
MAX_ORDER = MAX_DEGREE = 16
"""Largest ``--max-order`` / ``--max-degree`` (defaults 6 and 4)."""


def _shard(text: str) -> tuple[int, int]:
    """argparse type of ``--shard``: ``INDEX/COUNT`` with ``0 <= INDEX < COUNT <= 10000``."""
    index, _, count = text.partition("/")
    if not (PLAIN_INT.fullmatch(index) and PLAIN_INT.fullmatch(count) and 0 <= int(index) < int(count) <= 10_000):
        raise argparse.ArgumentTypeError(f"must be INDEX/COUNT with 0 <= INDEX < COUNT <= 10000, e.g. 0/4, "
                                         f"got {text[:40]!r}")
    return int(index), int(count)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mdl",
        help="run the MDL learner on one integer sequence: operator, recurrence and revision spectrum",
        description="Run the holonomic MDL learner on every prefix of a sequence, e.g. "
        "`rote-hf mdl 0,1,1,2,3,5,8,13,21,34,55`.",
    )
    p.add_argument("terms", nargs="+", help="the terms, comma- or space-separated (a trailing '...' is ignored)")
    _learner_options(p)
    p.add_argument("--next", type=int_in(0, MAX_NEXT), default=3,
                   help=f"how many continuation terms to print, 0..{MAX_NEXT} (default: 3)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.set_defaults(func=_mdl)

    s = sub.add_parser(
        "mdl-sweep",
        help="run the learner over an OEIS stripped dump (parallel, shardable, resumable JSON lines)",
        description="Sweep an OEIS `stripped` file (plain or gzip; default: the shipped generated sample).",
    )
    s.add_argument("--stripped", type=Path, default=None, help="path to stripped or stripped.gz (default: shipped sample)")
    s.add_argument("--out", type=Path, required=True, help="output JSON-lines file; existing rows are kept (resume)")
    s.add_argument("--budget", type=int_in(7, MAX_TERMS), default=30, help=f"terms per sequence, 7..{MAX_TERMS} (default: 30)")
    s.add_argument("--min-terms", type=int_in(7, MAX_TERMS), default=20,
                   help=f"skip sequences with fewer terms, 7..{MAX_TERMS} (default: 20)")
    s.add_argument("--limit", type=int_in(1, 10_000_000), default=20_000,
                   help="sample size after shuffling, 1..10000000 (default: 20000)")
    s.add_argument("--seed", type=int_in(0, 2**32 - 1), default=0, help="shuffle seed, 0..2**32-1 (default: 0)")
    s.add_argument("--workers", type=int_in(1, 256), default=1, help="processes, 1..256 (default: 1)")
    s.add_argument("--shard", type=_shard, default=(0, 1),
                   help="this machine's shard INDEX/COUNT by position (default: 0/1)")
    s.add_argument("--on-bad", choices=["reject", "stop"], default="reject", help="non-integer token: drop the line or keep terms before it")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    _learner_options(s, with_bounds=False)
    s.set_defaults(func=_sweep)


def _learner_options(p: argparse.ArgumentParser, with_bounds: bool = True) -> None:
    p.add_argument("--max-order", type=int_in(1, MAX_ORDER), default=6, help=f"largest order r, 1..{MAX_ORDER} (default: 6)")
    p.add_argument("--max-degree", type=int_in(0, MAX_DEGREE), default=4,
                   help=f"largest degree d, 0..{MAX_DEGREE} (default: 4)")
    p.add_argument("--encoding", choices=["loose", "strict"], default="loose", help="L(H) encoding (default: loose)")
    p.add_argument("--backend", choices=["flint", "sympy", "fraction"], default="flint", help="exact nullspace backend")


def parse_terms(tokens: list[str]) -> list[int]:
    """Integers from CLI tokens such as ``['0,1,1,2,...']`` or ``['0', '1', '1']``: plain decimal
    integers only (``1_000``, ``+5`` or non-ASCII digits are refused), at most :data:`MAX_TERMS`
    terms of at most :data:`MAX_DIGITS` digits, checked before any conversion."""
    parts = [t.strip() for tok in tokens for t in tok.replace(";", ",").split(",")]
    parts = [t for p in parts for t in p.split() if t]
    while parts and parts[-1] in ("...", "…"):
        parts.pop()
    if len(parts) > MAX_TERMS:
        raise ValueError(f"terms must be at most {MAX_TERMS} numbers, got {len(parts)}")
    for t in parts:
        if not PLAIN_INT.fullmatch(t):
            raise ValueError(f"terms must be integers separated by commas or spaces, got {t[:40]!r}")
        if len(t.lstrip("-")) > MAX_DIGITS:
            raise ValueError(f"terms must have at most {MAX_DIGITS} digits each, got one of {len(t.lstrip('-'))}")
    return [parse_int(t) for t in parts]


def _mdl(args: argparse.Namespace) -> int:
    terms = parse_terms(args.terms)
    if len(terms) < N_MIN:
        raise ValueError(f"terms must have at least {N_MIN} terms (the learner starts at n = {N_MIN}), got {len(terms)}")
    sp = spectrum(
        terms, max_order=args.max_order, max_degree=args.max_degree, encoding=args.encoding, backend=args.backend
    )
    h = sp.hypothesis
    nxt = None if h is None or args.next == 0 else h.extend(terms, args.next)
    if args.json:
        out = {
            **sp.summary(),
            "hypothesis": None if h is None else h.to_dict(),
            "recurrence": None if h is None else h.recurrence(),
            "next": nxt,
            "spectrum": [
                {"n": n, "L": L, "L_lit": lit, "state": _state(s)}
                for n, L, lit, s in zip(sp.n_values, sp.L, sp.L_lit, sp.signatures)
            ],
            "R": list(sp.R),
            "rho": list(sp.rho),
        }
        print(dumps_json(out, default=str))
        return 0
    print(f"terms: {len(terms)}   literal cost L_lit = {sp.L_lit[-1]} bits   encoding: {args.encoding}")
    if h is None:
        print("operator: none (storing the terms verbatim is cheapest)")
    else:
        coeffs = "; ".join("p%d(n) = %s" % (i, _poly(row)) for i, row in enumerate(h.coeffs))
        print(f"operator: order r = {h.order}, degree d = {h.degree}, L(H) = {h.cost} bits   [{coeffs}]")
        print(f"recurrence: {h.recurrence()}   initial terms: {', '.join(map(format_int, h.initial))}")
        if nxt is not None:
            print(f"next terms: {', '.join(map(format_int, nxt))}")
    fmt = lambda v: "-" if v is None else str(v)  # noqa: E731
    print(
        f"regime: {sp.regime}   discovery n_d = {fmt(sp.discovery_point)}   stabilisation = {fmt(sp.stabilisation_point)}   "
        f"revisions = {sp.n_revisions} (structural {sp.n_struct_revisions})   n_id = {fmt(sp.n_id)}   n_x = {fmt(sp.n_x)}   "
        f"lambda = {sp.compression_ratio:.3f}"
    )
    print(f"{'n':>4} {'L(n)':>7} {'L_lit(n)':>9} {'R(n)':>6} {'rho(n)':>8}  state")
    R, rho = sp.R + (None,), sp.rho + (None,)
    for k, n in enumerate(sp.n_values):
        r = "" if R[k] is None else str(R[k])
        q = "" if rho[k] is None else f"{rho[k]:.3f}"
        print(f"{n:>4} {sp.L[k]:>7} {sp.L_lit[k]:>9} {r:>6} {q:>8}  {_state(sp.signatures[k])}")
    return 0


def _poly(row: tuple[int, ...]) -> str:
    terms = [format_int(c) + ("" if j == 0 else "*n" if j == 1 else f"*n^{j}") for j, c in enumerate(row) if c]
    return " + ".join(terms).replace("+ -", "- ") if terms else "0"


def _state(sig: object) -> str:
    if sig == "literal":
        return "literal"
    r, d, coeffs = sig  # type: ignore[misc]
    return f"r={r} d={d} {dumps_int_rows(coeffs)}"


def _check_out(out: Path) -> None:
    """Refuse an ``--out`` that cannot be written, before reading or computing anything: a file
    where a folder should be, a folder where the file should be, a folder that takes no new files
    (probed with a temporary file that is removed at once; permissions alone say nothing for root)."""
    import tempfile

    if out.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder, give a .jsonl file path (--out)", str(out))
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, f"{parent} is a file, not a folder (--out)", str(out))
            try:
                with tempfile.TemporaryFile(dir=parent):
                    pass
            except OSError as exc:
                raise type(exc)(exc.errno, f"{exc.strerror} (--out)", str(out)) from None
            return


def _sweep(args: argparse.Namespace) -> int:
    index, count = args.shard
    _check_out(args.out)
    path = args.stripped or sample_path()
    records, rep = read_stripped(path, min_terms=args.min_terms, on_bad=args.on_bad)
    print(f"read {path}: {rep.summary()}", file=sys.stderr)
    chosen = sample_records(records, min_terms=args.min_terms, limit=args.limit, seed=args.seed)
    config = MdlSweepConfig(
        budget=args.budget, min_terms=args.min_terms, max_order=args.max_order, max_degree=args.max_degree,
        encoding=args.encoding, backend=args.backend,
    )
    counts = run_sweep(
        chosen, args.out, config, workers=args.workers, shard_index=index, shard_count=count, progress=not args.quiet
    )
    print(
        f"shard {index}/{count}: {counts['written']} written, {counts['skipped_done']} already done, "
        f"{counts['errors']} errors -> {args.out}"
    )

    with open(args.out, encoding="utf-8") as fh:
        rows = [r for r in map(json.loads, fh) if r.get("error") is None]
    print(f"summary of {args.out}:\n{format_summary(summarize_regimes(rows))}")
    return 0
