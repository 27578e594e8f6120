"""Exhaustive byte-equality sweep: all 14 tasks x seeds 0..9 x small, medium vs cogscale 0.1.1.

    PYTHONPATH=/tmp/cs011/x:. python benchmarks/cogscale_equality.py > benchmarks/cogscale_equality.md

cross_situation is compared twice: ``column_order="legacy"`` must equal the reference exactly
(same process, same hash seed), and the default alphabetical order must equal the reference
with its columns sorted by word. To keep the sweep short, the reference's two-situation
grammar object (the 56 s, 4 GB part at medium) is built once per vocabulary and reused; the
reference's own sampling code runs unchanged on it.
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rote_hf.cogscale import TASKS, build_task, resolve_params  # noqa: E402
from benchmarks.cogscale_reference import assert_same, legacy_columns_to_alphabetical, reference_build  # noqa: E402


def _cache_reference_csl() -> None:
    module = importlib.import_module("cogscale.tasks")
    original = module.TwoSituationCSLDataset
    cache: dict = {}

    def cached(objects, colors, positions):
        key = (tuple(objects), tuple(colors), tuple(positions))
        if key not in cache:
            cache[key] = original(objects=objects, colors=colors, positions=positions)
        return cache[key]

    module.TwoSituationCSLDataset = cached


def main() -> None:
    _cache_reference_csl()
    print("| difficulty | task | seeds | result | reference s (all seeds) | ours s (all seeds) |")
    print("|---|---|---|---|---|---|")
    failures = 0
    for difficulty in ("small", "medium"):
        for name in TASKS:
            ref_s = ours_s = 0.0
            status = "equal"
            for seed in range(10):
                t0 = time.perf_counter()
                ref = reference_build(name, difficulty, seed)
                t1 = time.perf_counter()
                kwargs = {"column_order": "legacy"} if name == "cross_situation" else {}
                ours = build_task(name, difficulty, seed, **kwargs)
                t2 = time.perf_counter()
                ref_s, ours_s = ref_s + t1 - t0, ours_s + t2 - t1
                try:
                    assert_same(ours, ref, context=f"{name} {difficulty} seed {seed}")
                    if name == "cross_situation":
                        canon = build_task(name, difficulty, seed)
                        p = resolve_params(name, difficulty)
                        for split in ("train", "valid", "test"):
                            want = legacy_columns_to_alphabetical(np.asarray(ref[f"X_{split}"]), p)
                            assert canon[f"X_{split}"].tobytes() == want.tobytes(), f"canonical X_{split} seed {seed}"
                        status = "equal (legacy exact; alphabetical = reordered reference)"
                except AssertionError as exc:
                    status, failures = f"DIFFERS: {exc}", failures + 1
                    break
            print(f"| {difficulty} | {name} | 0..9 | {status} | {ref_s:.2f} | {ours_s:.2f} |", flush=True)
    print(f"\n{'all equal' if not failures else f'{failures} task(s) differ'}")


if __name__ == "__main__":
    main()
