"""Throughput of rote_hf.llm.parse_response on the reply table of tests/llm/test_parse.py.

    PYTHONPATH=$PWD OMP_NUM_THREADS=1 python benchmarks/llm_parse.py

Prints replies per second (CPU time) for the whole table and for a long reasoning reply
(8,000 characters of prose with stray braces, then the JSON), the worst case of the scanner.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rote_hf.llm import parse_response  # noqa: E402
from tests.llm.test_parse import CASES, GOOD  # noqa: E402


def rate(texts: list, repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        for t in texts:
            parse_response(t)
    return repeat * len(texts) / (time.process_time() - start)


if __name__ == "__main__":
    table = [c[1] for c in CASES]
    long_reply = ("Let me look at the differences {a_n} and the set {1, 2 " * 140)[:8000] + "\n" + GOOD
    print(f"table of {len(table)} replies: {rate(table, 50):,.0f} replies/s (CPU)")
    print(f"8,000-character reasoning reply: {rate([long_reply], 200):,.0f} replies/s (CPU)")
