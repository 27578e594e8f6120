"""The 61-sequence classical corpus (34 terms each), generated from definitions.

Four ground-truth classes nest POLY ⊂ CFIN ⊂ PREC (each listed in its smallest class), plus
NONH. Terms are computed with k = 0..33 substituted for the generator's index. Primes,
partitions, Bell numbers, d, φ, σ and π come from sympy. The NONH label of primes, partitions,
Bell, Fubini, d, φ, σ and π rests on known non-holonomicity results; for Recamán, Kolakoski,
Collatz, the two Hofstadter sequences and the primorials it means "no P-recursive recurrence
known or believed", not a theorem.

The paper's code labels 3^n - 2^n "A000225b"; its OEIS number is A001047, used here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import comb, factorial, prod

N_TERMS = 34
CLASSES: tuple[str, ...] = ("POLY", "CFIN", "PREC", "NONH")


@dataclass(frozen=True)
class CorpusSequence:
    """One labelled corpus entry: OEIS A-number, name, class and its first terms."""

    anum: str
    name: str
    cls: str
    terms: tuple[int, ...]


def _linear(init: tuple[int, ...], coef: tuple[int, ...]) -> Callable[[int], list[int]]:
    """a(k) = coef[0] a(k-1) + coef[1] a(k-2) + ... from ``init``."""

    def gen(n: int) -> list[int]:
        s = list(init)
        while len(s) < n:
            s.append(sum(c * s[-1 - i] for i, c in enumerate(coef)))
        return s[:n]

    return gen


def _two_term(init: tuple[int, int], step: Callable[[int, int, int], int]) -> Callable[[int], list[int]]:
    """a(k) = step(k, a(k-1), a(k-2)) for k >= 2 from two initial values."""

    def gen(n: int) -> list[int]:
        s = list(init)
        for k in range(2, n):
            s.append(step(k, s[k - 1], s[k - 2]))
        return s[:n]

    return gen


def _closed(f: Callable[[int], int]) -> Callable[[int], list[int]]:
    return lambda n: [f(k) for k in range(n)]


def _kolakoski(n: int) -> list[int]:
    s = [1, 2, 2]
    run = 2  # index of the run length being expanded
    while len(s) < n:
        s += [3 - s[-1]] * s[run]
        run += 1
    return s[:n]


def _recaman(n: int) -> list[int]:
    s, seen = [0], {0}
    for k in range(1, n):
        back = s[-1] - k
        s.append(back if back > 0 and back not in seen else s[-1] + k)
        seen.add(s[-1])
    return s


def _hofstadter_q(n: int) -> list[int]:
    s = [1, 1]
    while len(s) < n:
        k = len(s)
        s.append(s[k - s[k - 1]] + s[k - s[k - 2]])
    return s[:n]


def _hofstadter_conway(n: int) -> list[int]:
    s = [1, 1]
    while len(s) < n:
        k = len(s)  # 0-based; a(k+1) = a(a(k)) + a(k+1-a(k)) in 1-based terms
        s.append(s[s[k - 1] - 1] + s[k - s[k - 1]])
    return s[:n]


def _collatz_steps(m: int) -> int:
    steps = 0
    while m != 1:
        m = 3 * m + 1 if m % 2 else m // 2
        steps += 1
    return steps


def _distinct_partitions(n: int) -> list[int]:
    q = [1] + [0] * (n - 1)
    for part in range(1, n):
        for total in range(n - 1, part - 1, -1):
            q[total] += q[total - part]
    return q


def _fubini(n: int) -> list[int]:
    a = [1]
    for k in range(1, n):
        a.append(sum(comb(k, j) * a[k - j] for j in range(1, k + 1)))
    return a[:n]


def _primorials(n: int) -> list[int]:
    from sympy import prime

    out = [1]
    for k in range(1, n):
        out.append(out[-1] * int(prime(k)))
    return out[:n]


def _sympy_closed(name: str, shift: int = 0) -> Callable[[int], list[int]]:
    def gen(n: int) -> list[int]:
        import sympy

        f = {
            "prime": sympy.prime,
            "npartitions": sympy.partition,
            "bell": sympy.bell,
            "divisor_count": sympy.divisor_count,
            "totient": sympy.totient,
            "divisor_sigma": sympy.divisor_sigma,
            "primepi": sympy.primepi,
        }[name]
        return [int(f(k + shift)) for k in range(n)]

    return gen


# (A-number, name, class, generator(n) -> first n terms); the order is the paper's.
_TABLE: tuple[tuple[str, str, str, Callable[[int], list[int]]], ...] = (
    ("A000027", "naturals", "POLY", _closed(lambda k: k + 1)),
    ("A005843", "even numbers", "POLY", _closed(lambda k: 2 * k)),
    ("A005408", "odd numbers", "POLY", _closed(lambda k: 2 * k + 1)),
    ("A000217", "triangular", "POLY", _closed(lambda k: k * (k + 1) // 2)),
    ("A000290", "squares", "POLY", _closed(lambda k: k * k)),
    ("A002378", "oblong", "POLY", _closed(lambda k: k * (k + 1))),
    ("A000578", "cubes", "POLY", _closed(lambda k: k**3)),
    ("A000292", "tetrahedral", "POLY", _closed(lambda k: k * (k + 1) * (k + 2) // 6)),
    ("A000326", "pentagonal", "POLY", _closed(lambda k: k * (3 * k - 1) // 2)),
    ("A000384", "hexagonal", "POLY", _closed(lambda k: k * (2 * k - 1))),
    ("A002061", "central polygonal", "POLY", _closed(lambda k: k * k - k + 1)),
    ("A000583", "fourth powers", "POLY", _closed(lambda k: k**4)),
    ("A005563", "n(n+2)", "POLY", _closed(lambda k: k * (k + 2))),
    ("A001105", "2n^2", "POLY", _closed(lambda k: 2 * k * k)),
    ("A000330", "square pyramidal", "POLY", _closed(lambda k: k * (k + 1) * (2 * k + 1) // 6)),
    ("A000045", "Fibonacci", "CFIN", _linear((0, 1), (1, 1))),
    ("A000032", "Lucas", "CFIN", _linear((2, 1), (1, 1))),
    ("A000129", "Pell", "CFIN", _linear((0, 1), (2, 1))),
    ("A001333", "NSW / half Pell-Lucas", "CFIN", _linear((1, 1), (2, 1))),
    ("A001045", "Jacobsthal", "CFIN", _linear((0, 1), (1, 2))),
    ("A000073", "Tribonacci", "CFIN", _linear((0, 0, 1), (1, 1, 1))),
    ("A000931", "Padovan", "CFIN", _linear((1, 0, 0), (0, 1, 1))),
    ("A001608", "Perrin", "CFIN", _linear((3, 0, 2), (0, 1, 1))),
    ("A000079", "powers of 2", "CFIN", _closed(lambda k: 2**k)),
    ("A000244", "powers of 3", "CFIN", _closed(lambda k: 3**k)),
    ("A000302", "powers of 4", "CFIN", _closed(lambda k: 4**k)),
    ("A000225", "Mersenne", "CFIN", _closed(lambda k: 2**k - 1)),
    ("A002605", "a(n)=2a(n-1)+2a(n-2)", "CFIN", _linear((0, 1), (2, 2))),
    ("A006190", "a(n)=3a(n-1)+a(n-2)", "CFIN", _linear((0, 1), (3, 1))),
    ("A001519", "odd-index Fibonacci", "CFIN", _linear((1, 1), (3, -1))),
    ("A001047", "3^n-2^n", "CFIN", _closed(lambda k: 3**k - 2**k)),
    ("A000142", "factorials", "PREC", _closed(factorial)),
    ("A000108", "Catalan", "PREC", _closed(lambda k: comb(2 * k, k) // (k + 1))),
    ("A000984", "central binomial", "PREC", _closed(lambda k: comb(2 * k, k))),
    ("A000166", "derangements", "PREC", _two_term((1, 0), lambda k, a1, a2: (k - 1) * (a1 + a2))),
    ("A001006", "Motzkin", "PREC", _two_term((1, 1), lambda k, a1, a2: ((2 * k + 1) * a1 + (3 * k - 3) * a2) // (k + 2))),
    ("A005043", "Riordan", "PREC", _two_term((1, 0), lambda k, a1, a2: (k - 1) * (2 * a1 + 3 * a2) // (k + 1))),
    ("A000085", "involutions", "PREC", _two_term((1, 1), lambda k, a1, a2: a1 + (k - 1) * a2)),
    ("A001147", "(2n-1)!!", "PREC", _closed(lambda k: factorial(2 * k) // (2**k * factorial(k)))),
    ("A000255", "a(n)=n a(n-1)+(n-1)a(n-2)", "PREC", _two_term((1, 1), lambda k, a1, a2: k * a1 + (k - 1) * a2)),
    ("A002720", "partial permutations", "PREC", _two_term((1, 2), lambda k, a1, a2: 2 * k * a1 - (k - 1) ** 2 * a2)),
    ("A000165", "2^n n!", "PREC", _closed(lambda k: 2**k * factorial(k))),
    ("A001813", "(2n)!/n!", "PREC", _closed(lambda k: factorial(2 * k) // factorial(k))),
    ("A001764", "C(3n,n)/(2n+1)", "PREC", _closed(lambda k: comb(3 * k, k) // (2 * k + 1))),
    ("A000407", "(2n+1)!/n!", "PREC", _closed(lambda k: factorial(2 * k + 1) // factorial(k))),
    ("A006882", "n!!", "PREC", _closed(lambda k: prod(range(k, 0, -2)))),
    ("A000040", "primes", "NONH", _sympy_closed("prime", 1)),
    ("A000041", "partitions", "NONH", _sympy_closed("npartitions")),
    ("A000009", "distinct-part partitions", "NONH", _distinct_partitions),
    ("A000110", "Bell", "NONH", _sympy_closed("bell")),
    ("A000670", "Fubini (ordered Bell)", "NONH", _fubini),
    ("A000005", "d(n)", "NONH", _sympy_closed("divisor_count", 1)),
    ("A000010", "Euler phi", "NONH", _sympy_closed("totient", 1)),
    ("A000203", "sigma(n)", "NONH", _sympy_closed("divisor_sigma", 1)),
    ("A002110", "primorials", "NONH", _primorials),
    ("A000720", "pi(n)", "NONH", _sympy_closed("primepi", 1)),
    ("A005132", "Recaman", "NONH", _recaman),
    ("A000002", "Kolakoski", "NONH", _kolakoski),
    ("A006577", "Collatz steps", "NONH", lambda n: [_collatz_steps(k + 1) for k in range(n)]),
    ("A005185", "Hofstadter Q", "NONH", _hofstadter_q),
    ("A004001", "Hofstadter-Conway", "NONH", _hofstadter_conway),
)


def classical_corpus(n_terms: int = N_TERMS) -> list[CorpusSequence]:
    """The 61 labelled sequences with their first ``n_terms`` terms, in the paper's order."""
    if isinstance(n_terms, bool) or not isinstance(n_terms, int) or n_terms < 3:
        raise ValueError(f"n_terms must be an int >= 3, got {n_terms!r}")
    return [CorpusSequence(a, name, cls, tuple(int(v) for v in gen(n_terms))) for a, name, cls, gen in _TABLE]
