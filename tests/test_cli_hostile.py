"""The command line under careless and hostile use (issue 12, items 14-16): real subprocesses.

Sizes are bounded before any work and errors name the user's flag; loose values are refused;
environmental errors (not a directory, permission denied, broken pipe) are one line, no traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests.helpers import REPO_ROOT, run_cli

FIB = "0,1,1,2,3,5,8,13,21,34,55"


def _one_line_error(out: subprocess.CompletedProcess, needle: str, code: int = 2) -> None:
    assert out.returncode == code, (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert needle in out.stderr, out.stderr


@pytest.mark.parametrize("args, flag", [
    (("seed", "-n", "4", "-c", "99999999999"), "--complexity"),
    (("seed", "-n", "4", "-c", "30", "--window", "0"), "--window"),
    (("seed", "-n", "4", "-c", "30", "--window", "10000000"), "--window"),
    (("seed", "-n", "4", "-c", "30", "--random-state", "-1"), "--random-state"),
    (("seed", "-n", "4", "-c", "30", "--random-state", str(2**40)), "--random-state"),
    (("mdl", "1,2,3,4,5,6,7,8", "--next", "100000000"), "--next"),
    (("mdl", FIB, "--max-order", "1000"), "--max-order"),
    (("mdl", FIB, "--max-degree", "-1"), "--max-degree"),
    (("mdl", ",".join(["1"] * 5000)), "terms"),
    (("mdl", "1,2,3,4,5,6," + "7" * 20000), "terms"),
    (("mdl-sweep", "--out", "x.jsonl", "--workers", "100000"), "--workers"),
    (("mdl-sweep", "--out", "x.jsonl", "--limit", str(10**12)), "--limit"),
    (("mdl-sweep", "--out", "x.jsonl", "--budget", str(10**9)), "--budget"),
    (("mdl-sweep", "--out", "x.jsonl", "--min-terms", "0"), "--min-terms"),
    (("mdl-sweep", "--out", "x.jsonl", "--shard", "5/2"), "--shard"),
    (("mdl-sweep", "--out", "x.jsonl", "--shard", "0/0"), "--shard"),
    (("llm-query", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--concurrency", "1000"), "--concurrency"),
    (("llm-query", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--timeout", "nan"), "--timeout"),
    (("llm-query", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--timeout", "1e9"), "--timeout"),
    (("llm-query", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--retries", "99"), "--retries"),
    (("llm-query", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--max-tokens", str(10**9)), "--max-tokens"),
    (("llm-query", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--per-stratum", "0"), "--per-stratum"),
    (("llm-query", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--n-shown", str(10**7)), "--n-shown"),
    (("llm-query", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--seed", str(2**70)), "--seed"),
    (("llm-serve", "--port", "70000"), "--port"),
    (("llm-serve", "--max-new-tokens", str(10**9)), "--max-new-tokens"),
])
def test_sizes_are_bounded_before_any_work_and_name_the_flag(tmp_path, args, flag):
    t0 = time.monotonic()
    out = run_cli(*args, cwd=tmp_path, timeout=60)
    _one_line_error(out, flag)
    assert time.monotonic() - t0 < 20  # refused at once (the unbounded runs took minutes)
    assert "r must be in" not in out.stderr
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize("args, needle", [
    (("mdl", FIB, "--next", "-1"), "--next"),
    (("mdl", "1_000,2,3,4,5,6,7"), "terms must be integers"),
    (("mdl", "1,2,3,4,5,6,٧"), "terms must be integers"),  # a non-ASCII digit
    (("seed", "-n", "4", "-c", "3_0"), "--complexity"),
    (("seed", "-n", " 4", "-c", "30"), "--symbols"),
    (("mdl-sweep", "--out", "x.jsonl", "--shard", "0/1_0"), "--shard"),
    (("llm-query", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--timeout", "1_0"), "--timeout"),
])
def test_loose_values_are_refused(tmp_path, args, needle):
    _one_line_error(run_cli(*args, cwd=tmp_path, timeout=60), needle)


def test_next_zero_still_means_none():
    out = run_cli("mdl", FIB, "--next", "0", cwd=REPO_ROOT)
    assert out.returncode == 0 and "next terms" not in out.stdout


def test_build_root_a_file_is_one_line(tmp_path):
    f = tmp_path / "afile"
    f.write_text("keep me")
    _one_line_error(run_cli("build", "rote-seeds", "--root", str(f), "--quiet", cwd=tmp_path), "Not a directory", 1)
    assert f.read_text() == "keep me"


def test_read_only_target_is_one_line(tmp_path):
    # /sys refuses new entries even to root (tests run as root, so chmod would not do)
    _one_line_error(run_cli("build", "rote-seeds", "--root", "/sys/rote-hf-test", "--quiet", cwd=tmp_path),
                    "/sys/rote-hf-test", 1)
    assert not os.path.exists("/sys/rote-hf-test")
    _one_line_error(run_cli("mdl-sweep", "--out", "/sys/rote-hf-test.jsonl", "--quiet", cwd=tmp_path),
                    "/sys/rote-hf-test", 1)


def test_sweep_out_under_a_file_is_one_line(tmp_path):
    f = tmp_path / "afile"
    f.write_text("keep me")
    out = run_cli("mdl-sweep", "--out", str(f / "x.jsonl"), "--quiet", cwd=tmp_path)
    _one_line_error(out, str(f), 1)
    assert "--out" in out.stderr and f.read_text() == "keep me"


def test_broken_pipe_is_quiet_exit_1():
    # the reader goes away before the first byte (as `| head -c 0`; `head -c 10` on a long output alike):
    # per the Python docs (signal module, "Note on SIGPIPE"), stdout is pointed at devnull and the
    # exit status is 1, with nothing on stderr
    proc = subprocess.Popen([sys.executable, "-m", "rote_hf.cli", "mdl", FIB, "--json"], cwd=REPO_ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ})
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1
    assert err == "", err


def test_broken_pipe_through_head(tmp_path):
    cmd = (f"{sys.executable} -m rote_hf.cli mdl {FIB} --json | head -c 10; "
           "echo; echo status=${PIPESTATUS[0]}")
    out = subprocess.run(["bash", "-c", cmd], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert out.stdout.startswith("{") and "Traceback" not in out.stderr
    assert out.stdout.strip().splitlines()[-1] in ("status=0", "status=1")  # 0: all fit the pipe before head left


def test_llm_query_results_under_a_file_is_refused_before_any_request(tmp_path):
    f = tmp_path / "afile"
    f.write_text("keep me")
    out = run_cli("llm-query", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--results", str(f / "res"),
                  "--dataset", str(tmp_path / "rows.json"), cwd=tmp_path, timeout=60)
    _one_line_error(out, "--results", 1)
    assert f.read_text() == "keep me"


def test_llm_query_deeply_nested_dataset_is_one_line(tmp_path):
    rows = tmp_path / "rows.json"
    rows.write_text("[" * 100_000 + "]" * 100_000)
    out = run_cli("llm-query", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--results",
                  str(tmp_path / "res"), "--dataset", str(rows), cwd=tmp_path, timeout=60, env={"HF_HUB_OFFLINE": "0"})
    _one_line_error(out, "nests JSON too deeply")
    rows.write_text("[1, 2]")
    out = run_cli("llm-query", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--results",
                  str(tmp_path / "res"), "--dataset", str(rows), cwd=tmp_path, timeout=60, env={"HF_HUB_OFFLINE": "0"})
    _one_line_error(out, "rows[0] must be an object")
