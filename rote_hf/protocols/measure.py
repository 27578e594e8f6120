"""Per-run measurements: trainable parameters, wall time, peak CUDA and CPU memory.

Units: seconds, MiB (2**20 bytes). CUDA peak is measured from a warmed-up baseline: the device is
warmed up once per process (:func:`rote_hf.protocols.device.warm_up`: CUDA context, cuBLAS workspace,
cuDNN), then at the start of each run the peak counter is reset and the bytes already allocated
are noted; ``peak_cuda_mb`` = ``max_memory_allocated`` during the run minus that baseline, i.e.
the memory the fit itself allocated at its peak (model, optimiser state, activations, data). The
cuBLAS workspace (about 32 MiB on sm90) would otherwise dwarf a 1k-parameter model. The reset works
for *any* CUDA device (the reference resets only for the literal ``"cuda"``; rote.md §15.2). Both
clock reads are synchronised with the device (:func:`rote_hf.protocols.device.now`). CPU peak is the process's peak resident set size during the run: on Linux the peak
(VmHWM) is reset through ``/proc/self/clear_refs`` at the start of the run, so the figure
belongs to this run, not to earlier ones in the same process (the reference records 0 on CPU).
"""

from __future__ import annotations

import resource
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rote_hf.protocols.device import now, warm_up

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def trainable_parameters(model: Any) -> int:
    """Σ numel over parameters with ``requires_grad`` (buffers excluded)."""
    return int(sum(p.numel() for p in model.parameters() if p.requires_grad))


def _vm_kib(field: str) -> int | None:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _reset_cpu_peak() -> bool:
    """Reset the kernel's peak-RSS counter for this process; False where unsupported."""
    try:
        _CLEAR_REFS.write_text("5")
        return True
    except OSError:
        return False


def _cpu_peak_mib() -> float:
    hwm = _vm_kib("VmHWM")
    if hwm is not None:
        return hwm / 1024.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return peak / (2**20 if sys.platform == "darwin" else 1024.0)


@dataclass
class Measurement:
    """Filled by :class:`measure` on exit: ``seconds``, ``peak_cuda_mb`` (None off CUDA), ``peak_cpu_mb``."""

    seconds: float = 0.0
    peak_cuda_mb: float | None = None
    peak_cpu_mb: float = 0.0


class measure:
    """Context manager timing a block and recording its peak memory on ``device``.

    >>> with measure(device) as m:
    ...     fit()
    >>> m.seconds, m.peak_cuda_mb, m.peak_cpu_mb
    """

    def __init__(self, device: Any) -> None:
        self.device = device
        self.result = Measurement()

    def __enter__(self) -> Measurement:
        import torch

        self._cuda = getattr(self.device, "type", str(self.device).split(":")[0]) == "cuda"
        if self._cuda:
            warm_up(self.device)
            torch.cuda.synchronize(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            self._baseline = torch.cuda.memory_allocated(self.device)
        _reset_cpu_peak()
        self._start = now(self.device)
        return self.result

    def __exit__(self, *exc: object) -> None:
        import torch

        self.result.seconds = now(self.device) - self._start
        if self._cuda:
            self.result.peak_cuda_mb = (torch.cuda.max_memory_allocated(self.device) - self._baseline) / 2**20
        self.result.peak_cpu_mb = _cpu_peak_mib()


__all__ = [
    "Measurement", "measure", "trainable_parameters",
]
