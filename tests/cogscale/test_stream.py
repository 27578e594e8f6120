"""The unbounded stream: sample i depends only on (seed, i) (its IterableDataset view: tests/datasets)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rote_hf.cogscale import build_task, stream_samples


def _take(it, n):
    return list(itertools.islice(it, n))


@pytest.mark.parametrize("name", ["bracket_matching", "cross_situation", "selective_copy", "continuous_pattern_completion"])
def test_sample_i_depends_only_on_seed_and_i(name: str) -> None:
    first = _take(stream_samples(name, "small", 7), 6)
    again = list(stream_samples(name, "small", 7, start=3, stop=6))
    assert [r["index"] for r in again] == [3, 4, 5]
    for a, b in zip(first[3:], again):
        for key in ("inputs", "targets", "timesteps"):
            assert a[key].tobytes() == b[key].tobytes()
    other = _take(stream_samples(name, "small", 8), 6)
    assert any(a["inputs"].tobytes() != b["inputs"].tobytes() for a, b in zip(first, other))


def test_stream_shapes_match_build_task_and_are_fresh() -> None:
    fixed = build_task("simple_copy", "small", 0)
    rows = _take(stream_samples("simple_copy", "small", 0), 50)
    assert rows[0]["inputs"].shape == fixed["X_train"].shape[1:] and rows[0]["timesteps"].dtype == np.int64
    fixed_bytes = {x.tobytes() for x in fixed["X_train"]}
    assert sum(r["inputs"].tobytes() in fixed_bytes for r in rows) <= 1  # 3^22 sequences: fresh data
    assert len({r["inputs"].tobytes() for r in rows}) == 50


def test_stream_refuses_forecasting() -> None:
    with pytest.raises(ValueError, match="multi-sample task"):
        next(stream_samples("sinus_forecasting"))
