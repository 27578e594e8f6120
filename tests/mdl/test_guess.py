"""The guesser: canonical nullspace basis (three backends), costs, encodings, selection order."""

from __future__ import annotations

import random

import pytest

from rote_hf.mdl import fit, guess, spectrum
from rote_hf.mdl.controls import scaled_fibonacci
from rote_hf.mdl.corpus import classical_corpus
from rote_hf.mdl.guess import Hypothesis, pair_order, window_rows
from rote_hf.mdl.nullspace import BACKENDS, get_backend, primitive

CORPUS = {s.name: s.terms for s in classical_corpus()}


def _random_deficient(rng: random.Random, nrows: int, ncols: int, rank: int) -> list[list[int]]:
    # product of an nrows x rank and a rank x ncols integer matrix: rank <= `rank`
    a = [[rng.randint(-4, 4) for _ in range(rank)] for _ in range(nrows)]
    b = [[rng.randint(-4, 4) for _ in range(ncols)] for _ in range(rank)]
    return [[sum(a[i][k] * b[k][j] for k in range(rank)) for j in range(ncols)] for i in range(nrows)]


def test_backends_give_the_same_canonical_basis_on_random_matrices():
    rng = random.Random(7)
    for _ in range(40):
        ncols = rng.randint(2, 7)
        rows = _random_deficient(rng, rng.randint(1, 9), ncols, rng.randint(1, ncols))
        bases = {name: fn(rows, ncols) for name, fn in BACKENDS.items()}
        assert bases["flint"] == bases["sympy"] == bases["fraction"]
        for vec in bases["flint"]:
            assert all(sum(r[j] * vec[j] for j in range(ncols)) == 0 for r in rows)


def test_backends_agree_on_window_matrices_of_the_corpus():
    for name in ("Catalan", "cubes", "primes", "Motzkin"):
        terms = CORPUS[name][:20]
        for r, d in ((1, 1), (2, 1), (1, 3), (3, 2)):
            rows = window_rows(terms, r, d)
            ncols = (r + 1) * (d + 1)
            assert get_backend("flint")(rows, ncols) == get_backend("sympy")(rows, ncols) == get_backend("fraction")(rows, ncols)


def test_canonical_basis_is_ordered_by_free_column_and_sign_normalised():
    # x0 + x2 = 0 twice: free columns 1 and 2 -> (0,1,0) then (1,0,-1) normalised to first-positive
    basis = get_backend("flint")([[1, 0, 1], [2, 0, 2]], 3)
    assert basis == [(0, 1, 0), (1, 0, -1)]
    assert primitive([-2, 4, 6]) == (1, -2, -3)


def test_fibonacci_operator_and_cost():
    h = fit(CORPUS["Fibonacci"])
    assert (h.order, h.degree, h.coeffs, h.initial, h.cost) == (2, 0, ((1,), (1,), (-1,)), (0, 1), 22)
    assert h.extend(CORPUS["Fibonacci"][:10], 3) == [55, 89, 144]
    assert "a(n + 2)" in h.recurrence()


def test_scaled_fibonacci_cost_is_19_plus_gamma():
    assert fit(scaled_fibonacci(10**12), max_order=8).cost == 98
    for k in (1, 10, 100):
        assert fit(scaled_fibonacci(k), max_order=8).cost == 19 + (2 * (k + 1).bit_length() - 1)


def test_enumeration_order_and_slack_guard():
    pairs = pair_order(6, 4)
    assert pairs[:6] == ((1, 0), (2, 0), (1, 1), (3, 0), (4, 0), (1, 2))  # key ((r+1)(d+1), r, d)
    assert len(pairs) == 30
    fib = CORPUS["Fibonacci"]
    # (2, 0) needs m - 2 >= 3 + 2, i.e. 7 terms
    assert guess(fib[:6], best_bits=10**6, max_order=2, max_degree=0) is None
    assert guess(fib[:7], best_bits=10**6, max_order=2, max_degree=0).signature == (2, 0, ((1,), (1,), (-1,)))


def test_loose_charges_singular_terms_and_strict_rejects_them():
    tri = CORPUS["triangular"]
    loose = fit(tri)
    assert (loose.order, loose.degree, loose.cost) == (1, 1, 26)
    assert loose.singular == (1,)  # p_1(n) = n vanishes at n = 0: s(1) is charged
    strict = fit(tri, encoding="strict")
    assert (strict.order, strict.degree, strict.cost) == (2, 1, 36)


def test_a_new_singular_point_raises_the_cost_without_changing_the_signature():
    # s(n) = n - 9 under (1, 1): (n - 9) s(n+1) = (n - 8) s(n); p_1 vanishes at the window n = 9,
    # which enters the range at 11 terms (spec §4 caveat, the released code's behaviour).
    terms = [n - 9 for n in range(14)]
    sp = spectrum(terms, max_order=1, max_degree=1)
    assert sp.discovery_point == 7 and len(set(sp.signatures[1:])) == 1
    assert sp.L == (47, 38, 38, 38, 38, 42, 42, 42, 42)
    assert sp.R[4] == 4 and sp.n_revisions == 1  # only the discovery changes the signature
    assert sp.hypotheses[-1].singular == (1,)


@pytest.mark.parametrize("name", ["factorials", "Catalan", "cubes", "primes", "Motzkin"])
def test_bounds_do_not_change_the_selection(name):
    terms = CORPUS[name][:24]
    base = fit(terms)
    assert fit(terms, bound="sound") == base
    assert fit(terms, bound="authors") == base


def test_fit_returns_none_when_verbatim_is_cheaper():
    assert fit(CORPUS["primes"]) is None
    assert fit([1, 2, 3]) is None  # too short for any pair


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match="encoding must be one of"):
        fit([1, 2, 3], encoding="tight")
    with pytest.raises(ValueError, match="backend must be one of"):
        guess([1, 2, 3], backend="magma")
    with pytest.raises(ValueError, match="max_order must be >= 1"):
        fit([1, 2, 3], max_order=0)
    with pytest.raises(TypeError, match=r"terms\[1\]"):
        fit([1, 1.5, 2])
    with pytest.raises(ValueError, match="at least 1 terms"):
        fit([])


def test_hypothesis_extend_stops_at_singular_points():
    h = Hypothesis(1, 1, ((-1, 0), (-2, 1)), (1,))  # (n - 2) s(n+1) = s(n): p_1(2) = 0
    assert h.extend([5, 5, 5], 1) is None  # window n = 2 is singular
    assert h.extend([1, -1], 1) == [1]  # n = 1: s(2) = s(1) / (1 - 2)
