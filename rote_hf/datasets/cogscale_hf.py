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

from rote_hf.cogscale.build import build_task, check_seed, get_task, iter_chunks, resolve_params
from rote_hf.cogscale.registry import SampleTask
from rote_hf.cogscale.stream import stream_samples

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


def _list2d(ext_type, A: np.ndarray):
    """``[n, steps, F]`` array as an Arrow ``Array2D`` extension array (list<list<value>>)."""
    import pyarrow as pa

    n, steps, width = A.shape
    values = pa.array(np.ascontiguousarray(A).reshape(-1))
    inner = pa.ListArray.from_arrays(pa.array(np.arange(0, n * steps * width + 1, width, dtype=np.int32)), values)
    outer = pa.ListArray.from_arrays(pa.array(np.arange(0, n * steps + 1, steps, dtype=np.int32)), inner)
    return pa.ExtensionArray.from_storage(ext_type, outer)


def _table(schema, X: np.ndarray, Y: np.ndarray, T: np.ndarray):
    import pyarrow as pa

    n, k = T.shape
    timesteps = pa.ListArray.from_arrays(pa.array(np.arange(0, n * k + 1, k, dtype=np.int32)), pa.array(T.reshape(-1)))
    columns = [_list2d(schema.field("inputs").type, X), _list2d(schema.field("targets").type, Y), timesteps]
    return pa.Table.from_arrays(columns, schema=schema)


def split_tables(name: str, difficulty: str = "small", seed: int = 0, split: str = "train", **params: Any) -> Iterator[Any]:
    """One split (``train``/``validation``/``test``) as ``pyarrow.Table`` chunks (schema ``features(...).arrow_schema``),
    built straight from the generated arrays: one table per generation chunk (about 32 MB).

    The RNG stream runs through the earlier splits too (their draws only, not their encoding)
    because the reference splits are consecutive pieces of one stream.
    """
    seed = check_seed(seed)
    ref_split = {v: k for k, v in HF_SPLITS.items()}.get(split)
    if ref_split is None:
        raise ValueError(f"split must be one of {list(HF_SPLITS.values())}, got {split!r}")
    schema = features(name, difficulty, **params).arrow_schema
    task = get_task(name)
    if not isinstance(task, SampleTask):
        data = build_task(name, difficulty, seed, **params)
        yield _table(schema, data[f"X_{ref_split}"], data[f"Y_{ref_split}"], data[f"T_{ref_split}"])
        return
    p = resolve_params(name, difficulty, **params)
    for _, X, Y, T in iter_chunks(task, p, seed, only=ref_split):
        yield _table(schema, X, Y, T)


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
    (float64 ``[N, steps, n_in]``, float64 ``[N, steps, n_out]``, int64 ``[N, n_pred]``).

    Reads the Arrow buffers directly (no Python objects per value), so it is fast at large.
    """
    table = split.with_format("arrow")[:]
    n = table.num_rows
    out = []
    for column in ("inputs", "targets"):
        col = table.column(column).combine_chunks()
        rows = col.storage if hasattr(col, "storage") else col
        steps = rows.value_lengths().to_numpy(zero_copy_only=False)
        if n and not (steps == steps[0]).all():
            raise ValueError(f"split has rows of different lengths in {column!r}; convert row by row")
        values = rows.flatten().flatten().to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
        out.append(values.reshape(n, int(steps[0]) if n else 0, -1) if n else values.reshape(0, 0, 0))
    ts = table.column("timesteps").combine_chunks()
    T = ts.flatten().to_numpy(zero_copy_only=False).astype(np.int64, copy=False).reshape(n, -1)
    return out[0], out[1], T
