"""OEIS input: the stripped parser on the spec's fixture and its edge cases (spec §8.2-8.3)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from rote_hf.mdl.oeis_io import (
    format_stripped,
    parse_stripped_line,
    read_bfile,
    read_names,
    read_stripped,
    sample_records,
)

FIXTURE = Path(__file__).parent / "fixtures" / "stripped_sample.txt"


def test_fixture_counts_and_terms():
    records, rep = read_stripped(FIXTURE)
    by = {r.anum: r.terms for r in records}
    assert [r.anum for r in records] == ["A000002", "A000045", "A000108", "A999998", "A001057"]
    assert [len(by[a]) for a in ("A000002", "A000045", "A000108", "A999998", "A001057")] == [45, 41, 31, 0, 33]
    assert by["A000045"][-1] == 102334155 and by["A000108"][-1] == 3814986502092304
    assert by["A001057"][:5] == (0, 1, -1, 2, -2)
    assert (rep.lines, rep.headers, rep.empty, rep.kept, rep.malformed) == (9, 4, 1, 5, 0)


def test_gzip_and_plain_read_the_same(tmp_path):
    gz = tmp_path / "stripped.gz"
    gz.write_bytes(gzip.compress(FIXTURE.read_bytes()))
    plain = tmp_path / "stripped_no_suffix"
    plain.write_bytes(FIXTURE.read_bytes())
    assert read_stripped(gz)[0] == read_stripped(plain)[0] == read_stripped(FIXTURE)[0]


def test_min_terms_filters_and_counts():
    records, rep = read_stripped(FIXTURE, min_terms=34)
    assert [r.anum for r in records] == ["A000002", "A000045"]
    assert rep.short == 3


def test_edge_cases(tmp_path):
    text = (
        "# header\r\n"
        "\r\n"
        "A999999 ,1,x,3,\r\n"
        "A1000000 ,5,6,7,\r\n"
        "A000001 ,0,1,\r\n"
        "B000001 ,1,2,\r\n"
        "A000004 ,,\r\n"
        "A000005\r\n"
    )
    p = tmp_path / "edge.txt"
    p.write_bytes(text.encode())
    records, rep = read_stripped(p)  # reject (default): the bad line is dropped and counted
    assert [(r.anum, r.terms) for r in records] == [("A1000000", (5, 6, 7)), ("A000001", (0, 1)), ("A000004", ())]
    assert (rep.blank, rep.headers, rep.malformed, rep.empty) == (1, 1, 3, 1)
    stopped, rep2 = read_stripped(p, on_bad="stop")  # the authors' rule: keep the terms before "x"
    assert stopped[0].anum == "A999999" and stopped[0].terms == (1,)
    assert rep2.truncated == 1 and rep2.malformed == 2
    assert parse_stripped_line("A000045 ,-3,+4,", on_bad="reject")[0].terms == (-3, 4)


def test_huge_terms_beyond_the_digit_limit(tmp_path):
    big = "9" * 6000
    p = tmp_path / "big.txt"
    p.write_text(f"A000001 ,1,{big},\n")
    records, _ = read_stripped(p)
    assert records[0].terms[1] == 10**6000 - 1


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="on_bad must be one of"):
        read_stripped(FIXTURE, on_bad="skip")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_stripped(tmp_path / "missing.gz")


def test_sampling_is_seeded_and_filtered():
    records, _ = read_stripped(FIXTURE)
    a = sample_records(records, min_terms=31, limit=3, seed=0)
    assert {r.anum for r in a} <= {"A000002", "A000045", "A000108", "A001057"} and len(a) == 3
    assert a == sample_records(records, min_terms=31, limit=3, seed=0)
    assert {r.anum for r in sample_records(records, min_terms=31, limit=None, seed=1)} == {
        "A000002", "A000045", "A000108", "A001057"}


def test_round_trip_names_and_bfile(tmp_path):
    records, _ = read_stripped(FIXTURE)
    p = tmp_path / "rt.txt"
    p.write_text(format_stripped(records, header=["round trip"]))
    assert read_stripped(p)[0] == records
    names = tmp_path / "names"
    names.write_text("# header\nA000045 Fibonacci numbers: F(n) = F(n-1) + F(n-2).\n")
    assert read_names(names) == {"A000045": "Fibonacci numbers: F(n) = F(n-1) + F(n-2)."}
    b = tmp_path / "b000045.txt"
    b.write_text("# comment\n0 0\n1 1\n2 1\n\n3 2\n")
    assert read_bfile(b) == (0, (0, 1, 1, 2))
    b.write_text("0 0\n2 1\n")
    with pytest.raises(ValueError, match="does not follow"):
        read_bfile(b)


def test_strata_and_summary_denominators():
    from rote_hf.mdl.strata import format_summary, n_id_bin, stratum, summarize_regimes

    rows = (
        [{"regime": "clean", "discovery_point": 7, "n_id": 7, "genuine_wilderness": False}] * 8
        + [{"regime": "clean", "discovery_point": 6, "n_id": 5, "genuine_wilderness": False}] * 2
        + [{"regime": "revising", "discovery_point": 9, "n_id": 12, "genuine_wilderness": False}] * 2
        + [{"regime": "prefix-only", "discovery_point": 8, "n_id": None, "genuine_wilderness": True}] * 3
        + [{"regime": "prefix-only", "discovery_point": 8, "n_id": None, "genuine_wilderness": False}] * 1
        + [{"regime": "no-fit", "discovery_point": None, "n_id": None, "genuine_wilderness": False}] * 4
    )
    s = summarize_regimes(rows)
    assert s["regimes"] == {"clean": 10, "revising": 2, "prefix-only": 4, "no-fit": 4}
    assert (s["revision_rate"]["num"], s["revision_rate"]["den"]) == (2, 12)
    assert (s["revision_rate_inflated"]["num"], s["revision_rate_inflated"]["den"]) == (6, 16)
    assert (s["wilderness_genuine_share"]["num"], s["wilderness_genuine_share"]["den"]) == (3, 4)
    assert (s["no_full_operator_share"]["num"], s["no_full_operator_share"]["den"]) == (4, 16)
    assert s["nid_exact_nonrevisers"]["share"] == 0.8
    assert "- revision_rate: 2/12 = 16.7 %" in format_summary(s)
    assert [stratum(r) for r in rows[11:14]] == ["revising", "wilderness", "wilderness"]
    assert stratum(rows[15]) == "prefix-only-other"
    assert [n_id_bin(k) for k in (5, 7, 8, 10, 11, None)] == ["<=7", "<=7", "8-10", "8-10", ">=11", None]
    with pytest.raises(ValueError, match="regime"):
        stratum({"regime": "holonomic"})
