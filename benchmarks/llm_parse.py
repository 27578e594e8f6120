"""Throughput of rote_hf.llm.parse_response on a table of reply shapes met in practice.

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

GOOD = '{"next_three": [1, 2, 3], "formula": "a(n) = n", "confidence": 4, "recognized": true, "name_if_recognized": "naturals"}'
ABST = '{"next_three": [5, 8, 13], "formula": "NO_FORMULA_FOUND", "confidence": 2, "recognized": false, "name_if_recognized": ""}'
BIG = 10**40 + 7
#: The shapes the parser tests cover (tests/llm/test_parse.py): plain, prose around, code fences,
#: several objects, drafts, stray braces, huge integers, key variants, broken or missing JSON.
TABLE = [
    GOOD, ABST, "Looking at this sequence, the differences are 1.\n\n" + GOOD,
    GOOD + "\n\nI am fairly sure because the differences are constant.", "Answer:\n" + GOOD + "\nHope this helps!",
    "```json\n" + GOOD + "\n```", "```\n" + ABST + "\n```", "Here you go:\n```json\n" + GOOD + "\n```\nDone.",
    ABST + "\n" + GOOD, 'Draft: {"next_three": [0, 0, 0]} ... final: ' + GOOD, GOOD + " Note: {x} is not a set.",
    '{"next_three": [%d, %d, %d], "formula": "x", "confidence": 5, "recognized": true}' % (BIG, -BIG, BIG + 1),
    '{"next_three": ["%d", "2", "3"], "formula": "x", "confidence": 5, "recognized": true}' % BIG,
    '{"next_3": [1, 2, 3], "formula": "x", "confidence": 4, "recognized": "yes"}',
    '{"next_three": [1, 2, 3], "formula": "x", "confidence": "4/5", "recognized": "No"}',
    '{"next_three": [1, 2, 3], "formula": "x", "confidence": 4, "recognized": true',
    "I cannot determine the rule.", "", '{"next_three": "1, 2, 3"}', "{'next_three': [1, 2, 3]}",
]


def rate(texts: list, repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        for t in texts:
            parse_response(t)
    return repeat * len(texts) / (time.process_time() - start)


if __name__ == "__main__":
    table = TABLE
    long_reply = ("Let me look at the differences {a_n} and the set {1, 2 " * 140)[:8000] + "\n" + GOOD
    print(f"table of {len(table)} replies: {rate(table, 50):,.0f} replies/s (CPU)")
    print(f"8,000-character reasoning reply: {rate([long_reply], 200):,.0f} replies/s (CPU)")
