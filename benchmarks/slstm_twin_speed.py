"""The sLSTM twin on CPU, three ways: the library's loop over the kernel's step (autograd through
every step); the whole-sequence twin (backward through time by hand, as the CUDA kernel) run by
Python; and the same loops run by TorchScript's interpreter, which is what the package does.

    PYTHONPATH=. OMP_NUM_THREADS=1 python benchmarks/slstm_twin_speed.py [--epochs 10]

(a) CPU ms per forward+backward of the sLSTM loop alone (batch 10, 50 steps), per head layout of
CogScale's xLSTM sizes; (b) CogScale xLSTM fits (small, seed 0, ``--epochs`` epochs, patience 0):
CPU s and test score each way. Writes the tables to stdout (benchmarks/slstm_twin_speed.md).
"""

from __future__ import annotations

import argparse
import contextlib
import time

import torch

MODES = ("step loop", "sequence, Python", "sequence, TorchScript")


@contextlib.contextmanager
def mode(name: str):
    """Make the package's xLSTM run its sLSTM the ``name`` way (one of MODES) inside the block."""
    import rote_hf.zoo.families.slstm_twin as twin

    saved = twin.use_twin, twin._interpreted

    def step_only(module):  # the twin step in the library's loop: what use_twin did first
        cells = [m for m in module.modules() if type(m).__name__ == "sLSTMCell_vanilla"]
        for cell in cells:
            cell.pointwise = twin.twin_pointwise
        return len(cells)

    if name == MODES[0]:
        twin.use_twin = step_only
    elif name == MODES[1]:
        twin._interpreted = lambda loop, *args: loop(*args)
    try:
        yield
    finally:
        twin.use_twin, twin._interpreted = saved


def loop_ms(name: str, heads: int, head_dim: int, repeats: int = 20) -> float:
    from xlstm.blocks.slstm.src.vanilla import slstm_forward

    from rote_hf.zoo.families.slstm_twin import twin_pointwise, twin_sequence

    gen = torch.Generator().manual_seed(0)
    hidden = heads * head_dim
    x = torch.randn(50, 10, 4 * hidden, generator=gen).requires_grad_()
    recurrent = (torch.randn(heads, 4 * head_dim, head_dim, generator=gen) / head_dim).requires_grad_()
    bias = torch.randn(4 * hidden, generator=gen).requires_grad_()
    states = torch.zeros(4, 10, hidden)
    cell = type("Cell", (), {"_recurrent_kernel": recurrent, "_bias": bias})()

    def run():
        out = (slstm_forward(x, states, recurrent, bias, twin_pointwise)[0] if name == MODES[0]
               else twin_sequence(cell, True, x, states))
        torch.autograd.grad(out[0, 1:].sum(), [x, recurrent, bias])

    with mode(name):
        run()
        start = time.process_time()
        for _ in range(repeats):
            run()
        return (time.process_time() - start) / repeats * 1000


def fit_seconds(name: str, task: str, budget: int, epochs: int) -> tuple[float, float]:
    from rote_hf.cogscale import build_task
    from rote_hf.protocols.cogscale import CogScaleData, CogScaleProtocol, fit_cogscale
    from rote_hf.suites.execution import model_builder

    with mode(name):
        data = CogScaleData.from_build(build_task(task, "small", seed=0))
        build = model_builder({"name": "xlstm", "preset": "cogscale-paper", "budget": budget}, data.input_size,
                              data.output_size)
        start = time.process_time()
        _, fit = fit_cogscale(build, data, CogScaleProtocol(learning_rate=1e-3, max_epochs=epochs, patience=0), seed=0)
        return time.process_time() - start, fit.metrics["test_score"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print("| heads × head_dim | " + " | ".join(f"{m} (ms)" for m in MODES) + " |\n|---|---|---|---|")
    for heads, head_dim in ((4, 1), (4, 4), (4, 20)):  # CogScale's xLSTM 1k, 10k and 100k sLSTMs
        print(f"| {heads} × {head_dim} | " + " | ".join(f"{loop_ms(m, heads, head_dim):.1f}" for m in MODES) + " |",
              flush=True)
    print("\n| task | budget | " + " | ".join(f"{m}: CPU s, test" for m in MODES) + " |\n|---|---|---|---|---|")
    for task in ("adding_problem", "discrete_postcasting", "selective_copy"):
        for budget in (1000, 10000, 100000):
            cells = (fit_seconds(m, task, budget, args.epochs) for m in MODES)
            print(f"| {task} | {budget // 1000}k | " + " | ".join(f"{s:.2f}, {t:.4f}" for s, t in cells) + " |",
                  flush=True)


if __name__ == "__main__":
    main()
