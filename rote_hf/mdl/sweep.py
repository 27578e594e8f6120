"""The OEIS sweep: the learner on many sequences at a fixed term budget, in parallel.

One row per sequence (:func:`analyse`): the spectrum landmarks on the first ``budget`` terms,
the full-length operator, and the truncation audit (for prefix-only sequences, the full-length
guess re-run on *all* available terms: "genuine" wilderness means still no operator with at
least 40 terms available).

:func:`run_sweep` spreads sequences over processes (``ProcessPoolExecutor``), can take one
shard ``i/k`` of the input by index (so a cluster launcher can split it across machines),
appends one JSON line per finished sequence and skips A-numbers already in the output file
(resumable). A failure on one sequence becomes a row with an ``error`` field, never a crash.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from rote_hf.mdl.bigint import dumps_int_rows
from rote_hf.mdl.guess import fit
from rote_hf.mdl.oeis_io import OeisRecord
from rote_hf.mdl.spectrum import spectrum

GENUINE_MIN_TERMS = 40


@dataclass(frozen=True)
class MdlSweepConfig:
    """Learner settings of a sweep (the paper's OEIS run: 30 terms, r <= 6, d <= 4, loose)."""

    budget: int = 30
    min_terms: int = 20
    max_order: int = 6
    max_degree: int = 4
    encoding: str = "loose"
    backend: str = "flint"
    audit: bool = True

    def __post_init__(self) -> None:
        if self.budget < 7:
            raise ValueError(f"budget must be >= 7 terms, got {self.budget}")
        if self.min_terms < 7:
            raise ValueError(f"min_terms must be >= 7 terms, got {self.min_terms}")


def analyse(anum: str, terms: Sequence[int], config: MdlSweepConfig = MdlSweepConfig()) -> dict:
    """The per-sequence row of the sweep (JSON-friendly; big integers as strings)."""
    row: dict = {"anum": anum, "n_available": len(terms)}
    try:
        if len(terms) < config.min_terms:
            raise ValueError(f"terms must have at least min_terms={config.min_terms} terms, got {len(terms)}")
        used = list(terms[: config.budget])
        sp = spectrum(
            used, max_order=config.max_order, max_degree=config.max_degree,
            encoding=config.encoding, backend=config.backend,
        )
        h = sp.hypothesis
        row.update(sp.summary())
        row["operator"] = None if h is None else dumps_int_rows(h.coeffs)
        row["recurrence"] = None if h is None else h.recurrence()
        audit_op = None
        if config.audit and sp.regime == "prefix-only" and len(terms) > len(used):
            full = fit(terms, config.max_order, config.max_degree, config.encoding, backend=config.backend)
            audit_op = None if full is None else dumps_int_rows(full.coeffs)
        row["audit_operator"] = audit_op
        row["genuine_wilderness"] = bool(
            sp.regime == "prefix-only" and audit_op is None and len(terms) >= GENUINE_MIN_TERMS and config.audit
        )
        row["error"] = None
    except (ValueError, TypeError, ArithmeticError, MemoryError) as exc:
        row["error"] = f"{type(exc).__name__}: {exc}"
    return row


def _analyse_star(args: tuple[str, tuple[int, ...], MdlSweepConfig]) -> dict:
    return analyse(*args)


def shard(records: Sequence[OeisRecord], index: int, count: int) -> list[OeisRecord]:
    """Shard ``index`` of ``count`` by position: records[index::count]."""
    if count < 1 or not 0 <= index < count:
        raise ValueError(f"shard must satisfy 0 <= index < count, got {index}/{count}")
    return list(records[index::count])


def done_anums(out_path: Path) -> set[str]:
    """A-numbers already in a sweep output file (a torn last line is ignored)."""
    if not out_path.exists():
        return set()
    out = set()
    with open(out_path, encoding="utf-8") as fh:
        for line in fh:
            try:
                out.add(json.loads(line)["anum"])
            except (json.JSONDecodeError, KeyError):
                continue
    return out


def iter_sweep(
    records: Iterable[OeisRecord], config: MdlSweepConfig = MdlSweepConfig(), *, workers: int = 1, chunksize: int = 8
) -> Iterator[dict]:
    """Rows for ``records`` in input order, computed on ``workers`` processes (1: in-process)."""
    tasks = ((r.anum, r.terms, config) for r in records)
    if workers <= 1:
        yield from map(_analyse_star, tasks)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_analyse_star, tasks, chunksize=chunksize)


def run_sweep(
    records: Sequence[OeisRecord],
    out_path: str | os.PathLike,
    config: MdlSweepConfig = MdlSweepConfig(),
    *,
    workers: int = 1,
    shard_index: int = 0,
    shard_count: int = 1,
    progress: bool = True,
) -> dict:
    """Sweep one shard of ``records`` into the JSON-lines file ``out_path``, resuming.

    Returns counts: ``{"todo", "skipped_done", "written", "errors"}``.
    """
    out = Path(out_path)
    mine = shard(records, shard_index, shard_count)
    done = done_anums(out)
    todo = [r for r in mine if r.anum not in done]
    counts = {"todo": len(todo), "skipped_done": len(mine) - len(todo), "written": 0, "errors": 0}
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = iter_sweep(todo, config, workers=workers)
    if progress:
        from tqdm.auto import tqdm

        rows = tqdm(rows, total=len(todo), desc=f"mdl sweep {shard_index}/{shard_count}", unit="seq")
    with open(out, "a", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, sort_keys=True) + "\n")
            fh.flush()
            counts["written"] += 1
            counts["errors"] += row["error"] is not None
    return counts
