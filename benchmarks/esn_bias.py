"""The ESN's bias: reservoirpy 0.3's (Bernoulli on the input connectivity's share of the units, what
CogScale ran) against 0.4.2's (on every unit), with CogScale's published hyper-parameters.

    PYTHONPATH=. OMP_NUM_THREADS=1 python benchmarks/esn_bias.py [--seeds 5]

For a few (task, budget) cells of the small difficulty: the mean test score over seeds 0..S-1 with
each bias, beside the published mean over its 10 runs. Prints a Markdown table
(benchmarks/esn_bias.md).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics

CELLS = [("simple_copy", 10000), ("induction_heads", 1000), ("discrete_pattern_completion", 1000),
         ("associative_recall", 1000), ("bracket_matching", 10000), ("sorting_problem", 10000)]


@contextlib.contextmanager
def dense_bias():
    """reservoirpy 0.4.2's own bias: every unit (the zoo's bias callable asks mat_gen for a 1-D draw)."""
    from reservoirpy import mat_gen

    drawn = mat_gen.bernoulli

    def every_unit(*shape, connectivity=None, **kwargs):
        return drawn(*shape, connectivity=1.0 if len(shape) == 1 else connectivity, **kwargs)

    mat_gen.bernoulli = every_unit
    try:
        yield
    finally:
        mat_gen.bernoulli = drawn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()

    import torch

    from rote_hf.cogscale import build_task
    from rote_hf.results.published import cogscale_esn_hyperparameters_for, cogscale_run_rows
    from rote_hf.protocols.cogscale import CogScaleData, fit_esn
    from rote_hf.suites.execution import model_builder

    torch.set_num_threads(1)
    published = {}
    for row in cogscale_run_rows():
        if row.model == "ESN" and row.config == "small":
            published.setdefault((row.task, row.budget), []).append(row.score)
    print("| task | budget | sparse bias (0.3, ours) | dense bias (0.4.2) | published (10 runs) |\n|---|---|---|---|---|")
    for task, budget in CELLS:
        scores = {"sparse": [], "dense": []}
        for seed in range(args.seeds):
            data = CogScaleData.from_build(build_task(task, "small", seed=seed))
            hp = cogscale_esn_hyperparameters_for(task, "small", budget // 10)
            build = model_builder({"name": "esn", "preset": "cogscale-paper", "budget": budget, "reservoir_seed": seed,
                                   **hp}, data.input_size, data.output_size)
            for kind in scores:
                with dense_bias() if kind == "dense" else contextlib.nullcontext():
                    _, fit = fit_esn(build, data, seed=seed)
                scores[kind].append(fit.metrics["test_score"])
        paper = published[(task, f"{budget // 1000}k")]
        cells = [f"{statistics.mean(v):.3f} ± {statistics.stdev(v):.3f}" for v in (scores["sparse"], scores["dense"], paper)]
        print(f"| {task} | {budget // 1000}k | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
