"""Control sequences of the paper: growth (scaled Fibonacci), phase (periodic blocks),
planted deceptive prefixes D_j and unplanted random periodic deception.

Each generator is pure and seeded; where the paper's released experiments drew blocks from
``random.Random`` the same seeds and the same call order are used so that the cells match
(Control B: ``Random(12345)`` for every cell; unplanted: ``Random(seed*7919 + 13)``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

GROWTH_SCALES: tuple[int, ...] = (1, 10, 10**2, 10**3, 10**5, 10**7, 10**9, 10**12)
PHASE_ALPHABETS: tuple[int, ...] = (2, 3, 10, 1000)
PHASE_PERIODS: tuple[int, ...] = (2, 3, 4, 5, 6, 7)
PHASE_SEED = 12345
UNPLANTED_PERIODS: tuple[int, ...] = tuple(range(2, 13))
UNPLANTED_TRIALS = 40


@dataclass(frozen=True)
class Control:
    """One control case with the learner settings its experiment uses."""

    family: str
    name: str
    terms: tuple[int, ...]
    max_order: int
    max_degree: int
    params: tuple[tuple[str, int], ...]


def scaled_fibonacci(k: int, n: int = 34) -> list[int]:
    """0, k, k, 2k, 3k, ...: Fibonacci with the initial conditions scaled by ``k``."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be an int >= 1, got {k!r}")
    s = [0, k]
    while len(s) < n:
        s.append(s[-1] + s[-2])
    return s[:n]


def periodic_block(period: int, alphabet: int, rng: random.Random) -> list[int]:
    """A block of ``period`` symbols from ``rng.randrange(alphabet)``; a constant block has its
    first symbol bumped (mod alphabet) so the block is never constant."""
    if period < 1 or alphabet < 2:
        raise ValueError(f"period must be >= 1 and alphabet >= 2, got {period}, {alphabet}")
    block = [rng.randrange(alphabet) for _ in range(period)]
    if len(set(block)) == 1:
        block[0] = (block[0] + 1) % alphabet
    return block


def repeat(block: list[int], n: int) -> list[int]:
    """The first ``n`` terms of ``block`` repeated."""
    return [block[i % len(block)] for i in range(n)]


def true_period(terms: list[int] | tuple[int, ...]) -> int:
    """The smallest p with terms[i] == terms[i+p] for all i (p* of a periodic sequence)."""
    n = len(terms)
    return next(p for p in range(1, n + 1) if all(terms[i] == terms[i + p] for i in range(n - p)))


def deceptive(j: int, n: int) -> list[int]:
    """D_j = (0 1)^j 0 repeated: period 2j+1, but its first 2j terms look period-2."""
    if j < 1:
        raise ValueError(f"j must be >= 1, got {j}")
    return repeat([0, 1] * j + [0], n)


def growth_controls() -> list[Control]:
    """Control A: scaled Fibonacci, 34 terms, max_order 8."""
    return [
        Control("growth", f"fib_k={k}", tuple(scaled_fibonacci(k)), 8, 4, (("k", k),)) for k in GROWTH_SCALES
    ]


def phase_controls() -> list[Control]:
    """Control B: periodic blocks over alphabets {2,3,10,1000}, p = 2..7, N = 40, max_order 8."""
    out = []
    for alphabet in PHASE_ALPHABETS:
        for p in PHASE_PERIODS:
            block = periodic_block(p, alphabet, random.Random(PHASE_SEED))
            out.append(
                Control("phase", f"A={alphabet},p={p}", tuple(repeat(block, 40)), 8, 4, (("alphabet", alphabet), ("period", p)))
            )
    return out


def deception_controls() -> list[Control]:
    """Planted D_j, j = 1..7 (p = 2j+1), N = max(3p+12, 30), max_order p+3, max_degree 1."""
    out = []
    for j in range(1, 8):
        p = 2 * j + 1
        out.append(Control("deceptive", f"D_{j}", tuple(deceptive(j, max(3 * p + 12, 30))), p + 3, 1, (("j", j), ("period", p))))
    return out


def unplanted_controls(periods: tuple[int, ...] = UNPLANTED_PERIODS, trials: int = UNPLANTED_TRIALS) -> list[Control]:
    """Random binary periodic blocks: 40 seeds per period 2..12, N = 3p+12, max_order p+3, d <= 1."""
    out = []
    for p in periods:
        for seed in range(trials):
            block = periodic_block(p, 2, random.Random(seed * 7919 + 13))
            out.append(
                Control("unplanted", f"p={p},seed={seed}", tuple(repeat(block, 3 * p + 12)), p + 3, 1, (("period", p), ("seed", seed)))
            )
    return out
