"""Corpus-level statistics of the paper: what discovery depends on, and the LCP baseline.

- Pearson r between n_d and the structural size L(H*) (+0.85 in the paper) and between n_d and
  the growth rate log|a_N| (-0.007);
- one-way ANOVA of n_d across the fitted classes POLY, CFIN, PREC (F = 4.70, p = 0.014);
- the linear complexity profile (Berlekamp-Massey over GF(2) of the terms mod 2), whose final
  value separates NONH (mean 11.20) from POLY 1.80, CFIN 1.94, PREC 5.93 (Appendix B).
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def linear_complexity_profile(bits: Sequence[int]) -> list[int]:
    """L(s_1..s_N) for N = 1..len(bits): Massey's algorithm over GF(2) (bits are 0/1)."""
    if any(b not in (0, 1) for b in bits):
        raise ValueError("bits must contain only 0 and 1")
    conn = [1]  # current connection polynomial C(x)
    prev = [1]  # C(x) before the last length change
    length, shift = 0, 1
    profile = []
    for n, bit in enumerate(bits):
        disc = bit
        for i in range(1, length + 1):
            disc ^= conn[i] & bits[n - i]
        if disc:
            update = conn + [0] * max(0, len(prev) + shift - len(conn))
            for i, p in enumerate(prev):
                update[i + shift] ^= p
            if 2 * length <= n:
                prev, conn = conn, update
                length, shift = n + 1 - length, 1
            else:
                conn = update
                shift += 1
        else:
            shift += 1
        profile.append(length)
    return profile


def lcp_final(terms: Sequence[int]) -> int:
    """Final linear complexity of the terms reduced mod 2."""
    return linear_complexity_profile([t % 2 for t in terms])[-1]


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson correlation coefficient of two equal-length samples."""
    if len(x) != len(y) or len(x) < 2:
        raise ValueError(f"x and y must have the same length >= 2, got {len(x)} and {len(y)}")
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy)


def anova_oneway(groups: Sequence[Sequence[float]]) -> tuple[float, float]:
    """One-way ANOVA: (F, p) with p from the F distribution (scipy)."""
    from scipy.stats import f as f_dist

    k = len(groups)
    n = sum(len(g) for g in groups)
    grand = sum(sum(g) for g in groups) / n
    between = sum(len(g) * (sum(g) / len(g) - grand) ** 2 for g in groups)
    within = sum(sum((v - sum(g) / len(g)) ** 2 for v in g) for g in groups)
    f = (between / (k - 1)) / (within / (n - k))
    return f, float(f_dist.sf(f, k - 1, n - k))


def corpus_statistics(classes: Sequence[str], terms: Sequence[Sequence[int]], spectra: Sequence) -> dict:
    """The paper's corpus statistics from labelled sequences and their spectra (same order)."""
    fitted = [(c, t, sp) for c, t, sp in zip(classes, terms, spectra) if sp.hypothesis is not None]
    nd = [sp.discovery_point for _, _, sp in fitted]
    f, p = anova_oneway([[sp.discovery_point for c, _, sp in fitted if c == cls] for cls in ("POLY", "CFIN", "PREC")])
    lcp: dict[str, list[int]] = {}
    for c, t in zip(classes, terms):
        lcp.setdefault(c, []).append(lcp_final(t))
    return {
        "r_nd_structural_size": pearson(nd, [sp.hypothesis.cost for _, _, sp in fitted]),
        "r_nd_growth": pearson(nd, [math.log(abs(t[-1]) + 1) for _, t, _ in fitted]),
        "anova_F": f,
        "anova_p": p,
        "lcp_mean": {c: sum(v) / len(v) for c, v in lcp.items()},
    }
