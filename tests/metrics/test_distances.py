"""DL and JW against the reference, an independent oracle, and the thresholded libraries."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import DamerauLevenshtein, JaroWinkler
from rote_benchmark.metrics import normalized_damerau_levenshtein_distance as ref_dl
from rote_benchmark.metrics import normalized_jaro_winkler_distance as ref_jw

from rote_hf.metrics import dl_distance, dl_distances, jaro_similarity, jw_distance, jw_distances
from tests.metrics.oracles import dl_oracle, jw_oracle

# --- the reference's own golden values -------------------------------------------------------


def test_reference_golden_values():
    assert jw_distance("martha", "marhta") == 0.03888888888888886
    assert dl_distance("AB", "BA") == 0.5
    assert jw_distance("AB", "BA") == 1.0
    assert dl_distance("", "") == 0.0 and jw_distance("", "") == 0.0
    assert dl_distance("A", "") == 1.0 and jw_distance("A", "") == 1.0
    assert dl_distance("", "ABC") == 1.0 and jw_distance("", "ABC") == 1.0
    assert dl_distance("ABC", "ABC") == 0.0 and jw_distance("ABC", "ABC") == 0.0


def test_osa_is_the_restricted_distance():
    # CA -> ABC: 3 edits under OSA (no substring edited twice), 2 unrestricted.
    assert dl_distance("CA", "ABC") == 1.0
    assert DamerauLevenshtein.normalized_distance("CA", "ABC") == pytest.approx(2 / 3)
    assert ref_dl("CA", "ABC") == 1.0


# --- exhaustive small cases and random pairs against the reference and the oracle --------------


def _all_strings(alphabet: str, max_len: int):
    for n in range(max_len + 1):
        for t in itertools.product(alphabet, repeat=n):
            yield "".join(t)


def test_exhaustive_short_strings_match_reference_and_oracle():
    # 2,850 ordered pairs over a 2- and 3-letter alphabet with lengths 0..4 and 0..3.
    left = list(_all_strings("AB", 4))
    right = list(_all_strings("ABC", 3))
    pairs = [(a, b) for a in left for b in right]
    a_list, b_list = zip(*pairs)
    dl = dl_distances(a_list, b_list)
    jw = jw_distances(a_list, b_list)
    for k, (a, b) in enumerate(pairs):
        # predictions=a, references=b -> distance(reference, prediction) like the reference
        assert dl[k] == ref_dl(b, a) == dl_oracle(b, a), (a, b)
        assert jw[k] == ref_jw(b, a), (a, b)
        assert jw[k] == pytest.approx(jw_oracle(b, a), abs=1e-15), (a, b)


def test_thousands_of_random_pairs_match_reference_bit_for_bit():
    rng = random.Random(20260601)
    targets, forecasts = [], []
    for _ in range(3000):
        alphabet = "ABCDEFGH"[: rng.randint(2, 8)]
        n = rng.randint(0, 60)
        t = "".join(rng.choice(alphabet) for _ in range(n))
        # half the forecasts are mutated copies (close pairs), half independent draws
        if rng.random() < 0.5:
            f = list(t)
            for _ in range(rng.randint(0, 4)):
                op = rng.randrange(3)
                pos = rng.randint(0, max(0, len(f) - 1))
                if op == 0 and f:
                    f[pos] = rng.choice(alphabet)
                elif op == 1 and len(f) > 1 and pos + 1 < len(f):
                    f[pos], f[pos + 1] = f[pos + 1], f[pos]
                else:
                    f.insert(pos, rng.choice(alphabet))
            f = "".join(f)
        else:
            f = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        targets.append(t)
        forecasts.append(f)
    dl = dl_distances(forecasts, targets)
    jw = jw_distances(forecasts, targets)
    assert dl.tolist() == [ref_dl(t, f) for t, f in zip(targets, forecasts)]
    assert jw.tolist() == [ref_jw(t, f) for t, f in zip(targets, forecasts)]
    # the scalar functions agree with the batch ones bit for bit
    assert [dl_distance(t, f) for t, f in zip(targets, forecasts)] == dl.tolist()
    assert [jw_distance(t, f) for t, f in zip(targets, forecasts)] == jw.tolist()


_text = st.text(alphabet="ABCD", max_size=24)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(_text, _text)
def test_property_against_oracle(a, b):
    d = dl_distance(a, b)
    j = jw_distance(a, b)
    assert d == pytest.approx(dl_oracle(a, b), abs=1e-15)
    assert j == pytest.approx(jw_oracle(a, b), abs=1e-15)
    assert 0.0 <= d <= 1.0 and 0.0 <= j <= 1.0
    assert d == dl_distance(b, a)  # DL is symmetric
    assert (d == 0.0) == (a == b) == (j == 0.0)


def test_token_id_lists_equal_strings():
    a, b = "ABCAB", "BACAA"
    ids = {c: i for i, c in enumerate("ABC")}
    ta, tb = [ids[c] for c in a], [ids[c] for c in b]
    assert dl_distance(ta, tb) == dl_distance(a, b)
    assert jw_distance(ta, tb) == jw_distance(a, b)
    assert dl_distances([ta], [tb]).tolist() == [dl_distance(a, b)]


# --- where the library Jaro-Winkler (0.7 boost threshold) differs -----------------------------


THRESHOLD_PAIRS = [
    # (target, forecast, Jaro, ROTE JW distance, library JW distance)
    ("ABCXYZ", "ABZZZZ", 2 / 3, 0.2666666666666667, 0.33333333333333337),
    ("AAAA", "ABBB", 0.5, 0.45, 0.5),
    ("MARTHA", "MXXXXX", 4 / 9, 0.5, 5 / 9),
    ("ABCDEFGHIJ", "ABCDZZZZZZ", 0.6, 0.24, 0.4),
]


@pytest.mark.parametrize("target, forecast, jaro, ours, library", THRESHOLD_PAIRS)
def test_threshold_pairs_differ_from_rapidfuzz(target, forecast, jaro, ours, library):
    j = jaro_similarity(target, forecast)
    assert j == pytest.approx(jaro) and j <= 0.7
    rote = jw_distance(target, forecast)
    lib = JaroWinkler.distance(target, forecast)  # bonus only when Jaro > 0.7
    assert rote == ref_jw(target, forecast)
    assert lib == pytest.approx(1 - j)  # no bonus at all below the threshold
    assert rote < lib  # the shared prefix still earns ROTE's bonus
    assert rote == pytest.approx(ours, abs=1e-15) and lib == pytest.approx(library, abs=1e-15)


def test_library_agrees_above_threshold_and_without_common_prefix():
    rng = random.Random(7)
    above = differ = 0
    for _ in range(2000):
        a = "".join(rng.choice("ABC") for _ in range(rng.randint(1, 12)))
        b = "".join(rng.choice("ABC") for _ in range(rng.randint(1, 12)))
        jaro = jaro_similarity(a, b)
        ours, lib = jw_distance(a, b), JaroWinkler.distance(a, b)
        if jaro > 0.7 or a[0] != b[0]:
            above += 1
            assert ours == pytest.approx(lib, abs=1e-12), (a, b)
        else:
            differ += 1
            assert ours < lib, (a, b)
    assert above > 500 and differ > 100


# --- input validation --------------------------------------------------------------------------


def test_bad_inputs_name_the_argument():
    with pytest.raises(TypeError, match=r"a must be a str or a list/tuple"):
        dl_distance(12, "A")
    with pytest.raises(TypeError, match=r"b must be a str"):
        jw_distance("A", None)
    with pytest.raises(ValueError, match=r"p must be a number in \[0, 0.25\]"):
        jw_distance("A", "B", p=0.3)
    with pytest.raises(ValueError, match=r"predictions and references must have the same number of rows, got 2 and 1"):
        dl_distances(["A", "B"], ["A"])
    with pytest.raises(ValueError, match=r"must not be empty"):
        jw_distances([], [])
    with pytest.raises(TypeError, match=r"predictions must be a list of rows, got str"):
        dl_distances("AB", ["A", "B"])
    with pytest.raises(TypeError, match=r"references\[1\] must be a str"):
        dl_distances(["A", "B"], ["A", 3])


def test_batch_accepts_numpy_and_returns_float64():
    out = dl_distances(np.array(["AB", "AB"]), ["BA", "AB"])
    assert out.dtype == np.float64 and out.tolist() == [0.5, 0.0]
