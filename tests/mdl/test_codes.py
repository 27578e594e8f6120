"""Codes: Elias gamma, naturals, signed integers and the verbatim cost (spec §2)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rote_hf.mdl import literal_cost
from rote_hf.mdl.codes import check_terms, elias_gamma_len, int_len, literal_costs, nat_len, rational_len
from rote_hf.mdl.corpus import classical_corpus


def test_elias_gamma_and_naturals():
    assert [elias_gamma_len(k) for k in (1, 2, 3, 4, 7, 8)] == [1, 3, 3, 5, 5, 7]
    assert [nat_len(k) for k in (0, 1, 2, 3, 6, 7)] == [1, 3, 3, 5, 5, 7]
    assert nat_len(34) == 11


def test_signed_integers_always_pay_the_sign_bit():
    assert [int_len(m) for m in (0, 1, -1, 2, -2, 3)] == [2, 4, 4, 4, 4, 6]
    assert rational_len(Fraction(-1, 2)) == 4 + 3


def test_literal_costs_of_the_paper():
    corpus = {s.name: s.terms for s in classical_corpus()}
    assert literal_cost(corpus["naturals"]) == 315
    assert literal_cost(corpus["Fibonacci"]) == 759
    assert literal_cost(corpus["factorials"]) == 3519
    # without the length code the Fibonacci literal would be 748
    assert literal_cost(corpus["Fibonacci"]) - nat_len(34) == 748


def test_literal_costs_prefix_table_matches_single_calls():
    terms = [0, -5, 12, 10**40, 7]
    assert literal_costs(terms) == [literal_cost(terms[:n]) for n in range(len(terms) + 1)]


def test_huge_integers_have_no_digit_limit():
    big = 10**5000 + 1
    assert int_len(big) == 2 * (big + 1).bit_length()
    assert literal_cost([big]) == nat_len(1) + int_len(big)


@pytest.mark.parametrize("bad", [[1, 2.5], ["1", 2], [True, 2], "123", 5])
def test_non_integer_terms_are_rejected(bad):
    with pytest.raises(TypeError, match="terms"):
        literal_cost(bad)


def test_bad_code_arguments():
    with pytest.raises(ValueError, match="k must be >= 1"):
        elias_gamma_len(0)
    with pytest.raises(ValueError, match="natural"):
        nat_len(-1)
    with pytest.raises(ValueError, match="at least 3"):
        check_terms([1, 2], min_terms=3)
