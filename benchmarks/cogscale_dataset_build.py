"""Time and peak RSS of building single ``rote/cogscale`` configs (the streamed Parquet path).

    PYTHONPATH=. python benchmarks/cogscale_dataset_build.py [CONFIG ...]

Each config is built by ``rote-hf build cogscale --config CONFIG`` in a child process into a
temporary mirror; the child's peak RSS comes from ``wait4``. Goal: < 2 GB whatever the size.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT = ["discrete_pattern_completion-large", "simple_copy-large", "cross_situation-large", "bracket_matching-large"]


def main() -> None:
    configs = sys.argv[1:] or DEFAULT
    print("| config | seconds | peak RSS MB | Parquet MB |\n|---|---|---|---|")
    for config in configs:
        with tempfile.TemporaryDirectory() as root:
            start = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "rote_hf.cli", "build", "cogscale", "--root", root,
                                     "--config", config, "--quiet"], stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(proc.pid, 0)
            seconds = time.perf_counter() - start
            if status != 0:
                print(f"| {config} | failed ({status}) | | |")
                continue
            size = sum(p.stat().st_size for p in Path(root).rglob("*.parquet")) / 2**20
            print(f"| {config} | {seconds:.1f} | {usage.ru_maxrss / 1024:.0f} | {size:.1f} |", flush=True)


if __name__ == "__main__":
    main()
