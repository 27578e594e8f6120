"""Exact nullspace over Q, returned as the canonical RREF basis in primitive integer form.

The guesser's candidates are *only* the canonical basis vectors of the nullspace: one per free
column of the reduced row echelon form, with that free variable 1 and the others 0. The basis
is unique, so every exact backend gives the same candidates once each vector is made a
primitive integer vector with its first nonzero entry positive. Three backends sit behind one
registry:

- ``flint`` (default, fast): FLINT's fraction-free ``fmpz_mat.nullspace``;
- ``sympy`` (independent cross-check used in tests): ``Matrix.nullspace``;
- ``fraction`` (no dependencies): Gauss-Jordan over ``fractions.Fraction``.

Each function takes the rows of an integer matrix (a list of equal-length int lists) and the
column count, and returns the basis vectors ordered by free column (a vector's free column is
its last nonzero index, because RREF puts every pivot of a free column's vector before it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from math import gcd

Rows = Sequence[Sequence[int]]
NullspaceFn = Callable[[Rows, int], list[tuple[int, ...]]]


def primitive(vec: Sequence[int | Fraction]) -> tuple[int, ...]:
    """Clear denominators, divide by the gcd and make the first nonzero entry positive."""
    den = 1
    for v in vec:
        if isinstance(v, Fraction):
            den = den * v.denominator // gcd(den, v.denominator)
    ints = [int(v * den) for v in vec] if den != 1 else [int(v) for v in vec]
    g = 0
    for v in ints:
        g = gcd(g, v)
    if g == 0:
        raise ValueError("vec must be a nonzero vector")
    first = next(v for v in ints if v)
    if first < 0:
        g = -g
    return tuple(v // g for v in ints)


def _ordered(vectors: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    # sort by free column = last nonzero index (robust to a backend's column order)
    def last_nonzero(v: tuple[int, ...]) -> int:
        return max(i for i, x in enumerate(v) if x)

    return sorted(vectors, key=last_nonzero)


def nullspace_flint(rows: Rows, ncols: int) -> list[tuple[int, ...]]:
    """Canonical basis via python-flint ``fmpz_mat.nullspace`` (returns ``(X, nullity)``)."""
    import flint

    if not rows:
        return [tuple(int(i == c) for i in range(ncols)) for c in range(ncols)]
    x, nullity = flint.fmpz_mat([list(r) for r in rows]).nullspace()
    vectors = [primitive([int(x[i, c]) for i in range(ncols)]) for c in range(int(nullity))]
    return _ordered(vectors)


def nullspace_sympy(rows: Rows, ncols: int) -> list[tuple[int, ...]]:
    """Canonical basis via sympy ``Matrix.nullspace`` (rational entries)."""
    import sympy

    if not rows:
        return [tuple(int(i == c) for i in range(ncols)) for c in range(ncols)]
    basis = sympy.Matrix([list(r) for r in rows]).nullspace()
    vectors = [primitive([Fraction(int(e.p), int(e.q)) for e in vec]) for vec in basis]
    return _ordered(vectors)


def nullspace_fraction(rows: Rows, ncols: int) -> list[tuple[int, ...]]:
    """Canonical basis via Gauss-Jordan elimination over ``Fraction`` (pure Python)."""
    mat = [[Fraction(v) for v in r] for r in rows]
    pivots: list[int] = []
    rank = 0
    for col in range(ncols):
        piv = next((i for i in range(rank, len(mat)) if mat[i][col] != 0), None)
        if piv is None:
            continue
        mat[rank], mat[piv] = mat[piv], mat[rank]
        lead = mat[rank][col]
        mat[rank] = [v / lead for v in mat[rank]]
        for i in range(len(mat)):
            if i != rank and mat[i][col] != 0:
                f = mat[i][col]
                mat[i] = [a - f * b for a, b in zip(mat[i], mat[rank])]
        pivots.append(col)
        rank += 1
        if rank == len(mat):
            break
    pivot_set = set(pivots)
    vectors = []
    for free in (c for c in range(ncols) if c not in pivot_set):
        vec = [Fraction(0)] * ncols
        vec[free] = Fraction(1)
        for row, pc in enumerate(pivots):
            vec[pc] = -mat[row][free]
        vectors.append(primitive(vec))
    return _ordered(vectors)


BACKENDS: dict[str, NullspaceFn] = {
    "flint": nullspace_flint,
    "sympy": nullspace_sympy,
    "fraction": nullspace_fraction,
}


def get_backend(name: str) -> NullspaceFn:
    """The nullspace function registered as ``name``; ``ValueError`` naming the choices otherwise."""
    if name not in BACKENDS:
        raise ValueError(f"backend must be one of {sorted(BACKENDS)}, got {name!r}")
    return BACKENDS[name]
