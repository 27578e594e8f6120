"""The sLSTM twin on CPU: the library's loop over the kernel's step (autograd through every step)
against the whole-sequence twin (backward through time by hand, as the CUDA kernel).

    PYTHONPATH=. OMP_NUM_THREADS=1 python benchmarks/slstm_twin_speed.py [--epochs 10]

(a) CPU ms per forward+backward of the sLSTM loop alone (batch 10, 50 steps), per head layout of
CogScale's xLSTM sizes; (b) CogScale xLSTM fits (small, seed 0, ``--epochs`` epochs, patience 0):
CPU s and test score with each loop. Writes the tables to stdout (benchmarks/slstm_twin_speed.md).
"""

from __future__ import annotations

import argparse
import time

import torch


def loop_ms(step_loop: bool, heads: int, head_dim: int, repeats: int = 20) -> float:
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
        out = (slstm_forward(x, states, recurrent, bias, twin_pointwise)[0] if step_loop
               else twin_sequence(cell, True, x, states))
        torch.autograd.grad(out[0, 1:].sum(), [x, recurrent, bias])

    run()
    start = time.process_time()
    for _ in range(repeats):
        run()
    return (time.process_time() - start) / repeats * 1000


def fit_seconds(step_loop: bool, task: str, budget: int, epochs: int) -> tuple[float, float]:
    import rote_hf.zoo.families.slstm_twin as twin
    from rote_hf.cogscale import build_task
    from rote_hf.train.cogscale import CogScaleData, CogScaleProtocol, fit_cogscale
    from rote_hf.train.suites import model_builder

    whole = twin.use_twin

    def step_only(module):  # the twin step in the library's loop: what use_twin did before
        cells = [m for m in module.modules() if type(m).__name__ == "sLSTMCell_vanilla"]
        for cell in cells:
            cell.pointwise = twin.twin_pointwise
        return len(cells)

    twin.use_twin = step_only if step_loop else whole
    try:
        data = CogScaleData.from_build(build_task(task, "small", seed=0))
        build = model_builder({"name": "xlstm", "preset": "cogscale-paper", "budget": budget}, data.input_size,
                              data.output_size)
        start = time.process_time()
        _, fit = fit_cogscale(build, data, CogScaleProtocol(learning_rate=1e-3, max_epochs=epochs, patience=0), seed=0)
        return time.process_time() - start, fit.metrics["test_score"]
    finally:
        twin.use_twin = whole


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print("| heads × head_dim | step loop (ms) | sequence (ms) | speed-up |\n|---|---|---|---|")
    for heads, head_dim in ((4, 1), (4, 4), (4, 20)):  # CogScale's xLSTM 1k, 10k and 100k sLSTMs
        step, whole = loop_ms(True, heads, head_dim), loop_ms(False, heads, head_dim)
        print(f"| {heads} × {head_dim} | {step:.1f} | {whole:.1f} | {step / whole:.2f}x |", flush=True)
    print(f"\n| task | budget | step loop: CPU s, test | sequence: CPU s, test | speed-up |\n|---|---|---|---|---|")
    for task in ("adding_problem", "discrete_postcasting", "selective_copy"):
        for budget in (1000, 10000, 100000):
            (s_step, t_step), (s_whole, t_whole) = (fit_seconds(flag, task, budget, args.epochs) for flag in (True, False))
            print(f"| {task} | {budget // 1000}k | {s_step:.2f}, {t_step:.4f} | {s_whole:.2f}, {t_whole:.4f} | "
                  f"{s_step / s_whole:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
