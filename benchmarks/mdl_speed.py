"""Speed of the MDL learner: classical corpus and OEIS-like sweeps (results in mdl_speed.md).

    PYTHONPATH=. OMP_NUM_THREADS=1 python benchmarks/mdl_speed.py [--oeis-n 300] [--workers 2]

Measures (wall clock, this machine):
1. the 61-sequence classical corpus, both encodings, per solver/backend;
2. sequences per second at a 30- and a 60-term budget on the shipped generated OEIS sample
   (sequences with >= 60 terms, so both budgets use the same sequences), single process, for
   incremental+flint (default), re-solve+flint and re-solve+sympy;
3. the 2-process sweep rate at 60 terms and the projected time of 20,000 sequences x 60 terms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from rote_hf.mdl import classical_corpus, spectrum
from rote_hf.mdl.oeis_io import read_stripped, sample_records
from rote_hf.mdl.sample import sample_path
from rote_hf.mdl.sweep import MdlSweepConfig, iter_sweep


def corpus_time(n_terms: int = 34, encodings: tuple[str, ...] = ("loose", "strict"), **kw) -> float:
    corpus = classical_corpus(n_terms)
    t = time.perf_counter()
    for enc in encodings:
        for s in corpus:
            spectrum(s.terms, encoding=enc, **kw)
    return time.perf_counter() - t


def per_sequence(records, budget: int, **kw) -> list[float]:
    times = []
    for r in records:
        t = time.perf_counter()
        spectrum(r.terms[:budget], **kw)
        times.append(time.perf_counter() - t)
    return times


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--oeis-n", type=int, default=300, help="sequences for the single-process rates")
    ap.add_argument("--sympy-n", type=int, default=40, help="sequences for the (slow) sympy rates")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    sys.set_int_max_str_digits(0)
    print(f"load average at start: {os.getloadavg()}")
    for label, kw in (("incremental + flint (default)", {}), ("re-solve + flint", {"solver": "resolve"}),
                      ("re-solve + sympy", {"solver": "resolve", "backend": "sympy"})):
        print(f"classical corpus, both encodings, {label}: {corpus_time(**kw):.2f} s")
    t60 = corpus_time(60, ("loose",))
    print(f"classical corpus at 60 terms (terms up to {len(str(max(max(s.terms) for s in classical_corpus(60))))} digits), "
          f"loose, incremental + flint: {t60:.2f} s ({61 / t60:.1f} seq/s)")
    records, _ = read_stripped(sample_path(), min_terms=60)
    pool = sample_records(records, min_terms=60, limit=None, seed=0)
    print(f"OEIS sample: {len(pool)} sequences with >= 60 terms")
    for budget in (30, 60):
        for label, kw, n in (("incremental + flint", {}, args.oeis_n),
                             ("re-solve + flint", {"solver": "resolve"}, args.oeis_n),
                             ("re-solve + sympy", {"solver": "resolve", "backend": "sympy"}, args.sympy_n)):
            ts = per_sequence(pool[:n], budget, **kw)
            print(f"  {budget} terms, {label}, n={len(ts)}: {len(ts) / sum(ts):.1f} seq/s, "
                  f"mean {1000 * statistics.mean(ts):.1f} ms, median {1000 * statistics.median(ts):.1f} ms")
    for budget in (30, 60):
        config = MdlSweepConfig(budget=budget, min_terms=budget, audit=False)
        chosen = pool[: args.oeis_n * 2]
        t = time.perf_counter()
        rows = list(iter_sweep(chosen, config, workers=args.workers))
        wall = time.perf_counter() - t
        rate = len(rows) / wall
        print(f"sweep {budget} terms, {args.workers} processes, {len(rows)} sequences: {rate:.1f} seq/s -> "
              f"20,000 sequences in {20000 / rate / 60:.1f} min")
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
