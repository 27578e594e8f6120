"""The revision spectrum on the classical corpus and the controls: the paper's numbers (spec §5.1)."""

from __future__ import annotations

import pytest

from rote_hf.mdl import classical_corpus, spectrum
from rote_hf.mdl.controls import (
    deception_controls,
    growth_controls,
    phase_controls,
    true_period,
    unplanted_controls,
)
from tests.mdl.golden import CLASSICAL


@pytest.fixture(scope="module")
def corpus():
    return classical_corpus()


@pytest.fixture(scope="module")
def spectra(corpus):
    return {enc: [spectrum(s.terms, encoding=enc) for s in corpus] for enc in ("loose", "strict")}


def test_corpus_terms_and_labels(corpus):
    assert len(corpus) == 61 and all(len(s.terms) == 34 for s in corpus)
    assert [s.anum for s in corpus] == [row[0] for row in CLASSICAL]
    assert [s.cls for s in corpus] == [row[1] for row in CLASSICAL]
    assert {c: sum(s.cls == c for s in corpus) for c in ("POLY", "CFIN", "PREC", "NONH")} == {
        "POLY": 15, "CFIN": 16, "PREC": 15, "NONH": 15,
    }


@pytest.mark.parametrize("enc", ["loose", "strict"])
def test_every_corpus_row_matches_the_released_table(spectra, corpus, enc):
    col = 3 if enc == "loose" else 4
    for s, sp, row in zip(corpus, spectra[enc], CLASSICAL):
        h = sp.hypothesis
        got = (
            sp.discovery_point,
            None if h is None else h.order,
            None if h is None else h.degree,
            None if h is None else h.cost,
            sp.n_struct_revisions > 0,
        )
        assert sp.L_lit[-1] == row[2], s.name
        assert got == row[col], (enc, s.name)


def test_headline_corpus_numbers_loose(spectra, corpus):
    sps = spectra["loose"]
    fitted = [(s, sp) for s, sp in zip(corpus, sps) if sp.discovery_point is not None]
    assert len(fitted) == 46
    assert {s.cls for s, _ in fitted} == {"POLY", "CFIN", "PREC"}
    assert all(sp.hypothesis is None for s, sp in zip(corpus, sps) if s.cls == "NONH")
    diffs = [sp.discovery_point - sp.n_id for _, sp in fitted]
    assert sum(d == 0 for d in diffs) == 41
    assert max(abs(d) for d in diffs) == 1
    assert round(sum(abs(d) for d in diffs) / 46, 2) == 0.11
    misses = {s.name for (s, _), d in zip(fitted, diffs) if d}
    assert misses == {"cubes", "square pyramidal", "powers of 2", "powers of 3", "powers of 4"}
    assert all(sp.limit == "identification" for _, sp in fitted)
    revisers = {s.name for s, sp in zip(corpus, sps) if sp.n_struct_revisions}
    assert revisers == {"cubes", "square pyramidal"}
    named = {s.name: sp for s, sp in zip(corpus, sps)}
    assert named["Fibonacci"].discovery_point == named["factorials"].discovery_point == named["naturals"].discovery_point == 7


def test_structural_revisers_strict(spectra, corpus):
    revisers = {s.name for s, sp in zip(corpus, spectra["strict"]) if sp.n_struct_revisions}
    assert revisers == {"triangular", "oblong"}


def test_table1_class_ranges_and_means(spectra, corpus):
    by = {}
    for s, sp in zip(corpus, spectra["loose"]):
        if sp.hypothesis is not None:
            by.setdefault(s.cls, []).append((sp.discovery_point, sp.hypothesis.cost))
    ranges = {c: (min(n for n, _ in v), max(n for n, _ in v)) for c, v in by.items()}
    assert ranges == {"POLY": (7, 13), "CFIN": (6, 9), "PREC": (7, 13)}
    means = {c: round(sum(n for n, _ in v) / len(v), 1) for c, v in by.items()}
    assert means == {"POLY": 8.5, "CFIN": 7.2, "PREC": 8.7}
    costs = {c: round(sum(L for _, L in v) / len(v)) for c, v in by.items()}
    assert costs == {"POLY": 33, "CFIN": 24, "PREC": 34}


def test_spectrum_invariants(spectra):
    for sp in spectra["loose"]:
        assert sp.n_values[0] == 6 and sp.N == 34
        assert all(L <= lit for L, lit in zip(sp.L, sp.L_lit))
        for k, r in enumerate(sp.R):  # no change of state -> no change of length (no singular drift here)
            if sp.signatures[k] == sp.signatures[k + 1] != "literal":
                assert r == 0


def test_memo_solver_and_backends_do_not_change_the_spectrum(corpus, spectra):
    for k in (6, 14, 32, 46):  # cubes, square pyramidal (the revisers), Catalan, primes
        terms = corpus[k].terms
        assert spectrum(terms, solver="resolve") == spectra["loose"][k]
        assert spectrum(terms, solver="resolve", encoding="strict") == spectra["strict"][k]
        base = spectrum(terms[:22])
        assert spectrum(terms[:22], memo=False) == base
        assert spectrum(terms[:22], solver="resolve", backend="sympy") == base
        assert spectrum(terms[:16], solver="resolve", backend="fraction") == spectrum(terms[:16])


def test_incremental_equals_resolve_on_deceptive_controls():
    for c in deception_controls()[2:5] + unplanted_controls(periods=(6, 12), trials=3):
        kw = dict(max_order=c.max_order, max_degree=c.max_degree)
        assert spectrum(c.terms, **kw) == spectrum(c.terms, solver="resolve", **kw)


GROWTH = {1: (759, 22), 10: (969, 26), 100: (1187, 32), 1000: (1403, 38), 10**5: (1845, 52),
          10**7: (2285, 66), 10**9: (2719, 78), 10**12: (3377, 98)}


def test_control_a_growth_invariance():
    for c in growth_controls():
        sp = spectrum(c.terms, max_order=c.max_order, max_degree=c.max_degree)
        k = dict(c.params)["k"]
        assert (sp.L_lit[-1], sp.hypothesis.cost, sp.discovery_point) == (*GROWTH[k], 7)
        assert 0.0265 < sp.compression_ratio < 0.0295


# released control_phase.csv: L(H) per (alphabet, period)
PHASE_LH = {
    2: (20, 28, 34, 38, 28, 52), 3: (22, 28, 34, 40, 44, 52),
    10: (22, 32, 40, 48, 56, 68), 1000: (52, 64, 86, 108, 130, 152),
}


def test_control_b_phase_cells():
    cells = phase_controls()
    assert len(cells) == 24
    for c in cells:
        p = dict(c.params)
        sp = spectrum(c.terms, max_order=c.max_order, max_degree=c.max_degree)
        p_star = true_period(c.terms)
        assert sp.discovery_point == sp.n_id == 2 * p_star + 3
        assert sp.hypothesis.cost == PHASE_LH[p["alphabet"]][p["period"] - 2]


def test_deceptive_d3_course():
    d3 = deception_controls()[2]
    sp = spectrum(d3.terms, max_order=d3.max_order, max_degree=d3.max_degree)
    assert sp.discovery_point == 7 and sp.refutations == (8,) and sp.stabilisation_point == 17
    rho = dict(zip(sp.n_values, sp.rho))
    assert (rho[6], rho[7], rho[16]) == (-0.75, 4.5, -3.5)
    assert all(rho[n] == 1.0 for n in range(8, 16))  # the wilderness: each term at full cost
    assert sp.regime == "revising"


def test_deceptive_sweep_matches_released_table():
    settle, peaks, refutes = [], [], []
    for c in deception_controls():
        sp = spectrum(c.terms, max_order=c.max_order, max_degree=c.max_degree)
        settle.append(sp.stabilisation_point)
        peaks.append(max(abs(r) for r in sp.rho))
        refutes.append(sp.refutations[0] if sp.refutations else None)
    assert settle == [9, 13, 17, 21, 25, 29, 33]
    assert peaks == [1.5, 2.5, 4.5, 7.5, 10.5, 11.0, 11.0]
    assert refutes == [None, None, 8, 10, 12, 15, 18]


@pytest.mark.parametrize("enc,expected", [("loose", 96), ("strict", 63)])
def test_unplanted_deception_rate(enc, expected):
    per: dict[int, int] = {}
    for c in unplanted_controls():
        sp = spectrum(c.terms, max_order=c.max_order, max_degree=c.max_degree, encoding=enc)
        p = dict(c.params)["period"]
        per[p] = per.get(p, 0) + (sp.n_struct_revisions > 0)
    assert sum(per.values()) == expected  # of 440
    if enc == "loose":
        assert [per[p] for p in (2, 3, 4)] == [0, 0, 0]
        assert (per[5], per[6], per[10], per[12]) == (3, 11, 14, 18)  # 7.5 %, 27.5 %, 35 %, 45 % of 40
        assert per[11] < per[10]  # the dip at p = 11


def test_corpus_statistics_of_the_paper(spectra, corpus):
    from rote_hf.mdl.analysis import corpus_statistics, linear_complexity_profile

    stats = corpus_statistics([s.cls for s in corpus], [s.terms for s in corpus], spectra["loose"])
    assert round(stats["r_nd_structural_size"], 2) == 0.85  # n_d vs L(H*)
    assert round(stats["r_nd_growth"], 3) == -0.007  # n_d vs log|a_N|
    assert (round(stats["anova_F"], 2), round(stats["anova_p"], 3)) == (4.70, 0.014)
    assert {c: round(v, 2) for c, v in stats["lcp_mean"].items()} == {
        "POLY": 1.80, "CFIN": 1.94, "PREC": 5.93, "NONH": 11.20}
    # Berlekamp-Massey on textbook cases: an m-sequence of x^3 + x + 1 has complexity 3
    assert linear_complexity_profile([1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1]) [-1] == 3
    assert linear_complexity_profile([0, 0, 0, 1]) == [0, 0, 0, 4]
