import random

import pytest
from rote_benchmark import generation as ref

from rote_hf.symbolic import ALPHABET, IncrementalComplexity, complexity, lzw_complexity, reduce_period


@pytest.mark.parametrize(
    ("s", "codes"),
    [("", 0), ("A", 1), ("AB", 2), ("ABCDEF", 6), ("AAAA", 3), ("ABABABAB", 5), ("z", 1)],
)
def test_lzw_code_count(s, codes):
    assert lzw_complexity(s) == codes


@pytest.mark.parametrize(
    ("s", "reduced"),
    [("ABABA", "ABABA"), ("ABAB", "AB"), ("AAAA", "A"), ("A", "A"), ("", ""), ("ABCABCABC", "ABC"), ("ABAABA", "ABA")],
)
def test_reduce_period_only_divisor_periods(s, reduced):
    assert reduce_period(s) == reduced


def test_complexity_uses_the_reduced_string():
    assert lzw_complexity("ABABABAB") == 5
    assert complexity("ABABABAB") == 2


def _random_strings(count, seed=0):
    rng = random.Random(seed)
    for _ in range(count):
        n = rng.randint(1, 6)
        s = "".join(rng.choice(ALPHABET[:n]) for _ in range(rng.randint(0, 40)))
        if s and rng.random() < 0.3:
            s = s * rng.randint(2, 4)
        yield s


def test_agrees_with_reference_on_random_strings():
    for s in _random_strings(3000):
        assert lzw_complexity(s) == ref.lzw_complexity(s), s
        assert reduce_period(s) == ref._shortest_period(s), s
        assert complexity(s) == ref.lzw_complexity(ref._shortest_period(s)), s


def test_incremental_state_equals_recomputation_after_every_symbol():
    for s in _random_strings(300, seed=1):
        state = IncrementalComplexity()
        for i, symbol in enumerate(s, start=1):
            assert state.append(symbol) == complexity(s[:i])
            assert state.lzw_count() == lzw_complexity(s[:i])
        assert state.string() == s and len(state) == len(s)


@pytest.mark.parametrize("bad", ["A0", "AB C", "é"])
def test_non_letters_are_rejected(bad):
    with pytest.raises(ValueError, match="52 letters"):
        lzw_complexity(bad)


@pytest.mark.parametrize("bad", [None, 5, b"AB", ["A"]])
def test_non_strings_are_rejected(bad):
    with pytest.raises(TypeError, match="must be a str"):
        complexity(bad)
