"""The finite-difference baseline served over our own OpenAI-compatible server."""

from __future__ import annotations

import threading

import pytest

from rote_hf.llm import (
    DifferenceResponder, OpenAICompatibleResponder, SampleItem, evaluate_llm, make_responder, make_server,
    parse_response,
)
from rote_hf.llm.prompt import PromptConfig, build_messages
from rote_hf.llm.serve import extrapolate


def test_extrapolate():
    assert extrapolate([n * n for n in range(20)], 3) == ([400, 441, 484], 2)
    assert extrapolate([5] * 20, 2) == ([5, 5], 0)
    assert extrapolate([n**4 - 3 * n for n in range(20)], 1) == ([20**4 - 60], 4)
    fib = [0, 1]
    while len(fib) < 20:
        fib.append(fib[-1] + fib[-2])
    assert extrapolate(fib, 3) == ([fib[-1] + k * (fib[-1] - fib[-2]) for k in (1, 2, 3)], None)


def test_baseline_through_http(monkeypatch, tmp_path):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    cubes = [n**3 for n in range(23)]
    fib = [0, 1]
    while len(fib) < 23:
        fib.append(fib[-1] + fib[-2])
    items = [SampleItem("A000578", "clean", tuple(cubes[:20]), tuple(cubes[20:])),
             SampleItem("A000045", "wilderness", tuple(fib[:20]), tuple(fib[20:]))]
    server = make_server(make_responder("difference"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        client = OpenAICompatibleResponder(url, "baseline:differences")
        report = evaluate_llm(items, client, results=tmp_path)
    finally:
        server.shutdown()
        server.server_close()
    clean, wild = report.summary["clean"], report.summary["wilderness"]
    assert (clean["accuracy"], clean["abstention_rate"], clean["mean_confidence"]) == (1.0, 0.0, 5.0)
    assert (wild["accuracy"], wild["abstention_rate"], wild["mean_confidence"]) == (0.0, 1.0, 1.0)
    assert wild["confabulation_rate"] == 0.0
    direct = DifferenceResponder().respond(build_messages(range(1, 9), PromptConfig(n_shown=8, k_next=5)))
    assert parse_response(direct, k_next=5).next_terms == (9, 10, 11, 12, 13)
    with pytest.raises(ValueError, match="max_order"):
        DifferenceResponder(max_order=-1)


def test_rote_hf_llm_serve_command(monkeypatch):
    import os
    import subprocess
    import sys

    from huggingface_hub import constants

    from tests.helpers import REPO_ROOT

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    proc = subprocess.Popen([sys.executable, "-m", "rote_hf.cli", "llm-serve", "--port", "0"], cwd=REPO_ROOT,
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    try:
        line = proc.stdout.readline()
        assert line.startswith("serving baseline:differences at http://127.0.0.1:")
        url = line.split()[3]
        reply = OpenAICompatibleResponder(url, "x").respond(build_messages([3 * n + 1 for n in range(20)]))
        assert parse_response(reply).next_terms == (61, 64, 67)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_agreement_by_stratum_on_records():
    import json

    from rote_hf.llm import agreement_by_stratum, run_queries

    class Const:
        model_id = "const"

        def respond(self, messages):
            return json.dumps({"next_three": [400, 441, 484], "formula": "n^2", "confidence": 3})

    squares = SampleItem("A000290", "clean", tuple(n * n for n in range(20)), (400, 441, 484))
    cubes = SampleItem("A000578", "clean", tuple(n**3 for n in range(20)), (8000, 9261, 10648))
    runs = {name: run_queries([squares, cubes], r, concurrency=1)
            for name, r in (("a", DifferenceResponder()), ("b", DifferenceResponder()), ("c", Const()))}
    got = agreement_by_stratum(runs)["clean"]
    assert (got["n_items"], got["unanimous"], got["majority"]) == (2, 1, 2)
