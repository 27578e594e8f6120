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
from math import gcd

from rote_hf.mdl.codes import check_terms, int_len, literal_cost, nat_len
from rote_hf.mdl.nullspace import get_backend, lll_reduce

ENCODINGS: tuple[str, ...] = ("loose", "strict")
BOUNDS: tuple[str, ...] = ("none", "sound", "authors")
CANDIDATES: tuple[str, ...] = ("rref", "lll")
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


class WindowRows:
    """Window rows of one sequence, built once per (r, d) and sliced for each prefix length."""

    def __init__(self, terms: Sequence[int]):
        self.terms = list(terms)
        self._rows: dict[tuple[int, int], list[list[int]]] = {}

    def rows(self, r: int, d: int, m: int) -> list[list[int]]:
        """The rows of the prefix of length ``m`` (windows n = 0..m-r-1)."""
        if m > len(self.terms):
            raise ValueError(f"m must be <= {len(self.terms)}, got {m}")
        if (r, d) not in self._rows:
            self._rows[(r, d)] = window_rows(self.terms, r, d)
        return self._rows[(r, d)][: m - r]


def _lower_bound(bound: str, r: int, d: int) -> int:
    """Least possible L(H) of a pair under a bound rule (0 means: never skip)."""
    if bound == "sound":  # every coefficient and initial term costs at least 2 bits
        return nat_len(r) + nat_len(d) + 2 * (r + 1) * (d + 1) + 2 * r
    if bound == "authors":  # the released code's rule: 3 bits per coefficient (not sound)
        return 3 * (r + 1) * (d + 1)
    return 0


def validate_settings(max_order: int, max_degree: int, slack: int, encoding: str, bound: str) -> None:
    """``TypeError``/``ValueError`` naming the argument when a guesser setting is out of range."""
    for name, value, low in (("max_order", max_order, 1), ("max_degree", max_degree, 0), ("slack", slack, 0)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        if value < low:
            raise ValueError(f"{name} must be >= {low}, got {value}")
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {list(ENCODINGS)}, got {encoding!r}")
    if bound not in BOUNDS:
        raise ValueError(f"bound must be one of {list(BOUNDS)}, got {bound!r}")


def _best_of_pair(
    terms: Sequence[int], m: int, r: int, d: int, basis: list[tuple[int, ...]], best_cost: int | None, strict: bool
) -> tuple[int, tuple[int, ...], list[int]] | None:
    """The cheapest candidate of one pair strictly below ``best_cost``: (cost, vector, zeros).

    Candidates are visited in free-column order and must be strictly cheaper than the best so
    far, so ties go to the earlier free column. ``zeros`` are the windows n < m - r where the
    leading polynomial vanishes (charged as singular terms, or rejected when ``strict``).
    """
    # l(r) + l(d) + initial terms: shared by every candidate of the pair
    base = nat_len(r) + nat_len(d) + sum(2 * (abs(x) + 1).bit_length() for x in terms[:r])
    found = None
    for vec in basis:
        lead = vec[r * (d + 1) :]
        if not any(lead):
            continue
        cost = base + sum(2 * (abs(c) + 1).bit_length() for c in vec)
        if best_cost is not None and cost >= best_cost:
            continue  # singular terms can only add bits
        # a constant nonzero leading polynomial has no roots
        zeros = [n for n in range(m - r) if _eval(lead, n) == 0] if any(lead[1:]) else []
        if zeros:
            if strict:
                continue
            cost += sum(2 * (abs(terms[n + r]) + 1).bit_length() for n in zeros)
            if best_cost is not None and cost >= best_cost:
                continue
        found, best_cost = (cost, vec, zeros), cost
    return found


def _hypothesis(terms: Sequence[int], r: int, d: int, vec: tuple[int, ...], zeros: list[int]) -> Hypothesis:
    coeffs = tuple(tuple(vec[i * (d + 1) : (i + 1) * (d + 1)]) for i in range(r + 1))
    return Hypothesis(r, d, coeffs, tuple(terms[:r]), tuple(terms[n + r] for n in zeros))


def restrict(basis: list[tuple[int, ...]], row: Sequence[int]) -> list[tuple[int, ...]]:
    """The canonical basis of {v in span(basis) : row . v = 0}, from a canonical basis.

    With t_j = row . v_j and q the first j with t_j != 0, the free column of v_q becomes a
    pivot and every later v_j becomes primitive(t_q v_j - t_j v_q): it keeps 1 (up to scale) at
    its own free column and 0 at the others, which is exactly the canonical vector of the
    smaller space. Exact integer arithmetic; the order by free column is kept.
    """
    t = [sum(a * b for a, b in zip(row, v)) for v in basis]
    q = next((j for j, x in enumerate(t) if x), None)
    if q is None:
        return basis
    vq, tq = basis[q], t[q]
    out = basis[:q]
    for j in range(q + 1, len(basis)):
        tj = t[j]
        out.append(basis[j] if tj == 0 else _primitive([tq * a - tj * b for a, b in zip(basis[j], vq)]))
    return out


def _primitive(ints: list[int]) -> tuple[int, ...]:
    g = gcd(*ints)
    if next(v for v in ints if v) < 0:
        g = -g
    return tuple(v // g for v in ints) if g != 1 else tuple(ints)


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
    rows_cache: "WindowRows | None" = None,
    candidates: str = "rref",
    _checked: bool = False,
) -> Hypothesis | None:
    """The cheapest operator fitting every window of ``terms`` whose cost is below ``best_bits``.

    Pairs are visited in :func:`pair_order`; a pair is tried only if m - r >= (r+1)(d+1) + slack.
    A candidate replaces the incumbent only if strictly cheaper, so ties go to the earlier pair
    and, within a pair, to the earlier free column. ``dead`` is the dead-pair memo: pairs whose
    nullspace was trivial at a shorter prefix of the same sequence (the nullspace can only
    shrink as windows are added, so they stay trivial); new trivial pairs are added to it.
    ``rows_cache`` holds the window rows of a longer list that ``terms`` is a prefix of (a
    window's row does not depend on the prefix length, so the learner builds each pair's rows once).
    ``candidates="lll"`` (optional, not the paper's) replaces the canonical basis by its LLL
    reduction, which may find cheaper operators and so changes the numbers.
    """
    if not _checked:
        terms = check_terms(terms, min_terms=0)
        validate_settings(max_order, max_degree, slack, encoding, bound)
    if candidates not in CANDIDATES:
        raise ValueError(f"candidates must be one of {list(CANDIDATES)}, got {candidates!r}")
    solve = get_backend(backend)
    m = len(terms)
    best = None
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
        rows = rows_cache.rows(r, d, m) if rows_cache is not None else window_rows(terms, r, d)
        basis = solve(rows, ncols)
        if not basis:
            if dead is not None:
                dead.add((r, d))
            continue
        if candidates == "lll":
            basis = lll_reduce(basis)
        found = _best_of_pair(terms, m, r, d, basis, best_cost, strict)
        if found is not None:
            best_cost = found[0]
            best = (r, d, found[1], found[2])
    return None if best is None else _hypothesis(terms, *best)


class IncrementalGuesser:
    """:func:`guess` on the growing prefixes of one sequence, without re-solving from scratch.

    Each pair's canonical basis is solved once (with ``backend``) at its first eligible prefix and
    then carried forward with :func:`restrict`, one new window row at a time. The canonical basis
    of a space is unique, so the candidates, and hence every selection, equal a full re-solve at
    every prefix (the tests compare both on the corpus and the controls). Pairs reaching a
    trivial nullspace are dropped (the sound dead-pair rule).
    """

    def __init__(self, terms: Sequence[int], *, max_order: int = 6, max_degree: int = 4, slack: int = SLACK,
                 encoding: str = "loose", backend: str = "flint", bound: str = "none"):
        self.terms = list(terms)
        self.max_order, self.max_degree, self.slack = max_order, max_degree, slack
        self.strict = encoding == "strict"
        self.bound = bound
        self.solve = get_backend(backend)
        self.rows = WindowRows(self.terms)
        self.dead: set[tuple[int, int]] = set()
        self.state: dict[tuple[int, int], tuple[int, list[tuple[int, ...]]]] = {}  # pair -> (m, basis)

    def guess(self, m: int, best_bits: int | None) -> Hypothesis | None:
        """The selection on the prefix of length ``m`` (prefix lengths must not decrease)."""
        terms = self.terms
        best = None
        best_cost = best_bits
        for r, d in pair_order(self.max_order, self.max_degree):
            ncols = (r + 1) * (d + 1)
            if m - r < ncols + self.slack or (r, d) in self.dead:
                continue
            if best_cost is not None and self.bound != "none" and _lower_bound(self.bound, r, d) >= best_cost + (self.bound == "authors"):
                continue
            held = self.state.get((r, d))
            if held is None:
                basis = self.solve(self.rows.rows(r, d, m), ncols)
            else:
                last_m, basis = held
                if m < last_m:
                    raise ValueError(f"m must not decrease (was {last_m}, got {m})")
                new_rows = self.rows.rows(r, d, m)[last_m - r :]
                for row in new_rows:
                    basis = restrict(basis, row)
                    if not basis:
                        break
            if not basis:
                self.dead.add((r, d))
                self.state.pop((r, d), None)
                continue
            self.state[(r, d)] = (m, basis)
            found = _best_of_pair(terms, m, r, d, basis, best_cost, self.strict)
            if found is not None:
                best_cost = found[0]
                best = (r, d, found[1], found[2])
        return None if best is None else _hypothesis(terms[:m], *best)


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
    candidates: str = "rref",
) -> Hypothesis | None:
    """The MDL-selected operator for the whole of ``terms``, or None when verbatim is cheaper.

    The incumbent is the literal cost of ``terms``; a hypothesis is returned only if it is
    strictly cheaper.
    """
    seq = check_terms(terms, min_terms=1)
    validate_settings(max_order, max_degree, slack, encoding, bound)
    return guess(
        seq,
        max_order=max_order,
        max_degree=max_degree,
        slack=slack,
        encoding=encoding,
        backend=backend,
        bound=bound,
        best_bits=literal_cost(seq),
        candidates=candidates,
        _checked=True,
    )
