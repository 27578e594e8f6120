"""Speed of rote_hf.metrics against the ROTE reference (pure-Python DL and JW).

Workload (issue 3): 100,000 (forecast, target) pairs of length 100 over an 8-symbol alphabet,
half of them near copies of their target (as after a good rollout), half independent.
Our batch functions run on all 100,000 pairs; the reference runs on the first
``--ref-pairs`` pairs and its time is extrapolated linearly to 100,000 (it is a per-pair
loop with no warm-up or batching effects). CPU time (``time.process_time``), one thread.

Run:  OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/metrics_speed.py [--ref-pairs 1000]
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from rote_benchmark.metrics import normalized_damerau_levenshtein_distance as ref_dl
from rote_benchmark.metrics import normalized_jaro_winkler_distance as ref_jw

from rote_hf.metrics import dl_distance, dl_distances, exact_rollout, jw_distance, jw_distances


def make_pairs(n: int, length: int, seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    alphabet = "ABCDEFGH"
    targets, forecasts = [], []
    for i in range(n):
        t = "".join(rng.choice(alphabet) for _ in range(length))
        if i % 2:
            f = "".join(rng.choice(alphabet) for _ in range(length))
        else:
            chars = list(t)
            for _ in range(rng.randint(0, 5)):
                chars[rng.randrange(length)] = rng.choice(alphabet)
            f = "".join(chars)
        targets.append(t)
        forecasts.append(f)
    return forecasts, targets


def cpu(fn) -> tuple[float, object]:
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--length", type=int, default=100)
    parser.add_argument("--ref-pairs", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    forecasts, targets = make_pairs(args.pairs, args.length, args.seed)
    k = args.ref_pairs
    scale = args.pairs / k

    t_ref_dl, ref_dl_values = cpu(lambda: [ref_dl(t, f) for t, f in zip(targets[:k], forecasts[:k])])
    t_ref_jw, ref_jw_values = cpu(lambda: [ref_jw(t, f) for t, f in zip(targets[:k], forecasts[:k])])
    t_dl, dl = cpu(lambda: dl_distances(forecasts, targets))
    t_jw, jw = cpu(lambda: jw_distances(forecasts, targets))
    t_dl_scalar, _ = cpu(lambda: [dl_distance(t, f) for t, f in zip(targets, forecasts)])
    t_jw_scalar, _ = cpu(lambda: [jw_distance(t, f) for t, f in zip(targets, forecasts)])
    t_roll, _ = cpu(lambda: exact_rollout(forecasts, targets))

    # the fast path computes the reference's numbers exactly
    assert dl[:k].tolist() == ref_dl_values and jw[:k].tolist() == ref_jw_values

    ref_dl_total, ref_jw_total = t_ref_dl * scale, t_ref_jw * scale
    print(f"# {args.pairs:,} pairs of length {args.length}; reference timed on {k:,} pairs, x{scale:g}")
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}\n")
    print("| what | CPU s (100k pairs) | per pair | vs reference |")
    print("|---|---|---|---|")
    rows = [
        ("reference DL (pure Python), extrapolated", ref_dl_total, None),
        ("reference JW (pure Python), extrapolated", ref_jw_total, None),
        ("`dl_distances` (batch)", t_dl, ref_dl_total),
        ("`jw_distances` (batch)", t_jw, ref_jw_total),
        ("`dl_distance` in a Python loop", t_dl_scalar, ref_dl_total),
        ("`jw_distance` in a Python loop", t_jw_scalar, ref_jw_total),
        ("`exact_rollout` (all scores + curve)", t_roll, ref_dl_total + ref_jw_total),
    ]
    for label, seconds, against in rows:
        ratio = f"{against / seconds:,.0f}x faster" if against else "1x"
        print(f"| {label} | {seconds:.3f} | {1e6 * seconds / args.pairs:.2f} us | {ratio} |")


if __name__ == "__main__":
    main()
