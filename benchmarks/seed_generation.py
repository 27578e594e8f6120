"""Seed generation and identifiability speed: rote-hf vs the reference ``rote-bench``.

    .venv/bin/python benchmarks/seed_generation.py

Prints a Markdown table (CPU seconds, best of ``--repeats``) and checks that both produce the
same strings. The reference re-parses the whole string after every appended symbol
(quadratic); ours updates κ incrementally.
"""

from __future__ import annotations

import argparse
import time

from rote_benchmark.generation import lzw_string_generator

from rote_hf.symbolic import generate_seed, predictive_order


def cpu_time(fn, repeats: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.process_time()
        result = fn()
        best = min(best, time.process_time() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    print("| n | c | seed length | rote-bench (s) | rote-hf (s) | speed-up | identical |")
    print("|---|---|---|---|---|---|---|")
    for n, c in [(2, 1000), (4, 1000), (8, 1000), (4, 3000)]:
        t_ref, ref = cpu_time(lambda: lzw_string_generator(n, c, random_state=3407), 1)
        t_ours, ours = cpu_time(lambda: generate_seed(n, c, 3407), args.repeats)
        print(f"| {n} | {c} | {len(ours[0])} | {t_ref:.3f} | {t_ours:.4f} | {t_ref / t_ours:.0f}× | {ours == ref} |")
    for n, c in [(2, 10_000), (4, 10_000), (8, 10_000)]:
        t_ours, ours = cpu_time(lambda: generate_seed(n, c, 3407), args.repeats)
        print(f"| {n} | {c} | {len(ours[0])} | (not run: quadratic) | {t_ours:.3f} | | |")

    print("\n| seed | length | r* | r* time (s) |")
    print("|---|---|---|---|")
    for n, c in [(2, 1300), (4, 3000), (8, 5000)]:
        seed, _ = generate_seed(n, c, 1)
        seed = seed[:10_000]
        t, r = cpu_time(lambda: predictive_order(seed + "A"), args.repeats)  # fresh string: no cache hit
        print(f"| n={n}, c={c} (first 10,000 symbols) | {len(seed) + 1} | {r} | {t:.3f} |")
    worst = "A" * 9_999 + "B"
    t, r = cpu_time(lambda: predictive_order(worst), 1)
    print(f"| A^9999 B (worst case, r* = m - 1) | 10000 | {r} | {t:.3f} |")


if __name__ == "__main__":
    main()
