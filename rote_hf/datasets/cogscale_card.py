"""The dataset card of ``rote/cogscale``: tasks with a tiny illustration, presets, scoring,
quirks, license and citation. Illustrations are rendered from generated samples, so they
always show what the data holds."""

from __future__ import annotations

import numpy as np

from rote_hf.cogscale import DIFFICULTIES, PRESETS, TASKS, build_task

# tiny parameters for the illustrations (one sample, seed 0)
_TINY = {
    "discrete_postcasting": dict(sequence_length=8, delay=2, n_symbols=3),
    "continuous_postcasting": dict(sequence_length=6, delay=2),
    "discrete_pattern_completion": dict(sequence_length=10, n_symbols=3, base_length=3),
    "continuous_pattern_completion": dict(sequence_length=8, base_length=3),
    "bracket_matching": dict(sequence_length=8, max_depth=3),
    "simple_copy": dict(sequence_length=4, delay=2, n_symbols=3),
    "selective_copy": dict(sequence_length=6, delay=1, n_markers=2, n_symbols=3),
    "adding_problem": dict(sequence_length=5, max_number=3),
    "sorting_problem": dict(sequence_length=4, n_symbols=3),
    "associative_recall": dict(sequence_length=10, num_pairs=2, n_symbols=5),
    "induction_heads": dict(sequence_length=10, n_symbols=3),
}

QUIRKS = """\
- **Trivial rules.** Counting '(' against ')' alone answers bracket_matching with 97 / 95 / 97 %
  accuracy (small / medium / large), so it hardly tests hierarchy. induction_heads is a fixed-lag
  recall (`Y[t] = X[t+1-L/2]`): no trigger and no content matching is needed.
- **Pattern completion** scores masked steps in RNG order (T is unsorted); a masked position whose
  phase has not appeared unmasked yet is unpredictable for a causal model (error floor about
  0.056 / 0.073 / 0.060 on the seed-0 test data).
- **associative_recall** at small has 3 keys over a 3-symbol key vocabulary, so chance error is 2/3;
  the PAD token never occurs and only `n_symbols - 2` of the output classes can be targets.
- **Forecasting** tasks have no randomness (the seed is ignored) and their splits are nested
  prefixes of one sequence: inputs of validation/test contain the training part, only the scored
  windows (T) are disjoint. A persistence forecast is worse than predicting 0 for the sinus.
- **cross_situation** columns: the reference orders the input words by Python `set` order, which
  depends on `PYTHONHASHSEED`. This dataset uses the alphabetical vocabulary order (recorded in
  the metadata as `column_order: alphabetical`); Y and T are unaffected.
- **Splits** are consecutive pieces of one RNG stream: changing `n_train` changes the validation
  and test samples. The reference's `seed=None` default is not reproducible; here seed 0 is used.
- Y is non-zero outside T for the pattern-completion and forecasting tasks; scores use T only.
"""

SCORING = """\
`compute_score` of the reference, on the steps listed in `timesteps` only (lower is better):
- **classification**: error rate of `argmax` over the output features;
- **multi_classification** (cross_situation): predictions are logits, `sigmoid >= 0.5`, label-wise
  (Hamming) error over all labels;
- **regression**: mean squared error.
The metric is available as `evaluate.load("rote/cogscale_score")`.
"""

CITATION = """\
```bibtex
@inproceedings{cogscale2026,
  title={CogScale: Scalable Benchmark for Sequence Processing},
  author={Bendi-Ouis Yannis, De Coudenhove Romain and Hinaut Xavier},
  year={2026},
  note={arXiv:2605.19758}
}
```
"""


def _symbols(rows: np.ndarray) -> list[str]:
    """One token per step: the hot channel(s) of a one-hot row, '.' for an all-zero row."""
    out = []
    for r in rows:
        hot = np.flatnonzero(r)
        out.append("+".join(str(h) for h in hot) if len(hot) else ".")
    return out


def illustrate(name: str) -> str:
    """A two-line picture of one tiny sample of ``name`` (inputs; targets at scored steps)."""
    if name in ("sinus_forecasting", "chaotic_forecasting"):
        d = build_task(name, "small")
        x = d["X_train"][0, :8, 0]
        return "x[t] (first feature): " + " ".join(f"{v:+.2f}" for v in x) + " ...\ny[t] = x[t + forecast_length]"
    if name == "cross_situation":
        from rote_hf.cogscale.cross_situation import grammar

        p = PRESETS["small"][name]
        g = grammar(p["objects"], p["colors"], p["positions"])
        k = int(np.random.default_rng(0).integers(0, g.n_pairs))
        i, j = divmod(k, len(g.sentences))
        slots = list(p["objects"]) + list(p["colors"]) + list(p["positions"]) + ["this", "that", "is"]
        lab = [" ".join(s for s, v in zip(slots, g.labels[m]) if v) for m in (i, j)]
        return f'sentence: "{g.two_situation_sentence(k)}"\nlabels at the last step: [{lab[0]}] + [{lab[1]}]'
    d = build_task(name, "small", 0, n_train=1, n_valid=0, n_test=0, **_TINY[name])
    X, Y, T = d["X_train"][0], d["Y_train"][0], d["T_train"][0]
    if X.shape[1] == 1:
        xs = [f"{v:.1f}" for v in X[:, 0]]
        ys = [f"{Y[t, 0]:.1f}" if t in T else "_" for t in range(len(Y))]
    else:
        xs = _symbols(X)
        ys = [_symbols(Y[t:t + 1])[0] if t in T else "_" for t in range(len(Y))]
    params = ", ".join(f"{k}={v}" for k, v in _TINY[name].items())
    return f"({params})\nx: {' '.join(xs)}\ny: {' '.join(ys)}"


def _presets_table() -> str:
    head = "| task | category | " + " | ".join(DIFFICULTIES) + " |\n|---|---|" + "---|" * len(DIFFICULTIES)
    lines = [head]
    for name, task in TASKS.items():
        cells = []
        for difficulty in DIFFICULTIES:
            p = PRESETS[difficulty][name]
            cells.append(", ".join(f"{k}={v}" for k, v in p.items() if not k.startswith("n_") or k == "n_symbols" or k == "n_markers"))
        lines.append(f"| {name} | {task.category} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Samples per split (train / validation / test): small 100 / 20 / 100, medium 1000 / 200 / 1000, "
                 "large 10000 / 2000 / 10000. Forecasting tasks: one sequence; train 45 %, validation 10 %, test 45 %.")
    return "\n".join(lines)


def card_body(configs: list[str]) -> str:
    tasks = []
    for name, task in TASKS.items():
        tasks.append(f"### {name} ({task.category})\n\n{task.summary}.\n\n```text\n{illustrate(name)}\n```\n")
    built = ", ".join(f"`{c}`" for c in configs)
    return f"""# CogScale

The 14 synthetic sequence tasks of *CogScale: Scalable Benchmark for Sequence Processing*
(Bendi-Ouis, de Coudenhove, Hinaut, 2026) at three difficulties, generated by `rote_hf.cogscale`,
which reproduces the authors' reference generator (`cogscale` 0.1.x) byte for byte (seed 0).

```python
from datasets import load_dataset
ds = load_dataset("rote/cogscale", "simple_copy-small")
```

Configs are named `{{task}}-{{difficulty}}`; splits are `train`, `validation`, `test`. Columns:
`inputs` (float64, `[time, n_in]`), `targets` (float64, `[time, n_out]`) and `timesteps` (int64,
the scored time steps, the reference's `T`). To get the reference arrays back:
`rote_hf.datasets.cogscale_hf.to_arrays(ds["train"])` -> `(X, Y, T)`. For unlimited fresh samples use
`rote_hf.datasets.cogscale_hf.iterable_dataset(task, difficulty, seed)`.

Configs in this build: {built}.

## Tasks

{chr(10).join(tasks)}
## Presets

{_presets_table()}

## Scoring

{SCORING}
## Known quirks of the original benchmark

{QUIRKS}
## License and citation

The generator and data follow the reference code's MIT license (Copyright (c) 2025 Yannis Bendi-Ouis).

{CITATION}"""
