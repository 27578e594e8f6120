"""Devices: which one a process trains on, what a row says about it, synchronised clocks, warm-up,
and which errors leave a CUDA device unusable.

- :func:`choose_device`: ``cuda:{local_rank % device_count}`` when CUDA is present, else ``cpu``.
  Ranks coordinate over gloo (the loop never runs a collective on the training device), so any
  number of processes can share one GPU; NCCL would refuse two ranks on one device.
- :func:`device_label`: the hardware, not the ordinal: ``"cuda: NVIDIA H200"``, ``"cpu: <CPU
  model>"``. The *kind* is the part before the colon (:func:`device_kind`; also right for the
  older ``"cuda:3"``/``"cpu"`` form), which is what a resumed sweep compares.
- :func:`environment`: what the float arithmetic of a run depends on besides the code and the
  hardware name: torch's CPU kernel path, the torch version and build, the intra-op thread count
  (recorded in every row's ``settings["environment"]``).
- :func:`now`: ``time.perf_counter()`` after ``torch.cuda.synchronize`` on CUDA, so a timed span
  covers the kernels it launched, not only their launch.
- :func:`warm_up`: once per process and device, before the first timed fit: CUDA context, cuBLAS
  handle and workspace, cuDNN, the caching allocator's first blocks.
- :func:`is_sticky_device_error`: a CUDA error other than out-of-memory (device-side assert,
  illegal memory access, launch failure, ...) poisons the CUDA context of the process: every later
  CUDA call fails. Such an error raises :class:`DeviceFailure` out of the executor, so the rank
  stops instead of storing failed rows for runs it never really tried. Out-of-memory fails that
  run alone (its row is stored as failed).
"""

from __future__ import annotations

import functools
import platform
import re
import time
from pathlib import Path
from typing import Any

_WARM: set[str] = set()
_STICKY_MARKERS = ("CUDA error", "device-side assert", "illegal memory access", "CUBLAS_STATUS_",
                   "CUDNN_STATUS_", "unspecified launch failure", "an illegal instruction")


class DeviceFailure(RuntimeError):
    """The training device is unusable for the rest of this process (a sticky CUDA error)."""


def choose_device(local_rank: int = 0, cuda_count: int | None = None) -> str:
    """``"cuda:{local_rank % cuda_count}"``, or ``"cpu"`` when there is no CUDA device.

    ``cuda_count`` defaults to ``torch.cuda.device_count()`` (respects ``CUDA_VISIBLE_DEVICES``).
    """
    if isinstance(local_rank, bool) or not isinstance(local_rank, int) or local_rank < 0:
        raise ValueError(f"local_rank must be an integer >= 0, got {local_rank!r}")
    if cuda_count is None:
        import torch

        cuda_count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if isinstance(cuda_count, bool) or not isinstance(cuda_count, int) or cuda_count < 0:
        raise ValueError(f"cuda_count must be an integer >= 0, got {cuda_count!r}")
    return f"cuda:{local_rank % cuda_count}" if cuda_count else "cpu"


def _is_cuda(device: Any) -> bool:
    return getattr(device, "type", str(device).split(":")[0]) == "cuda"


def cpu_model() -> str:
    """The host CPU's model name (``/proc/cpuinfo``), else ``platform.processor()`` or the machine type."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def device_label(device: Any) -> str:
    """``"<kind>: <hardware name>"`` for a result row, e.g. ``"cuda: NVIDIA H200"``, ``"cpu: AMD EPYC 7763"``."""
    import torch

    device = torch.device(device)
    if device.type == "cuda":
        return f"cuda: {torch.cuda.get_device_name(device)}"
    if device.type == "cpu":
        return f"cpu: {cpu_model()}"
    return device.type


@functools.lru_cache(maxsize=1)
def _torch_build() -> dict[str, str]:
    import torch

    show = torch.__config__.show()  # the build's settings, as torch prints them
    blas = re.search(r"BLAS_INFO=([^,\s]+)", show)
    commit = re.search(r"COMMIT_SHA=([0-9a-f]+)", show)
    return {"torch": torch.__version__, "torch_cuda": torch.version.cuda or "",
            "torch_build": f"blas={blas.group(1) if blas else '?'} commit={commit.group(1)[:12] if commit else '?'}"}


def environment() -> dict[str, Any]:
    """What a run's float arithmetic depends on besides the code and the CPU's name, for a row's
    ``settings["environment"]``: ``cpu_capability`` (torch's CPU kernel path on this machine,
    ``torch.backends.cpu.get_cpu_capability()``: ``"AVX2"``, ``"AVX512"``, ``"DEFAULT"``, ...),
    ``torch`` (version), ``torch_cuda`` (the CUDA version torch was built for, ``""`` for a CPU
    build), ``torch_build`` (BLAS and source commit of the build, from ``torch.__config__.show()``)
    and ``threads`` (``torch.get_num_threads()`` now: the intra-op thread count; a reduction split
    over another count of threads sums in another order)."""
    import torch

    return {"cpu_capability": torch.backends.cpu.get_cpu_capability(), **_torch_build(),
            "threads": int(torch.get_num_threads())}


def device_kind(label: str) -> str:
    """The kind of a stored ``device`` value: ``"cuda: NVIDIA H200"`` -> ``"cuda"``, ``"cuda:3"`` -> ``"cuda"``."""
    return str(label).split(":", 1)[0].strip()


def now(device: Any) -> float:
    """``time.perf_counter()`` (seconds), after the device's queued work has finished on CUDA."""
    if _is_cuda(device):
        import torch

        torch.cuda.synchronize(device)
    return time.perf_counter()


def warm_up(device: Any) -> bool:
    """Initialise CUDA, cuBLAS and cuDNN on ``device`` once per process; True when it did work now."""
    if not _is_cuda(device):
        return False
    import torch

    device = torch.device(device)
    key = str(device if device.index is not None else torch.device("cuda", torch.cuda.current_device()))
    if key in _WARM:
        return False
    with torch.random.fork_rng(devices=[device]):  # no global RNG state is consumed
        a = torch.randn(64, 64, device=device, requires_grad=True)
        (a @ a).sum().backward()
        rnn = torch.nn.LSTM(4, 4, batch_first=True).to(device)
        rnn(torch.zeros(2, 3, 4, device=device))[0].sum().backward()
    torch.cuda.synchronize(device)
    _WARM.add(key)
    return True


def is_sticky_device_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a CUDA error that leaves the device unusable (not out-of-memory)."""
    import torch

    if isinstance(exc, torch.cuda.OutOfMemoryError) or "out of memory" in str(exc).lower():
        return False
    accelerator_error = getattr(torch, "AcceleratorError", None)
    if accelerator_error is not None and isinstance(exc, accelerator_error):
        return True
    return isinstance(exc, RuntimeError) and any(m in str(exc) for m in _STICKY_MARKERS)


__all__ = [
    "DeviceFailure", "choose_device", "cpu_model", "device_kind", "device_label", "environment", "is_sticky_device_error",
    "now", "warm_up",
]
