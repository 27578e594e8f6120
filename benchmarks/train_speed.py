"""Time per epoch of the ROTE-paper GRU and LSTM (n = 4, c = 30, N = 3500, w = k = 100):
rote-hf's fit_rote + zoo vs rote-bench's train_and_evaluate + its models, same settings.

    PYTHONPATH=. OMP_NUM_THREADS=1 python benchmarks/train_speed.py [--epochs 3] [--repeats 2] [--device cpu]

Both sides run the same epochs with the stopping rules disabled (stopping loss -1, patience >
epochs); time per epoch = (train + validation per epoch + test + rollout) / epochs, the
reference's definition. Sides alternate to share machine load; the minimum over repeats is kept.
Requires rote_hf.zoo, rote_hf.symbolic, rote_hf.metrics and rote-bench.
"""

from __future__ import annotations

import argparse
import time
from types import SimpleNamespace


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--models", nargs="+", default=["GRU", "LSTM"])
    args = ap.parse_args()

    import torch
    from rote_benchmark.benchmark import prepare_data, train_and_evaluate
    from rote_benchmark.models import get_model

    from rote_hf.symbolic import make_windows, paper_seeds
    from rote_hf.train import RoteData, RoteProtocol, fit_rote
    from rote_hf.zoo import build_model

    torch.set_num_threads(1)
    if args.device.startswith("cuda"):  # paper mode: cuDNN off in both
        torch.backends.cudnn.enabled = False
    seed = next(s.seed for s in paper_seeds("main") if (s.n_symbols, s.complexity, s.seed_index) == (4, 30, 0))
    data = RoteData.from_windows(make_windows(seed, 3500, 100, 100))
    ref_data = prepare_data(seed, 3500, 100, 100, args.device)
    ref_args = SimpleNamespace(max_epochs=args.epochs, patience=10**6, stopping_loss=-1.0, lr_step_size=100,
                               lr_gamma=0.5, window_size=100, device=args.device)
    protocol = RoteProtocol(max_epochs=args.epochs, patience=10**6, stopping_loss=-1.0)
    zoo_names = {"GRU": "gru", "LSTM": "lstm"}
    print(f"device={args.device} threads={torch.get_num_threads()} epochs={args.epochs} seed n=4 c=30 len={len(seed)}")
    print("| model | rote-bench s/epoch wall (CPU) | rote-hf s/epoch wall (CPU) | ratio ours/ref wall (CPU) |")
    print("|---|---|---|---|")
    for name in args.models:
        ref_t, our_t, ref_c, our_c = [], [], [], []
        for _ in range(args.repeats):
            torch.manual_seed(3407)
            ref_model = get_model(name, 4, 128, 4, num_layers=2, d_model=256).to(args.device)
            c0 = time.process_time()
            ref = train_and_evaluate(ref_model, ref_data, ref_args, "AdamW", 3e-4, 0.01, 128)
            ref_c.append((time.process_time() - c0) / ref["epochs"])
            ref_t.append(ref["time_per_epoch"])
            c0 = time.process_time()
            _, fit = fit_rote(lambda: build_model(zoo_names[name], input_size=4, output_size=4, preset="rote-paper"),
                              data, protocol, device=args.device)
            our_c.append((time.process_time() - c0) / fit.epochs)
            our_t.append(fit.train_time_s / fit.epochs)
        r, o, rc, oc = min(ref_t), min(our_t), min(ref_c), min(our_c)
        print(f"| {name} | {r:.3f} (CPU {rc:.3f}) | {o:.3f} (CPU {oc:.3f}) | {o / r:.2f} (CPU {oc / rc:.2f}) |", flush=True)


if __name__ == "__main__":
    t0 = time.time()
    main()
    print(f"wall {time.time() - t0:.1f} s")
