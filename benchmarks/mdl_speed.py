"""Speed of the MDL learner: classical corpus and OEIS-like sweeps (results in mdl_speed.md).

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 5 python benchmarks/mdl_speed.py --parts oeis [--n 40]

Measures (wall clock, this machine), with every solver timed on the SAME inputs so that each
ratio compares like with like:
1. ``corpus``: the 61-sequence classical corpus, both encodings, per solver/backend;
2. ``oeis``: the first ``--n`` sequences (>= 60 terms) of the shipped generated OEIS sample, at a
   30- and a 60-term budget, single process, for incremental+flint (default), re-solve+flint and
   re-solve+sympy, each on those same sequences, ``--repeats`` times (the shared machine is noisy:
   the fastest repeat of each solver's total is kept); prints the speed-up ratios of the totals;
3. ``sweep``: the 2-process sweep rate at 30/60 terms and the projected time of 20,000 sequences.
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

SOLVERS = (("incremental + flint", {}), ("re-solve + flint", {"solver": "resolve"}),
           ("re-solve + sympy", {"solver": "resolve", "backend": "sympy"}))
PARTS = ("corpus", "oeis", "sweep")


def corpus_time(n_terms: int = 34, encodings: tuple[str, ...] = ("loose", "strict"), **kw) -> float:
    """Seconds to compute the full spectrum of every classical-corpus sequence in each encoding."""
    corpus = classical_corpus(n_terms)
    t = time.perf_counter()
    for enc in encodings:
        for s in corpus:
            spectrum(s.terms, encoding=enc, **kw)
    return time.perf_counter() - t


def per_sequence(records, budget: int, **kw) -> list[float]:
    """Seconds per sequence for the full spectrum of its first ``budget`` terms."""
    times = []
    for r in records:
        t = time.perf_counter()
        spectrum(r.terms[:budget], **kw)
        times.append(time.perf_counter() - t)
    return times


def same_input_ratios(totals: dict[str, float]) -> dict[str, float]:
    """Speed-up ratios of total seconds measured on one set of sequences (slower / faster)."""
    inc, res, sym = (totals[label] for label, _ in SOLVERS)
    return {"sympy re-solve / flint re-solve": sym / res, "sympy re-solve / flint incremental": sym / inc,
            "flint re-solve / flint incremental": res / inc}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated subset of {PARTS}")
    ap.add_argument("--n", type=int, default=40, help="sequences for the same-input solver comparison")
    ap.add_argument("--repeats", type=int, default=3, help="repeats of the same-input comparison (min kept)")
    ap.add_argument("--sweep-n", type=int, default=600, help="sequences for the 2-process sweep")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    if not parts <= set(PARTS):
        ap.error(f"--parts must be a subset of {','.join(PARTS)}, got {args.parts!r}")
    sys.set_int_max_str_digits(0)
    print(f"load average at start: {os.getloadavg()}")
    if "corpus" in parts:
        for label, kw in SOLVERS:
            print(f"classical corpus, both encodings, {label}: {corpus_time(**kw):.2f} s")
        t60 = corpus_time(60, ("loose",))
        print(f"classical corpus at 60 terms, loose, incremental + flint: {t60:.2f} s ({61 / t60:.1f} seq/s)")
    records, _ = read_stripped(sample_path(), min_terms=60)
    pool = sample_records(records, min_terms=60, limit=None, seed=0)
    if "oeis" in parts:
        chosen = pool[: args.n]
        print(f"OEIS sample: the same {len(chosen)} of {len(pool)} sequences with >= 60 terms for every solver")
        for budget in (30, 60):
            totals = {}
            for label, kw in SOLVERS:
                runs = [per_sequence(chosen, budget, **kw) for _ in range(args.repeats)]
                ts = min(runs, key=sum)
                totals[label] = sum(ts)
                print(f"  {budget} terms, {label}: {sum(ts):.2f} s total (best of {args.repeats}; all "
                      f"{', '.join(f'{sum(r):.2f}' for r in runs)}), {len(ts) / sum(ts):.1f} seq/s, "
                      f"mean {1000 * statistics.mean(ts):.1f} ms, median {1000 * statistics.median(ts):.1f} ms")
            for name, ratio in same_input_ratios(totals).items():
                print(f"  {budget} terms, same {len(chosen)} sequences: {name} = {ratio:.1f}x")
    if "sweep" in parts:
        for budget in (30, 60):
            config = MdlSweepConfig(budget=budget, min_terms=budget, audit=False)
            chosen = pool[: args.sweep_n]
            t = time.perf_counter()
            rows = list(iter_sweep(chosen, config, workers=args.workers))
            rate = len(rows) / (time.perf_counter() - t)
            print(f"sweep {budget} terms, {args.workers} processes, {len(rows)} sequences: {rate:.1f} seq/s -> "
                  f"20,000 sequences in {20000 / rate / 60:.1f} min")
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
