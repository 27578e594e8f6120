"""The sweep's per-sequence rows: regimes, the truncation audit, errors that never stop a sweep."""

from __future__ import annotations

import json

import pytest

from rote_hf.mdl.controls import deceptive
from rote_hf.mdl.oeis_io import OeisRecord
from rote_hf.mdl.sweep import MdlSweepConfig, analyse, iter_sweep, shard


def test_rows_for_each_regime_and_the_audit():
    fib = [0, 1]
    while len(fib) < 45:
        fib.append(fib[-1] + fib[-2])
    row = analyse("A000045", fib)
    assert (row["regime"], row["discovery_point"], row["n_id"], row["L_H"], row["error"]) == ("clean", 7, 7, 22, None)
    assert json.loads(row["operator"]) == [[1], [1], [-1]] and row["n_available"] == 45
    # D_7 (period 15) over 32 terms: spurious fits, refuted at 31, no operator at full length ->
    # prefix-only; with all 60 terms the period-15 operator is found, so it is not genuine wilderness.
    d7 = deceptive(7, 60)
    row = analyse("D7", d7, MdlSweepConfig(budget=32, max_order=18, max_degree=1))
    assert row["regime"] == "prefix-only" and row["discovery_point"] == 7
    assert row["audit_operator"] is not None and row["genuine_wilderness"] is False
    # with r <= 6 the period-15 operator is out of reach: still none on all 45 terms -> genuine
    row = analyse("D7", d7[:45], MdlSweepConfig(budget=32, max_order=6, max_degree=1))
    assert (row["regime"], row["audit_operator"], row["genuine_wilderness"]) == ("prefix-only", None, True)


def test_errors_become_rows_not_crashes():
    rows = list(iter_sweep([OeisRecord("A1", (1, 2, 3)), OeisRecord("A2", tuple(range(25)))]))
    assert rows[0]["error"].startswith("ValueError: terms must have at least min_terms=20")
    assert rows[1]["error"] is None and rows[1]["regime"] == "clean"


def test_huge_terms_are_swept():
    terms = [10**5000 * 2**k for k in range(24)]  # geometric with a 5000-digit scale
    row = analyse("Abig", terms)
    assert row["regime"] == "clean" and row["order"] == 1
    assert json.dumps(row)  # serialisable (no 4300-digit limit surprise)


def test_shard_and_config_validation():
    recs = [OeisRecord(f"A{k:06d}", ()) for k in range(7)]
    assert [r.anum for r in shard(recs, 1, 3)] == ["A000001", "A000004"]
    with pytest.raises(ValueError, match="shard"):
        shard(recs, 3, 3)
    with pytest.raises(ValueError, match="budget"):
        MdlSweepConfig(budget=5)
