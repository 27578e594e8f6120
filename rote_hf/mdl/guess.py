"""The hypothesis class (integer P-recursive operators) and the exact MDL guesser.

A hypothesis is an operator  sum_{i=0..r} p_i(n) s(n+i) = 0  with integer polynomials
p_i(n) = sum_{j=0..d} c_ij n^j, plus the r initial terms that start it. n is the 0-based index
into the given list (an OEIS offset is ignored). Its cost is

    L(H) = l(r) + l(d) + sum_ij l±(c_ij) + sum_k l±(s_k)  [+ sum l±(singular terms), "loose"]

Candidates for each (r, d) are the canonical RREF nullspace basis vectors of the window matrix
(see :mod:`rote_hf.mdl.nullspace`). Two encodings were released with the paper:

- ``"loose"`` (default; the headline numbers): an operator whose leading polynomial p_r
  vanishes at a window n is allowed, and each such s(n+r) is charged as a singular term;
- ``"strict"`` (the paper's §3.2 text): any such operator is rejected.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from rote_hf.mdl.codes import check_terms, int_len, literal_cost, nat_len
from rote_hf.mdl.nullspace import get_backend

ENCODINGS: tuple[str, ...] = ("loose", "strict")
BOUNDS: tuple[str, ...] = ("none", "sound", "authors")
SLACK = 2  # equations beyond the unknowns before a pair is tried (the paper's guard)


@dataclass(frozen=True)
class Hypothesis:
    """An integer P-recursive operator with its initial (and, loose, singular) terms.

    ``coeffs[i][j]`` is c_ij, the coefficient of n^j in p_i; shape (order+1, degree+1).
    ``singular`` holds the terms s(n+r) at windows n where p_r(n) = 0 (loose encoding only).
    """

    order: int
    degree: int
    coeffs: tuple[tuple[int, ...], ...]
    initial: tuple[int, ...]
    singular: tuple[int, ...] = ()

    @property
    def cost(self) -> int:
        """L(H) in bits."""
        bits = nat_len(self.order) + nat_len(self.degree)
        bits += sum(int_len(c) for row in self.coeffs for c in row)
        bits += sum(int_len(x) for x in self.initial)
        bits += sum(int_len(x) for x in self.singular)
        return bits

    @property
    def signature(self) -> tuple:
        """(r, d, coefficients): the state identity; initial and singular terms are not part of it."""
        return (self.order, self.degree, self.coeffs)

    @property
    def n_id(self) -> int:
        """Identifiability threshold (r+1)(d+1) + s + r with the slack s = 2."""
        return identifiability(self.order, self.degree)

    def poly(self, i: int, n: int) -> int:
        """p_i(n)."""
        acc = 0
        for c in reversed(self.coeffs[i]):
            acc = acc * n + c
        return acc

    def extend(self, terms: Sequence[int], k: int) -> list[int] | None:
        """The next ``k`` terms implied by the operator, or None where it does not determine one.

        A term is undetermined when p_r vanishes at its window (a singular point) or when the
        division is not exact.
        """
        seq = check_terms(terms, min_terms=self.order)
        r = self.order
        for _ in range(k):
            n = len(seq) - r
            lead = self.poly(r, n)
            rest = sum(self.poly(i, n) * seq[n + i] for i in range(r))
            if lead == 0 or rest % lead:
                return None
            seq.append(-rest // lead)
        return seq[len(seq) - k :]

    def recurrence(self) -> str:
        """A readable form solved for the highest shift, e.g. ``a(n + 2) = a(n) + a(n + 1)``.

        The operator is shown with its leading polynomial's top coefficient positive (the
        stored primitive vector has its *first* entry positive instead).
        """
        import sympy

        n = sympy.Symbol("n")
        a = sympy.Function("a")
        top = next(c for c in reversed(self.coeffs[-1]) if c)
        sign = 1 if top > 0 else -1
        polys = [sign * sum(c * n**j for j, c in enumerate(row)) for row in self.coeffs]
        lhs = sympy.factor(polys[-1]) * a(n + self.order)
        rhs = sum(sympy.factor(-p) * a(n + i) for i, p in enumerate(polys[:-1]))
        return f"{sympy.sstr(lhs)} = {sympy.sstr(rhs)}"

    def to_dict(self) -> dict:
        """Plain JSON-friendly form (coefficients as nested lists)."""
        return {
            "order": self.order,
            "degree": self.degree,
            "coeffs": [list(row) for row in self.coeffs],
            "initial": list(self.initial),
            "singular": list(self.singular),
            "cost": self.cost,
        }


def identifiability(order: int, degree: int, slack: int = SLACK) -> int:
    """n_id(r, d) = (r+1)(d+1) + s + r: the first prefix length at which (r, d) may be tried."""
    return (order + 1) * (degree + 1) + slack + order


@lru_cache(maxsize=64)
def pair_order(max_order: int, max_degree: int) -> tuple[tuple[int, int], ...]:
    """(r, d) pairs, r = 1..max_order and d = 0..max_degree, by key ((r+1)(d+1), r, d)."""
    pairs = [(r, d) for r in range(1, max_order + 1) for d in range(max_degree + 1)]
    return tuple(sorted(pairs, key=lambda rd: ((rd[0] + 1) * (rd[1] + 1), rd[0], rd[1])))


def window_rows(terms: Sequence[int], order: int, degree: int) -> list[list[int]]:
    """The window matrix: row n (n = 0..m-r-1) holds n^j s(n+i) at column i(d+1)+j."""
    rows = []
    for n in range(len(terms) - order):
        powers = [n**j for j in range(degree + 1)]
        rows.append([p * terms[n + i] for i in range(order + 1) for p in powers])
    return rows


def _lower_bound(bound: str, r: int, d: int) -> int:
    """Least possible L(H) of a pair under a bound rule (0 means: never skip)."""
    if bound == "sound":  # every coefficient and initial term costs at least 2 bits
        return nat_len(r) + nat_len(d) + 2 * (r + 1) * (d + 1) + 2 * r
    if bound == "authors":  # the released code's rule: 3 bits per coefficient (not sound)
        return 3 * (r + 1) * (d + 1)
    return 0


def _validate(max_order: int, max_degree: int, slack: int, encoding: str, bound: str) -> None:
    for name, value, low in (("max_order", max_order, 1), ("max_degree", max_degree, 0), ("slack", slack, 0)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        if value < low:
            raise ValueError(f"{name} must be >= {low}, got {value}")
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {list(ENCODINGS)}, got {encoding!r}")
    if bound not in BOUNDS:
        raise ValueError(f"bound must be one of {list(BOUNDS)}, got {bound!r}")


def guess(
    terms: Sequence[int],
    *,
    max_order: int = 6,
    max_degree: int = 4,
    slack: int = SLACK,
    encoding: str = "loose",
    backend: str = "flint",
    bound: str = "none",
    best_bits: int | None = None,
    dead: set[tuple[int, int]] | None = None,
    _checked: bool = False,
) -> Hypothesis | None:
    """The cheapest operator fitting every window of ``terms`` whose cost is below ``best_bits``.

    Pairs are visited in :func:`pair_order`; a pair is tried only if m - r >= (r+1)(d+1) + slack.
    A candidate replaces the incumbent only if strictly cheaper, so ties go to the earlier pair
    and, within a pair, to the earlier free column. ``dead`` is the dead-pair memo: pairs whose
    nullspace was trivial at a shorter prefix of the same sequence (the nullspace can only
    shrink as windows are added, so they stay trivial); new trivial pairs are added to it.
    """
    if not _checked:
        terms = check_terms(terms, min_terms=0)
        _validate(max_order, max_degree, slack, encoding, bound)
    solve = get_backend(backend)
    m = len(terms)
    best: Hypothesis | None = None
    best_cost = best_bits
    strict = encoding == "strict"
    for r, d in pair_order(max_order, max_degree):
        ncols = (r + 1) * (d + 1)
        if m - r < ncols + slack:
            continue
        if dead is not None and (r, d) in dead:
            continue
        if best_cost is not None and bound != "none" and _lower_bound(bound, r, d) >= best_cost + (bound == "authors"):
            continue  # the authors skip when 3*ncols > best, i.e. >= best + 1
        basis = solve(window_rows(terms, r, d), ncols)
        if not basis:
            if dead is not None:
                dead.add((r, d))
            continue
        windows = range(m - r)
        for vec in basis:
            lead = vec[r * (d + 1) :]
            if not any(lead):
                continue
            # the windows n where p_r(n) = 0 (integer roots of the leading polynomial in range)
            zeros = [n for n in windows if _eval(lead, n) == 0]
            if zeros and strict:
                continue
            coeffs = tuple(tuple(vec[i * (d + 1) : (i + 1) * (d + 1)]) for i in range(r + 1))
            hyp = Hypothesis(r, d, coeffs, tuple(terms[:r]), tuple(terms[n + r] for n in zeros))
            cost = hyp.cost
            if best_cost is None or cost < best_cost:
                best, best_cost = hyp, cost
    return best


def _eval(poly: Sequence[int], n: int) -> int:
    acc = 0
    for c in reversed(poly):
        acc = acc * n + c
    return acc


def fit(
    terms: Iterable[int],
    max_order: int = 6,
    max_degree: int = 4,
    encoding: str = "loose",
    *,
    slack: int = SLACK,
    backend: str = "flint",
    bound: str = "none",
) -> Hypothesis | None:
    """The MDL-selected operator for the whole of ``terms``, or None when verbatim is cheaper.

    The incumbent is the literal cost of ``terms``; a hypothesis is returned only if it is
    strictly cheaper.
    """
    seq = check_terms(terms, min_terms=1)
    _validate(max_order, max_degree, slack, encoding, bound)
    return guess(
        seq,
        max_order=max_order,
        max_degree=max_degree,
        slack=slack,
        encoding=encoding,
        backend=backend,
        bound=bound,
        best_bits=literal_cost(seq),
        _checked=True,
    )
