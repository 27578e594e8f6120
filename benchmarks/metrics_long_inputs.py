"""Cost of long inputs to the ROTE string metrics: one (forecast, target) pair of 1e3..1e5 symbols.

Why: the evaluate modules ``rote/dl_distance`` and ``rote/jw_distance`` refuse rows longer than
``max_length`` (default 100,000 symbols); this measures what a row of that length costs, and how
the cost grows, so that the default is chosen on numbers. The library functions have no limit.

For each length, two pairs over an 8-symbol alphabet: a near copy (1 % of the symbols
substituted, as after a good rollout) and two independent strings. Timed: ``dl_distances``,
``jw_distances``, ``exact_rollout`` (all its scores) and the ``rote/dl_distance`` evaluate module
as published (built into a temporary mirror; ``compute(..., max_length=None)``, so that the
evaluate overhead is included). CPU time (``time.process_time``), the best of ``--repeats``, one
thread. The growth exponent is the log-log slope between the two longest lengths, and the
last line extrapolates DL to 1e6 symbols with it.

Run:  OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/metrics_long_inputs.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

LENGTHS = (1_000, 3_000, 10_000, 30_000, 100_000)
ALPHABET = "ABCDEFGH"


def make_pair(length: int, kind: str, seed: int) -> tuple[str, str]:
    """``(forecast, target)`` of ``length`` symbols: ``near`` (1 % substituted) or ``independent``."""
    rng = random.Random(f"{seed}-{length}-{kind}")
    target = "".join(rng.choice(ALPHABET) for _ in range(length))
    if kind == "independent":
        return "".join(rng.choice(ALPHABET) for _ in range(length)), target
    chars = list(target)
    for i in rng.sample(range(length), length // 100):
        chars[i] = rng.choice(ALPHABET.replace(chars[i], ""))
    return "".join(chars), target


def best_cpu(fn: Callable[[], object], repeats: int) -> float:
    """The least CPU time of ``repeats`` calls of ``fn``."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def load_dl_module(root: Path):
    """The ``rote/dl_distance`` evaluate module as ``rote-hf build metrics`` writes it."""
    import evaluate

    from rote_hf.hub.metric_repos import build_metric_repo

    build_metric_repo(root, "dl_distance")
    return evaluate.load(str(root / "rote" / "dl_distance"))


def measure(repeats: int, seed: int, module) -> list[dict]:
    """One row per (length, kind): the CPU seconds of each function on that pair."""
    from rote_hf.metrics import dl_distances, exact_rollout, jw_distances

    rows = []
    for length in LENGTHS:
        for kind in ("near", "independent"):
            f, t = make_pair(length, kind, seed)
            rows.append({
                "length": length, "kind": kind,
                "dl": best_cpu(lambda: dl_distances([f], [t]), repeats),
                "jw": best_cpu(lambda: jw_distances([f], [t]), repeats),
                "rollout": best_cpu(lambda: exact_rollout([f], [t]), repeats),
                "module": best_cpu(lambda: module.compute(predictions=[f], references=[t], max_length=None), repeats),
            })
    return rows


def slope(rows: list[dict], key: str, kind: str) -> float:
    """log-log growth exponent of ``key`` between the two longest lengths (pairs of ``kind``)."""
    (a, ta), (b, tb) = [(r["length"], r[key]) for r in rows if r["kind"] == kind][-2:]
    return math.log(tb / ta) / math.log(b / a)


def report(rows: list[dict]) -> str:
    """The Markdown table and the growth lines."""
    lines = ["| symbols | pair | `dl_distances` | `jw_distances` | `exact_rollout` | `rote/dl_distance` module |",
             "|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        cells = " | ".join(f"{1e3 * r[k]:.3g} ms" for k in ("dl", "jw", "rollout", "module"))
        lines.append(f"| {r['length']:,} | {r['kind']} | {cells} |")
    lines.append("")
    for kind in ("near", "independent"):
        exps = ", ".join(f"{k} {slope(rows, k, kind):.2f}" for k in ("dl", "jw", "rollout", "module"))
        lines.append(f"growth exponent 3e4 -> 1e5 ({kind} pairs): {exps}")
    last = [r for r in rows if r["kind"] == "independent"][-1]
    extrapolated = last["dl"] * (10 ** slope(rows, "dl", "independent"))
    lines.append(f"DL extrapolated to 1e6 symbols (independent pair): {extrapolated:,.0f} CPU-s")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timings per cell; the least is kept (default: 3)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("HF_HOME", str(Path(tmp) / "hf"))  # evaluate's module cache: not the user's
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        started = time.monotonic()
        rows = measure(args.repeats, args.seed, load_dl_module(Path(tmp)))
    import rapidfuzz

    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"rapidfuzz {rapidfuzz.__version__}; best of {args.repeats}; "
          f"wall {time.monotonic() - started:.0f} s\n")
    print(report(rows))


if __name__ == "__main__":
    main()
