import math
import random
from collections import defaultdict

import pytest

from rote_hf.symbolic import (
    ambiguity_rate,
    context_entropy,
    entropy_profile,
    generate_seed,
    predictive_order,
    reduce_period,
)


def naive(u: str, r: int) -> tuple[float, float]:
    """(α_r, H_r) straight from the paper's definitions: cyclic contexts as strings."""
    m = len(u)
    tiled = u * (r // m + 2)
    pairs = []
    for i in range(m):
        start = (i - r + 1) % m
        pairs.append((tiled[start : start + r], u[(i + 1) % m]))
    successors = defaultdict(lambda: defaultdict(int))
    for z, a in pairs:
        successors[z][a] += 1
    alpha = sum(len(successors[z]) > 1 for z, _ in pairs) / m
    h = 0.0
    for counts in successors.values():
        total = sum(counts.values())
        for c in counts.values():
            h -= (c / m) * math.log(c / total)
    return alpha, h


def test_against_naive_definitions_on_random_strings():
    rng = random.Random(7)
    for _ in range(1500):
        n = rng.randint(1, 4)
        u = "".join(rng.choice("ABCD"[:n]) for _ in range(rng.randint(1, 30)))
        ur = reduce_period(u)
        r_star = predictive_order(u)
        for r in range(1, r_star + 3):
            alpha, h = naive(ur, r)
            assert ambiguity_rate(u, r) == pytest.approx(alpha, abs=1e-12)
            assert context_entropy(u, r) == pytest.approx(h, abs=1e-12)
        assert naive(ur, r_star)[0] == 0
        assert r_star == 1 or naive(ur, r_star - 1)[0] > 0


def test_small_worked_examples():
    # "AAB": length-1 contexts A->A, A->B, B->A; two of three phases are ambiguous
    assert ambiguity_rate("AAB", 1) == pytest.approx(2 / 3)
    assert context_entropy("AAB", 1) == pytest.approx((2 / 3) * math.log(2))
    assert predictive_order("AAB") == 2
    assert predictive_order("A") == 1 and predictive_order("ABAB") == 1
    # the worst case: r* = m - 1 for A^(m-1) B
    assert predictive_order("A" * 499 + "B") == 499


def test_generated_seed_identifiability():
    seed, _ = generate_seed(4, 500, 3)
    r_star = predictive_order(seed)
    assert ambiguity_rate(seed, r_star) == 0 and ambiguity_rate(seed, r_star - 1) > 0
    profile = entropy_profile(seed)
    assert len(profile) == r_star and profile[-1] == 0 and all(h > 0 for h in profile[:-1])
    assert all(a >= b - 1e-12 for a, b in zip(profile, profile[1:]))  # H_r never increases with r


@pytest.mark.parametrize(("u", "r", "exc"), [("", 1, ValueError), ("AB", 0, ValueError), ("A1", 1, ValueError), ("AB", 1.5, TypeError)])
def test_bad_input(u, r, exc):
    with pytest.raises(exc):
        ambiguity_rate(u, r)
