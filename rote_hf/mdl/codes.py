"""Prefix-free integer codes (all lengths in bits).

The MDL learner is a two-part code; every part uses one of these codes so that the total is
a genuine codelength. The choices below are the only ones that reproduce the paper's numbers
(Fibonacci L(H) = 22, literal costs 759 / 315 / 3519): the sign bit is *always* paid, even for 0
(not zig-zag), and the verbatim cost includes the length of the prefix.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction


def _check_int(value: object, name: str) -> int:
    # bool is an int subclass but never a sequence term.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    return value


def elias_gamma_len(k: int) -> int:
    """Length of the Elias-gamma codeword of ``k >= 1``: ``2*bitlen(k) - 1`` bits."""
    _check_int(k, "k")
    if k < 1:
        raise ValueError(f"k must be >= 1 for Elias gamma, got {k}")
    return 2 * k.bit_length() - 1


def nat_len(k: int) -> int:
    """Codelength of a natural number ``k >= 0``: l(k) = gamma(k + 1) bits."""
    _check_int(k, "k")
    if k < 0:
        raise ValueError(f"k must be a natural number (>= 0), got {k}")
    return 2 * (k + 1).bit_length() - 1


def int_len(m: int) -> int:
    """Codelength of a signed integer: 1 sign bit (always, also for 0) + l(|m|) bits."""
    _check_int(m, "m")
    return 2 * (abs(m) + 1).bit_length()  # = 1 + (2*bitlen(|m|+1) - 1)


def rational_len(q: Fraction) -> int:
    """Codelength of a rational in lowest terms: l±(numerator) + l(denominator) (defined, unused)."""
    if not isinstance(q, Fraction):
        raise TypeError(f"q must be a fractions.Fraction, got {type(q).__name__}")
    return int_len(q.numerator) + nat_len(q.denominator)


def literal_cost(terms: Sequence[int]) -> int:
    """Verbatim cost of a prefix: l(n) + sum of l±(s_i) over its n terms, in bits."""
    terms = check_terms(terms, min_terms=0)
    return nat_len(len(terms)) + sum(2 * (abs(t) + 1).bit_length() for t in terms)


def literal_costs(terms: Sequence[int]) -> list[int]:
    """``[literal_cost(terms[:n]) for n in 0..len(terms)]`` in one pass (index n = prefix length)."""
    terms = check_terms(terms, min_terms=0)
    out = [nat_len(0)]
    acc = 0
    for n, t in enumerate(terms, start=1):
        acc += 2 * (abs(t) + 1).bit_length()
        out.append(acc + nat_len(n))
    return out


def check_terms(terms: object, *, min_terms: int = 1, name: str = "terms") -> list[int]:
    """Validate a sequence of integer terms; returns it as a list of Python ints.

    Accepts any iterable of ints (numpy integers and other ``__index__`` types are converted);
    floats, strings and bools are rejected with a ``TypeError`` naming the offending position.
    """
    if isinstance(terms, (str, bytes)) or not hasattr(terms, "__iter__"):
        raise TypeError(f"{name} must be a sequence of integers, got {type(terms).__name__}")
    out: list[int] = []
    for i, t in enumerate(terms):  # type: ignore[union-attr]
        if isinstance(t, bool) or not hasattr(t, "__index__"):
            raise TypeError(f"{name}[{i}] must be an integer, got {type(t).__name__} {t!r}")
        out.append(int(t.__index__()))
    if len(out) < min_terms:
        raise ValueError(f"{name} must have at least {min_terms} terms, got {len(out)}")
    return out
