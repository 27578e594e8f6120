"""eval_suite/llm_query.py run as a new user would: a mirror folder rote/oeis-mdl, a server, a token."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from rote_hf.results import ResultStore
from tests.helpers import REPO_ROOT
from tests.llm.stub_server import StubServer, scripted

TOKEN = "hf_cli_SECRET_123"
SHOWN = {  # A-number -> (stratum, 23 terms)
    "A000045": ("clean", [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181,
                          6765, 10946, 17711]),
    "A000290": ("clean", [n * n for n in range(23)]),
    "A000027": ("clean", list(range(1, 24))),
    "A000578": ("revising", [n**3 for n in range(23)]),
    "A000002": ("wilderness", [1, 2, 2, 1, 1, 2, 1, 2, 2, 1, 2, 2, 1, 1, 2, 1, 1, 2, 2, 1, 2, 1, 1]),
}


def _mirror(root):
    from datasets import Dataset, Features, List, Value

    from rote_hf.mirror.repo import write_dataset_repo

    rows = [{"anum": a, "stratum": s, "shown": [str(t) for t in t23[:20]], "answer": [str(t) for t in t23[20:]],
             "seed": 0} for a, (s, t23) in sorted(SHOWN.items(), key=lambda kv: (kv[1][0], kv[0]))]
    feats = Features({"anum": Value("string"), "stratum": Value("string"), "shown": List(Value("string")),
                      "answer": List(Value("string")), "seed": Value("int32")})
    write_dataset_repo(root, "oeis-mdl", {"llm-eval": {"test": Dataset.from_list(rows, features=feats)}},
                       "Test sample.", default_config="llm-eval")


def _reply(terms, formula, conf, recog):
    return json.dumps({"next_three": terms, "formula": formula, "confidence": conf, "recognized": recog,
                       "name_if_recognized": ""})


def test_cli_against_local_server(tmp_path):
    _mirror(tmp_path)
    first = lambda a: "Terms a(1)..a(20): " + ", ".join(str(t) for t in SHOWN[a][1][:20])  # noqa: E731
    route = scripted({
        first("A000045"): [(200, "Sure! " + _reply([6765, 10946, 17711], "F(n)=F(n-1)+F(n-2)", 5, True))],
        first("A000027"): [(500, "busy"), (200, _reply([21, 22, 23], "a(n)=n", 5, True))],
        first("A000290"): [(200, "")],  # third in its stratum: never asked with --per-stratum 2
        first("A000578"): [(200, _reply([8000, 9261, 10000], "n^3", 4, True))],
        first("A000002"): [(200, _reply([2, 1, 1], "NO_FORMULA_FOUND", 2, False))],
    })
    env = {**os.environ, "HF_HUB_OFFLINE": "0", "ROTE_LLM_API_KEY": TOKEN, "PYTHONPATH": str(REPO_ROOT)}
    cmd = [sys.executable, str(REPO_ROOT / "eval_suite" / "llm_query.py"), "--model", "stub-llm",
           "--per-stratum", "2", "--results", "res", "--no-progress", "--compare-paper"]
    with StubServer(route) as server:
        proc = subprocess.run([*cmd, "--base-url", server.base_url], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        n_requests = len(server.requests)
        again = subprocess.run([*cmd, "--base-url", server.base_url], cwd=tmp_path, env=env, capture_output=True,
                               text=True, timeout=120)
        assert len(server.requests) == n_requests  # resumed entirely from the cache
    assert n_requests == 5  # A000027 and A000045 (clean, first two by A-number), A000578, A000002 + one retry
    assert {r["body"]["model"] for r in server.requests} == {"stub-llm"}
    lines = proc.stdout.splitlines()
    assert lines[0] == "model: stub-llm"
    assert lines[1].split()[:6] == ["stratum", "n", "failed", "acc", "partial", "abstain"]
    table = {ln.split()[0]: ln.split() for ln in lines[2:6]}
    assert table["clean"][1:4] == ["2", "0", "1.000"] and table["revising"][1:4] == ["1", "0", "0.000"]
    assert table["wilderness"][1:6] == ["1", "0", "1.000", "1.000", "1.000"]
    assert table["all"][1:4] == ["4", "0", "0.750"]
    assert "4 sequences: 4 asked, 0 from the cache; 4 result rows appended to res" in proc.stdout
    assert "published (MDL paper" in proc.stdout and "anthropic/claude-sonnet-4.5" in proc.stdout
    assert "4 sequences: 0 asked, 4 from the cache; 0 result rows appended to res, 4 already stored" in again.stdout
    rows = {r.task: r for r in ResultStore(tmp_path / "res").rows()}
    assert set(rows) == {"clean", "revising", "wilderness", "all"}
    assert rows["revising"].metrics["confabulation_rate"] == 1.0 and rows["clean"].data_seed == 0
    assert rows["clean"].config == "llm-eval" and rows["clean"].settings["max_tokens"] == 1024
    assert rows["clean"].task_params["anums"] == ["A000027", "A000045"]
    for path in (tmp_path / "res").rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes()
    assert TOKEN not in proc.stdout + proc.stderr

    bad = subprocess.run([*cmd, "--base-url", "ftp://nowhere"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("llm_query.py: error: base_url must be")
    assert "Traceback" not in bad.stderr
