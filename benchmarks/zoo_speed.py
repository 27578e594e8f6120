"""Forward+backward cost of every zoo family on this machine, and parallel vs step-by-step forms.

    PYTHONPATH=. OMP_NUM_THREADS=1 python benchmarks/zoo_speed.py [--batch 32 --time 100 --repeats 3]

Reports CPU seconds (``time.process_time``, one thread) per fwd+bwd of one batch of
(batch, time, 4) -> (batch, time, 4), with the loss on the last step (the ROTE read-out), at
(a) the ROTE-paper size (``preset="rote-paper"``, n = 4) where the family has one, and
(b) an honest 10k-parameter budget (``budget=10_000``). Then, for the recurrent families with a
parallel form, the forward time of ``model(x)`` (with ``scan="chunked"`` where the family has that
switch) vs ``model.step_by_step(x)`` at 10k.
On CUDA (``--device cuda`` or ``cuda:N``) wall time with ``torch.cuda.synchronize(device)`` beside
every clock read is reported instead, after a one-off warm-up (CUDA context, cuBLAS, cuDNN); the
first call of each measurement is discarded as well. A family whose GPU kernel fails is reported
as ``failed: <error>`` and the others are still measured.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import torch

from rote_hf.zoo import build_model, get_spec, model_info, names

CHUNKED_SCANS = ("minlstm-rote", "rwkv-rote", "mamba")
STEP_FAMILIES = ["lstm", "gru", "mingru", "minlstm", "minlstm-rote", "rwkv", "rwkv-rote", "xlstm", "mamba"]


def _clock(device: str):
    """CPU seconds on the CPU; on CUDA wall seconds read after synchronising *that* device."""
    if torch.device(device).type == "cpu":
        return time.process_time
    from rote_hf.protocols.device import now, warm_up

    warm_up(device)
    return lambda: now(device)


def fwd_bwd(model, x, repeats: int, clock) -> float:
    model.train()
    times = []
    for i in range(repeats + 1):
        model.zero_grad(set_to_none=True)
        t0 = clock()
        model(x)[:, -1].float().pow(2).mean().backward()
        if i:  # the first call warms caches and lazy imports
            times.append(clock() - t0)
    return statistics.median(times)


@torch.no_grad()
def forward(fn, x, repeats: int, clock) -> float:
    times = []
    for i in range(repeats + 1):
        t0 = clock()
        fn(x)
        if i:
            times.append(clock() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--time", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--names", nargs="*", default=None)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    clock = _clock(args.device)
    x = torch.randn(args.batch, args.time, 4, generator=torch.Generator().manual_seed(0)).to(args.device)
    chosen = args.names or list(names())
    print(f"batch {args.batch}, time {args.time}, device {args.device}, torch {torch.__version__}")
    print("| model | setting | params | fwd+bwd s |")
    print("|---|---|---|---|")
    for name in chosen:
        settings = []
        if "rote-paper" in get_spec(name).presets:
            settings.append(("rote-paper", {"preset": "rote-paper"}))
        settings.append(("budget 10k", {"budget": 10_000}))
        for label, kw in settings:
            try:
                model = build_model(name, input_size=4, output_size=4, seed=0, **kw).to(args.device)
            except ValueError as exc:
                print(f"| {name} | {label} | refused: {exc} | |")
                continue
            try:
                sec = fwd_bwd(model, x, args.repeats, clock)
            except RuntimeError as exc:  # e.g. a family's GPU kernel failing: report it, measure the rest
                print(f"| {name} | {label} | {model_info(model).n_params:,} | failed: {str(exc).splitlines()[0]} |")
                continue
            print(f"| {name} | {label} | {model_info(model).n_params:,} | {sec:.3f} |", flush=True)
    print()
    print("| model (10k) | parallel fwd s | step-by-step fwd s | ratio |")
    print("|---|---|---|---|")
    for name in [n for n in STEP_FAMILIES if n in chosen]:
        # our scans default to the sequential form on CPU; force the parallel one for the comparison
        force = {"scan": "chunked"} if name in CHUNKED_SCANS else {}
        model = build_model(name, input_size=4, output_size=4, seed=0, budget=10_000, **force)
        model = model.to(args.device).eval()
        try:
            par = forward(model, x, args.repeats, clock)
            seq = forward(model.step_by_step, x, args.repeats, clock)
        except RuntimeError as exc:
            print(f"| {name} | failed: {str(exc).splitlines()[0]} | | |")
            continue
        print(f"| {name} | {par:.4f} | {seq:.4f} | {seq / par:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
