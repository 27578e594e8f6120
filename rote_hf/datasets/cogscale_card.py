"""The dataset card of ``rote/cogscale``: the template ``cogscale.md`` beside this module, with
the tasks (a tiny illustration each, rendered from generated samples, so it always shows what the
data holds) and the presets table filled in."""

from __future__ import annotations

from importlib import resources

import numpy as np

from rote_hf.cogscale import DIFFICULTIES, PRESETS, TASKS, build_task
from rote_hf.cogscale.cross_situation import grammar
from rote_hf.datasets.cogscale_hf import split_tables
from rote_hf.mirror.cards import instance_block, reader_sections

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
    """The card's Markdown: the template ``cogscale.md`` with the tasks (rendered from generated
    samples), the presets table and the configs of this build filled in."""
    tasks = [f"### {name} ({task.category})\n\n{task.summary}.\n\n```text\n{illustrate(name)}\n```\n"
             for name, task in TASKS.items()]
    template = resources.files("rote_hf.datasets").joinpath("cogscale.md").read_text(encoding="utf-8")
    body = template.format(built=", ".join(f"`{c}`" for c in configs), tasks="\n".join(tasks), presets=_presets_table())
    return body + "\n" + reader_sections(
        target="cogscale", instance="The first training row of `simple_copy-small` (one-hot steps, lists cut):\n\n"
        + instance_block(next(split_tables("simple_copy", "small", 0, "train")).slice(0, 1).to_pylist()[0]),
        supported="The 14 CogScale tasks ([arXiv:2605.19758](https://arxiv.org/abs/2605.19758)), scored by "
        "`rote/cogscale_score`: the CogScale tab of the "
        "[rote-hf leaderboard](https://huggingface.co/spaces/rote/leaderboard) and the `cogscale` rows of `rote/results`.",
        uses="Train sequence models at a parameter budget on each task and difficulty and compare with the "
        "paper's grid (our reproduction rows are in `rote/results`); probe memory, copying, counting and "
        "forecasting separately.",
        limitations="See the known quirks above: several tasks have shortcuts or error floors, and the "
        "forecasting splits overlap in their inputs. Scores of different categories (error rate vs MSE) are "
        "not comparable.",
    )
