"""Build the dataset repo ``rote/rote-seeds`` (configs ``paper``, ``grid``, ``windows``).

Rows come from the pure generators in :mod:`rote_hf.symbolic`; this module only shapes them
into ``datasets.Dataset`` objects with declared features and hands them to the mirror writer.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from rote_hf.mirror.cards import instance_block, reader_sections
from rote_hf.mirror.repo import BuiltRepo, refuse_config, write_dataset_repo
from rote_hf.symbolic import (
    ambiguity_rate,
    entropy_profile,
    lzw_complexity,
    make_windows,
    paper_seeds,
    predictive_order,
    reduce_period,
    seed_table,
)
from rote_hf.symbolic.generator import PAPER_COMPLEXITIES, PAPER_RANDOM_STATE, PAPER_SYMBOLS
from rote_hf.symbolic.windows import PAPER_HORIZON, PAPER_SEQUENCE_LENGTH, PAPER_WINDOW

if TYPE_CHECKING:  # pragma: no cover
    import datasets

REPO = "rote-seeds"
GRID_ITERATIONS = 10  # generated seeds per (n, c) cell before keeping exact κ == c


def _diagnostics(seed: str) -> dict[str, object]:
    return {
        "length": len(seed),
        "period": len(reduce_period(seed)),
        "lzw_count": lzw_complexity(seed),
        "r_star": predictive_order(seed),
        "alpha_100": ambiguity_rate(seed, PAPER_WINDOW),
        "entropy_nats": entropy_profile(seed),
    }


def _features(extra: dict) -> "datasets.Features":
    from datasets import Features, List, Value

    return Features(
        {
            **extra,
            "length": Value("int32"),
            "period": Value("int32"),
            "lzw_count": Value("int32"),
            "r_star": Value("int32"),
            "alpha_100": Value("float64"),
            "entropy_nats": List(Value("float64")),
        }
    )


def paper_rows() -> list[dict]:
    """The 44 published seeds with their diagnostics."""
    return [
        {
            "name": s.name,
            "track": s.track,
            "n_symbols": s.n_symbols,
            "complexity": s.complexity,
            "seed_index": s.seed_index,
            "random_state": s.random_state,
            "seed": s.seed,
            **_diagnostics(s.seed),
        }
        for s in paper_seeds()
    ]


def grid_rows(
    symbols: Iterable[int] = PAPER_SYMBOLS,
    complexities: Iterable[int] = PAPER_COMPLEXITIES,
    iterations: int = GRID_ITERATIONS,
    random_state: int = PAPER_RANDOM_STATE,
) -> list[dict]:
    """Reference-scheme seeds over the grid; only exact κ == c rows are kept."""
    return [
        {
            "n_symbols": r.n_symbols,
            "complexity": r.target_complexity,
            "iteration": r.iteration,
            "random_state": r.random_state,
            "seed": r.seed,
            **_diagnostics(r.seed),
        }
        for r in seed_table(symbols, complexities, iterations, random_state)
        if r.exact
    ]


def window_rows(split: str) -> list[dict]:
    """One row per paper seed: the span of ``split``'s windows as one string, plus the rollout pair.

    Window j of the row is ``text[j:j+window]`` with target ``text[j+window]``
    (j = 0 .. num_windows-1); it is window ``first_window + j`` of the seed's stream.
    """
    rows = []
    for s in paper_seeds():
        w = make_windows(s.seed, PAPER_SEQUENCE_LENGTH, PAPER_WINDOW, PAPER_HORIZON)
        span = w.split_range(split)
        prefix = "".join(w.alphabet[i] for i in w.prefix_ids)
        rows.append(
            {
                "name": s.name,
                "track": s.track,
                "n_symbols": s.n_symbols,
                "complexity": s.complexity,
                "seed_index": s.seed_index,
                "seed": s.seed,
                "alphabet": w.alphabet,
                "sequence_length": w.sequence_length,
                "window": w.window,
                "horizon": w.horizon,
                "first_window": span.start,
                "num_windows": len(span),
                "text": prefix[span.start : span.stop + w.window],
                "context": w.context,
                "target": w.target,
            }
        )
    return rows


def iter_windows(row: dict) -> Iterable[tuple[str, str]]:
    """Expand one ``windows`` row into its ``(context, next_symbol)`` pairs."""
    text, w = row["text"], row["window"]
    for j in range(row["num_windows"]):
        yield text[j : j + w], text[j + w]


def build(root: Path, *, progress: bool = True, config: str | None = None) -> BuiltRepo:
    """Write ``<root>/rote/rote-seeds/``; byte-identical on every run. The three configs are
    always built together (``config`` must stay ``None``)."""
    refuse_config(REPO, config)
    from datasets import Dataset, Features, Value

    i32, i64, text = Value("int32"), Value("int64"), Value("string")
    paper = Dataset.from_list(
        paper_rows(),
        features=_features(
            {"name": text, "track": text, "n_symbols": i32, "complexity": i32, "seed_index": i32, "random_state": i64, "seed": text}
        ),
    )
    grid = Dataset.from_list(
        grid_rows(),
        features=_features({"n_symbols": i32, "complexity": i32, "iteration": i32, "random_state": i64, "seed": text}),
    )
    window_features = Features(
        {
            "name": text, "track": text, "n_symbols": i32, "complexity": i32, "seed_index": i32, "seed": text,
            "alphabet": text, "sequence_length": i32, "window": i32, "horizon": i32,
            "first_window": i32, "num_windows": i32, "text": text, "context": text, "target": text,
        }
    )  # fmt: skip
    windows = {
        split: Dataset.from_list(window_rows(split), features=window_features)
        for split in ("train", "validation", "test")
    }
    card = resources.files("rote_hf.datasets").joinpath("rote_seeds.md").read_text(encoding="utf-8")
    card += "\n" + reader_sections(
        target=REPO, instance="One row of `paper`:\n\n" + instance_block(paper[0]),
        supported="Training data of the ROTE protocol (next-symbol prediction, then a closed-loop rollout "
        "scored by exact match, DL and JW distance): the ROTE tab of the "
        "[rote-hf leaderboard](https://huggingface.co/spaces/rote/leaderboard) and the `rote` rows of "
        "`rote/results`.",
        uses="Reproduce the ROTE paper's Table 2 and Table 3 (`paper`, `windows`); train any sequence model "
        "as a finite-context predictor and compare its exact-rollout rate with the papers' (`grid` adds "
        "fresh seeds of the same complexities).",
        limitations="Synthetic periodic strings: exact memorisation of a seed says nothing about "
        "generalisation to other strings. 44 paper seeds, 2 per (n, c) cell, so per-cell rates are coarse.",
    )
    return write_dataset_repo(
        root,
        REPO,
        {"paper": {"train": paper}, "grid": {"train": grid}, "windows": windows},
        card,
        default_config="paper",
        progress=progress,
        card_meta={
            "license": "mit",
            "pretty_name": "ROTE seeds",
            "task_categories": ["text-generation"],
            "task_ids": ["language-modeling"],
            "tags": ["rote", "lzw", "memorization", "symbolic-sequences", "synthetic", "non-linguistic"],
            "size_categories": ["n<1K"],
            "source_datasets": ["original"],
        },
    )
