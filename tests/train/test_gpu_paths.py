"""GPU-readiness of the trainer, tested on CPU (issue 16 items 2-10, issue 12.11): device choice and
names, sticky CUDA errors vs out-of-memory, mixed devices and mixed precision refused, host syncs
once per epoch, damaged run files re-run on resume, fast-path detection."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from rote_hf.results import ResultRow, ResultStore, load
from rote_hf.train import RoteProtocol, fit_rote, run_specs
from rote_hf.protocols.device import choose_device, cpu_model, device_kind, device_label, is_sticky_device_error
from tests.helpers import REPO_ROOT
from tests.train.test_loop import tiny_executor, tiny_specs
from tests.train.tiny import TinyGRU, windows_data


def test_choose_device_spreads_local_ranks_over_gpus():
    assert [choose_device(r, 8) for r in (0, 7, 8, 15)] == ["cuda:0", "cuda:7", "cuda:0", "cuda:7"]
    assert [choose_device(r, 3) for r in range(5)] == ["cuda:0", "cuda:1", "cuda:2", "cuda:0", "cuda:1"]
    assert choose_device(5, 0) == "cpu" and choose_device(0) == "cpu"  # no CUDA on this machine
    with pytest.raises(ValueError, match="local_rank must be an integer >= 0"):
        choose_device(-1, 2)


def test_rows_name_the_hardware_not_the_ordinal(tmp_path):
    model = cpu_model()
    expected = next((" ".join(line.split(":", 1)[1].split()) for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name")), None)
    if expected is not None:
        assert model == expected
    assert device_label("cpu") == f"cpu: {model}" and device_kind(device_label("cpu")) == "cpu"
    assert device_kind("cuda: NVIDIA H200") == "cuda" and device_kind("cuda:3") == "cuda"  # old rows too
    run_specs(tiny_specs(max_epochs=1)[1:2], tmp_path, progress=False, executor=tiny_executor)
    assert list(load(tmp_path)["device"]) == [f"cpu: {model}"]


def _failing_on(index: int, exc: BaseException):
    def executor(spec, device):
        if spec.index == index:
            raise exc
        return tiny_executor(spec, device)
    return executor


def test_sticky_cuda_error_stops_the_rank_without_storing_untried_runs(tmp_path, caplog):
    specs = tiny_specs(max_epochs=1)
    fault = RuntimeError("CUDA error: an illegal memory access was encountered")
    report = run_specs(specs, tmp_path, progress=False, executor=_failing_on(1, fault), poll_s=0.05)
    assert "unusable" in report.stopped and "illegal memory access" in report.stopped
    assert report.ok == [specs[0].run_id] and report.failed == []
    frame = load(tmp_path)
    assert list(frame["run_id"]) == [specs[0].run_id]  # no failed rows for runs 1-3: never really tried
    assert not list((tmp_path / "claims").glob("*.claim"))  # the claim was given back
    # a healthy process (or a restart) picks the rest up
    again = run_specs(specs, tmp_path, progress=False, executor=tiny_executor)
    assert again.skipped == 1 and len(again.ok) == 3 and (load(tmp_path)["status"] == "ok").all()


def test_out_of_memory_fails_that_run_alone(tmp_path):
    specs = tiny_specs(max_epochs=1)
    oom = torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
    report = run_specs(specs, tmp_path, progress=False, executor=_failing_on(2, oom))
    assert report.stopped == "" and report.failed == [specs[2].run_id] and len(report.ok) == 3
    frame = load(tmp_path).set_index("run_id")
    assert frame.loc[specs[2].run_id, "error"].startswith("OutOfMemoryError: CUDA out of memory")


def test_which_errors_are_sticky():
    assert is_sticky_device_error(RuntimeError("CUDA error: device-side assert triggered"))
    assert is_sticky_device_error(RuntimeError("CUDA error: unspecified launch failure"))
    assert not is_sticky_device_error(torch.cuda.OutOfMemoryError("CUDA out of memory."))
    assert not is_sticky_device_error(RuntimeError("CUDA error: out of memory"))
    assert not is_sticky_device_error(ValueError("training loss is not finite"))
    assert not is_sticky_device_error(RuntimeError("mat1 and mat2 shapes cannot be multiplied"))


def test_train_py_stops_a_rank_on_a_sticky_error_with_one_line(tmp_path):
    config = tmp_path / "fault.yaml"
    config.write_text("""
name: fault
suite: rote
data: {seeds: {source: list, strings: [ABAABB, AABBBA]}, sequence_length: 60, window: 5, horizon: 5}
models: [{name: "tests.train.tiny:cuda_fault"}]
protocol: {max_epochs: 1, rollout_metrics: {}}
""")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "eval_suite" / "train.py"), "--config", str(config),
                           "--results", str(tmp_path / "res"), "--no-progress"], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 3, proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("train.py: error: rank 0: device cpu is unusable (RuntimeError: CUDA error")
    assert "Traceback" not in proc.stderr and len(ResultStore(tmp_path / "res")) == 0


def test_train_py_refuses_mixed_precision_naming_the_flag(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "ACCELERATE_MIXED_PRECISION": "bf16"}  # what the launcher sets
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "eval_suite" / "train.py"), "--config",
                           str(REPO_ROOT / "eval_suite" / "configs" / "rote_smoke.yaml"), "--results",
                           str(tmp_path / "res")], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "train.py: error: --mixed_precision must be 'no' (fits run in float32, as the papers'), got 'bf16'"]
    assert not (tmp_path / "res").exists()


def test_resume_refuses_to_mix_device_kinds(tmp_path):
    specs = tiny_specs(max_epochs=1)
    row = tiny_executor(specs[0], "cpu")
    ResultStore(tmp_path).append(ResultRow(**{**row.__dict__, "device": "cuda: NVIDIA H200"}))
    with pytest.raises(RuntimeError, match="trained on cuda but this process trains on cpu.*--allow-mixed-devices"):
        run_specs(specs, tmp_path, progress=False, executor=tiny_executor)
    assert len(ResultStore(tmp_path)) == 1  # refused before any work
    report = run_specs(specs, tmp_path, progress=False, executor=tiny_executor, allow_mixed_devices=True)
    assert report.skipped == 1 and len(report.ok) == 3


def test_damaged_run_file_is_rerun_on_resume(tmp_path, caplog):
    specs = tiny_specs(max_epochs=1)
    run_specs(specs, tmp_path, progress=False, executor=tiny_executor)
    victim = ResultStore(tmp_path).path_of(specs[2].run_id)
    victim.write_bytes(victim.read_bytes()[:100])  # truncated
    report = run_specs(specs, tmp_path, progress=False, executor=tiny_executor)
    assert report.skipped == 3 and report.ok == [specs[2].run_id]
    frame = load(tmp_path)
    assert len(frame) == 4 and (frame["status"] == "ok").all()
    assert [p.name.split(".parquet.")[0] for p in (tmp_path / "corrupt").iterdir()] == [specs[2].run_id]


def test_training_reads_the_host_once_per_epoch_not_per_step(monkeypatch):
    """``.item()`` calls of a fit do not grow with the number of steps per epoch (issue 16.8), and a
    diverged run still fails in the epoch where it diverged."""
    data = windows_data("ABAABBABBB", 400, 6, 6)
    calls = []
    original = torch.Tensor.item

    def item(self):  # count the trainer's own reads (torch's Adam reads its CPU step counters itself)
        if f"{os.sep}rote_hf{os.sep}" in sys._getframe(1).f_code.co_filename:
            calls.append(sys._getframe(1).f_code.co_name)
        return original(self)

    monkeypatch.setattr(torch.Tensor, "item", item)

    def count(batch_size: int) -> tuple[int, int]:
        calls.clear()
        _, fit = fit_rote(lambda: TinyGRU(len(data.alphabet), len(data.alphabet), 6), data,
                          RoteProtocol(max_epochs=3, batch_size=batch_size, rollout_metrics={}))
        steps = -(-len(data.y_train) // batch_size)
        return len(calls), steps

    many, steps_many = count(8)
    few, steps_few = count(128)
    assert steps_many >= 10 * steps_few and many == few  # per-epoch constants only (RNG draws, one accuracy read)
    from tests.train.tiny import Diverging

    with pytest.raises(ValueError, match=r"training loss is not finite \(\S+\) at epoch 1, step 1"):
        fit_rote(lambda: Diverging(len(data.alphabet), len(data.alphabet)), data, RoteProtocol(max_epochs=2))


def test_fast_paths_say_which_path_runs(monkeypatch):
    pytest.importorskip("performer_pytorch")
    from rote_hf.zoo import build_model
    from rote_hf.zoo.families import performer
    from rote_hf.zoo.families.performer import FALLBACK_PATH, causal_path
    from rote_hf.zoo.families.xlstm import resolve_slstm_backend

    assert causal_path() == FALLBACK_PATH  # the compiled causal_product_cuda extension is not here
    monkeypatch.setattr(performer, "_WARNED", False)  # said once per process; make this the first time
    with pytest.warns(RuntimeWarning, match="fast_transformers.causal_product.causal_product_cuda` does not import"):
        model = build_model("performer", input_size=3, output_size=3, d_model=16, num_layers=1)
    assert model.attention_path == FALLBACK_PATH
    assert resolve_slstm_backend("auto", cuda=True, compiler=True) == "cuda"
    assert resolve_slstm_backend("auto", cuda=True, compiler=False) == "twin"
    assert resolve_slstm_backend("auto") == "twin" and resolve_slstm_backend("cuda", cuda=False) == "cuda"
    with pytest.raises(ValueError, match="slstm_backend must be one of"):
        resolve_slstm_backend("triton")
    pytest.importorskip("xlstm")
    assert build_model("xlstm", input_size=3, output_size=3, d_model=8).slstm_backend == "twin"



def test_xlstm_auto_falls_back_to_the_twin_when_the_cuda_kernel_cannot_be_built(monkeypatch):
    pytest.importorskip("xlstm")
    from rote_hf.zoo import build_model
    from rote_hf.zoo.families import xlstm as family

    monkeypatch.setattr(family, "resolve_slstm_backend", lambda backend: "cuda")  # as on a GPU box with nvcc
    with pytest.warns(RuntimeWarning, match="the CUDA sLSTM kernel could not be built"):
        model = build_model("xlstm", input_size=3, output_size=3, d_model=8)
    assert model.slstm_backend == "twin" and model(torch.zeros(2, 5, 3)).shape == (2, 5, 3)
