"""Time and peak memory of one ``build_task`` call, ours or the reference's, in a fresh process.

Usage (one measurement, prints one JSON line):
    python benchmarks/cogscale_measure.py {ours|reference} TASK DIFFICULTY [SEED]

Peak memory is the process's peak RSS (``ru_maxrss``) minus the RSS right before the call
(after imports), so it counts what the call itself allocated, temporaries included.
``arrays_mb`` is the size of the returned arrays. Run ``reference`` with the cogscale 0.1.x
package importable (``PYTHONPATH=<unpacked 0.1.1 wheel>``).
"""

from __future__ import annotations

import json
import resource
import sys
import time


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def main() -> None:
    impl, task, difficulty = sys.argv[1:4]
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    import numpy as np

    if impl == "ours":
        from rote_hf.cogscale import build_task
    else:
        from cogscale import build_task
    # warm NumPy's lazy paths (first Generator, fancy indexing, choice) for both implementations
    warm = np.random.default_rng(0)
    np.eye(3)[warm.integers(0, 3, size=5)]
    warm.choice(10, 3, replace=False)
    warm.permutation(4)
    before = rss_mb()
    start = time.perf_counter()
    data = build_task(task, difficulty, seed=seed)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    arrays = sum(v.nbytes for k, v in data.items() if k != "category") / 2**20
    print(json.dumps({"impl": impl, "task": task, "difficulty": difficulty, "seconds": round(seconds, 4),
                      "peak_mb": round(peak - before, 1), "arrays_mb": round(arrays, 1)}))


if __name__ == "__main__":
    main()
