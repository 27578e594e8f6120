"""Seed generators of controlled LZW complexity (paper Algorithm 3).

Two random schemes exist and both are kept, because they give different strings:

- :func:`generate_seed` — the current reference (``rote-bench`` ``lzw_string_generator``):
  a private ``numpy.random.RandomState(random_state)`` shuffles the first n letters, a private
  ``random.Random(random_state)`` draws the appended letters.
- :func:`historical_seeds` — the scheme that produced the paper's published seeds: the shuffle
  uses ``RandomState(base + i)`` but every appended letter comes from ONE shared
  ``random.Random(base)`` stream consumed in loop order over the whole run.

Both append one letter at a time until κ ≥ c, with κ kept incrementally
(:class:`~rote_hf.symbolic.lzw.IncrementalComplexity`), so c = 10,000 takes well under a second
instead of the reference's quadratic re-parse. Global RNG states are never touched.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import product

import numpy as np

from rote_hf.symbolic.alphabet import ALPHABET, check_int
from rote_hf.symbolic.lzw import IncrementalComplexity

PAPER_SYMBOLS: tuple[int, ...] = (2, 4, 6, 8)
PAPER_COMPLEXITIES: tuple[int, ...] = (10, 30, 50, 70, 90)
PAPER_RANDOM_STATE = 3407


def _check_arguments(n_symbols: object, complexity: object) -> tuple[int, int]:
    n = check_int(n_symbols, "n_symbols", low=1, high=len(ALPHABET))
    c = check_int(complexity, "complexity")
    if c < n:
        raise ValueError(f"complexity must be at least n_symbols ({n}), got {c}")
    if n == 1 and c != 1:
        raise ValueError(f"complexity must be 1 when n_symbols is 1 (one letter cannot grow), got {c}")
    return n, c


def _grow(prefix: str, n: int, c: int, draw: random.Random) -> tuple[str, int]:
    """Append ``ALPHABET[draw.randint(0, n-1)]`` to ``prefix`` until κ ≥ c; returns (seed, κ)."""
    state = IncrementalComplexity()
    for symbol in prefix:
        state.append(symbol)
    measured = n  # the shuffled prefix has n distinct letters, so κ = n (as the reference assumes)
    letters = ALPHABET[:n]
    randint = draw.randint
    while measured < c:
        measured = state.append(letters[randint(0, n - 1)])
    return state.string(), measured


def _shuffled_letters(n: int, random_state: int) -> str:
    letters = list(ALPHABET[:n])
    np.random.RandomState(random_state).shuffle(letters)
    return "".join(letters)


def generate_seed(n_symbols: int, complexity: int, random_state: int = 42) -> tuple[str, int]:
    """One seed over the first ``n_symbols`` letters with κ ≥ ``complexity`` (reference scheme).

    Returns ``(seed, measured κ)``; identical to ``rote_benchmark.lzw_string_generator`` for the
    same arguments. ``measured`` may exceed ``complexity`` (callers keep only exact matches).
    ``random_state`` is an int in 0..2**32-1.
    """
    n, c = _check_arguments(n_symbols, complexity)
    rs = check_int(random_state, "random_state", low=0, high=2**32 - 1)
    if n == 1:
        return "A", 1
    return _grow(_shuffled_letters(n, rs), n, c, random.Random(rs))


@dataclass(frozen=True)
class SeedRow:
    """One generated seed and where it came from."""

    n_symbols: int
    target_complexity: int
    iteration: int
    random_state: int
    seed: str
    complexity: int

    @property
    def exact(self) -> bool:
        return self.complexity == self.target_complexity


def seed_table(
    symbols: Iterable[int] = PAPER_SYMBOLS,
    complexities: Iterable[int] = PAPER_COMPLEXITIES,
    iterations: int = 1,
    random_state: int = 42,
) -> list[SeedRow]:
    """Seeds for every (iteration, n, c) with ``random_state + i`` (i counts from 1, skipped
    pairs n > c included), like the reference ``lzw_string_seeds``; pairs with n > c are skipped."""
    iterations = check_int(iterations, "iterations", low=1)
    symbols = [check_int(n, "symbols", low=1, high=len(ALPHABET)) for n in symbols]
    complexities = [check_int(c, "complexities", low=1) for c in complexities]
    if not symbols or not complexities:
        raise ValueError("symbols and complexities must each name at least one value")
    rows = []
    for i, (it, n, c) in enumerate(product(range(iterations), symbols, complexities), start=1):
        if n > c:
            continue
        seed, measured = generate_seed(n, c, random_state + i)
        rows.append(SeedRow(n, c, it, random_state + i, seed, measured))
    return rows


def historical_seeds(
    symbols: Iterable[int] = PAPER_SYMBOLS,
    complexities: Iterable[int] = PAPER_COMPLEXITIES,
    iterations: int = 2,
    random_state: int = PAPER_RANDOM_STATE,
) -> Iterator[SeedRow]:
    """All seeds of one historical run, in generation order (paper's published seeds).

    One ``random.Random(random_state)`` feeds every appended letter of the run, consumed in
    the order n -> iteration -> c; the shuffle of each string uses
    ``RandomState(random_state + i)`` with i the 1-based index within that n's
    ``(iteration, c)`` loop. Rows whose κ overshoots the target are yielded too
    (``row.exact`` is False); the paper kept only exact ones.
    """
    iterations = check_int(iterations, "iterations", low=1)
    stream = random.Random(check_int(random_state, "random_state", low=0, high=2**32 - 1))
    for n in symbols:
        n = check_int(n, "symbols", low=2, high=len(ALPHABET))
        for i, (it, c) in enumerate(product(range(iterations), complexities), start=1):
            n_, c = _check_arguments(n, c)
            seed, measured = _grow(_shuffled_letters(n, random_state + i), n, c, stream)
            yield SeedRow(n, c, it, random_state + i, seed, measured)
