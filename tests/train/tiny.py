"""Tiny models and data for the trainer's own tests (not the zoo; a few hundred parameters)."""

from __future__ import annotations

import torch
from torch import nn


class TinyGRU(nn.Module):
    """One-layer GRU + linear readout at every step: (B, T, in) -> (B, T, out)."""

    def __init__(self, input_size: int, output_size: int, units: int = 8) -> None:
        super().__init__()
        self.gru = nn.GRU(input_size, units, batch_first=True)
        self.head = nn.Linear(units, output_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.gru(x)[0])


class LastStepGRU(TinyGRU):
    """The reference's contract: (B, T, n) -> (B, n) logits of the last step."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(x)[:, -1]


class Diverging(nn.Module):
    """Outputs overflow to inf, so the training loss is not finite (a diverged run)."""

    def __init__(self, input_size: int, output_size: int) -> None:
        super().__init__()
        self.lin = nn.Linear(input_size, output_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lin(x) * 1e39


def tiny_gru(*, input_size: int, output_size: int, units: int = 8) -> nn.Module:
    return TinyGRU(input_size, output_size, units)


def diverging(*, input_size: int, output_size: int) -> nn.Module:
    return Diverging(input_size, output_size)


def windows_data(seed: str, sequence_length: int, window: int, horizon: int):
    """RoteData of ``seed`` built with the reference's own prepare_data (the test oracle)."""
    from rote_benchmark.benchmark import prepare_data

    from rote_hf.train import RoteData

    d = prepare_data(seed, sequence_length, window, horizon, "cpu")
    return RoteData(alphabet="".join(d["symbols"]), x_train=d["X_train"].argmax(-1), y_train=d["y_train"],
                    x_valid=d["X_valid"].argmax(-1), y_valid=d["y_valid"], x_test=d["X_test"].argmax(-1),
                    y_test=d["y_test"], context=d["initial_context"], target=d["target"], fingerprint="test")


def logged_gru(*, input_size: int, output_size: int, units: int = 8, sleep: float = 0.0) -> nn.Module:
    """``tiny_gru`` that appends this process's id to ``$ROTE_TEST_BUILD_LOG`` (one line per fit, so a
    test can count how often each process trained) and sleeps ``sleep`` seconds (a slow fit)."""
    import os
    import time

    log = os.environ.get("ROTE_TEST_BUILD_LOG")
    if log:
        with open(log, "a") as fh:  # O_APPEND: concurrent short lines do not interleave
            fh.write(f"{os.getpid()}\n")
    time.sleep(sleep)
    return TinyGRU(input_size, output_size, units)


def cuda_fault(*, input_size: int, output_size: int) -> nn.Module:
    """Raises what a sticky CUDA fault raises (the device is unusable afterwards)."""
    raise RuntimeError("CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be "
                       "asynchronously reported at some other API call")
