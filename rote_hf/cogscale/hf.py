"""Hugging Face ``datasets`` views of the tasks: explicit features, chunked row generators,
an unbounded ``IterableDataset`` and the way back to the reference arrays.

One row = one sample: ``inputs`` ``[steps, n_in]`` float64, ``targets`` ``[steps, n_out]``
float64 and ``timesteps`` ``[n_pred]`` int64 (a row of the reference T). The forecasting tasks
have one row per split (their splits are nested prefixes of one sequence). ``datasets`` is
imported lazily so that generating arrays never needs it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from .build import build_task, check_seed, get_task, iter_chunks, resolve_params
from .registry import SampleTask
from .stream import stream_samples

if TYPE_CHECKING:  # pragma: no cover
    import datasets

HF_SPLITS = {"train": "train", "valid": "validation", "test": "test"}  # reference name -> HF name
COLUMNS = ("inputs", "targets", "timesteps")


def feature_widths(name: str, difficulty: str = "small", **params: Any) -> tuple[int, int]:
    """``(n_in, n_out)``: input and target feature counts of a task configuration."""
    task = get_task(name)
    p = resolve_params(name, difficulty, **params)
    if isinstance(task, SampleTask):
        lay = task.layout(p)
        return lay.n_in, lay.n_out
    return (3, 3) if name == "chaotic_forecasting" else (1, 1)


def features(name: str, difficulty: str = "small", **params: Any) -> "datasets.Features":
    """Explicit features: ``Array2D((None, n_in))``/``Array2D((None, n_out))`` float64 and a
    list of int64 timesteps. The time axis is variable (forecasting splits differ in length)."""
    import datasets

    n_in, n_out = feature_widths(name, difficulty, **params)
    return datasets.Features({
        "inputs": datasets.Array2D(shape=(None, n_in), dtype="float64"),
        "targets": datasets.Array2D(shape=(None, n_out), dtype="float64"),
        "timesteps": datasets.List(datasets.Value("int64")),
    })


def split_rows(
    name: str, difficulty: str = "small", seed: int = 0, split: str = "train", **params: Any
) -> Iterator[dict[str, np.ndarray]]:
    """Rows of one split (``train``/``validation``/``test``), generated chunk by chunk.

    The RNG stream runs through the earlier splits too (only their draws, cheap) because the
    reference splits are consecutive pieces of one stream.
    """
    seed = check_seed(seed)
    ref_split = {v: k for k, v in HF_SPLITS.items()}.get(split)
    if ref_split is None:
        raise ValueError(f"split must be one of {list(HF_SPLITS.values())}, got {split!r}")
    task = get_task(name)
    p = resolve_params(name, difficulty, **params)
    if not isinstance(task, SampleTask):
        data = build_task(name, difficulty, seed, **params)
        yield {"inputs": data[f"X_{ref_split}"][0], "targets": data[f"Y_{ref_split}"][0], "timesteps": data[f"T_{ref_split}"][0]}
        return
    for chunk_split, X, Y, T in iter_chunks(task, p, seed, only=ref_split):
        if chunk_split == ref_split:
            for x, y, t in zip(X, Y, T):
                yield {"inputs": x, "targets": y, "timesteps": t}


def iterable_dataset(name: str, difficulty: str = "small", seed: int = 0, **params: Any) -> "datasets.IterableDataset":
    """An unbounded ``datasets.IterableDataset`` of fresh samples (see :func:`stream_samples`)."""
    import datasets

    def gen(name: str, difficulty: str, seed: int, params: dict) -> Iterator[dict[str, Any]]:
        for row in stream_samples(name, difficulty, seed, **params):
            yield {k: row[k] for k in COLUMNS}

    return datasets.IterableDataset.from_generator(
        gen, features=features(name, difficulty, **params),
        gen_kwargs={"name": name, "difficulty": difficulty, "seed": check_seed(seed), "params": dict(params)},
    )


def to_arrays(split: "datasets.Dataset") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(X, Y, T)`` of a loaded split, exactly the arrays of :func:`build_task`
    (float64 ``[N, steps, n_in]``, float64 ``[N, steps, n_out]``, int64 ``[N, n_pred]``)."""
    table = split.with_format("arrow")[:]
    out = []
    for column, dtype in (("inputs", np.float64), ("targets", np.float64), ("timesteps", np.int64)):
        rows = table.column(column).to_pylist()
        out.append(np.asarray(rows, dtype=dtype))
    return out[0], out[1], out[2]
