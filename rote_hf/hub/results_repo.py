"""The results dataset ``rote/results``: our runs (config ``ours``) and the papers' published rows
(config ``paper``), in the row schema of :mod:`rote_hf.results.schema`, plus typed columns for Hub
readers.

The stored columns are kept as they are (the leaderboard Space and ``rote_hf.results`` read the
repo with that schema); the export adds, after them, one ``float64`` column per headline metric
(:data:`TYPED_METRICS`, ``metric_<key>``, null where a row has no such metric) and
``timestamp_utc`` (``timestamp[s, tz=UTC]``, parsed from the ISO text of ``timestamp``), so the
dataset viewer can sort and filter them without decoding the ``metrics`` JSON text.

Only rows that a maintainer vouches for are published from a store: :func:`store_rows` refuses a
store holding failed or unverified rows unless asked to include them (``--include-failed``).
"""

from __future__ import annotations

import os
from pathlib import Path

from rote_hf.mirror.cards import NON_LINGUISTIC, REPOSITORY, citation_block, instance_block
from rote_hf.mirror.repo import BuiltRepo, write_dataset_repo
from rote_hf.results import ResultStore
from rote_hf.results.schema import COLUMNS, arrow_schema
from rote_hf.results.shipped import SHIPPED_CONFIGS, shipped_table

RESULTS = "results"

RESULTS_CONFIGS = {
    "ours": "our runs: the reproduction rows shipped with rote-hf and the runs of the results store "
            "given to `rote-hf publish --results DIR`",
    "paper": "the published numbers of the three papers (`source = paper`, one row per table cell or "
             "released run), shipped with the package",
}

TYPED_METRICS: dict[str, str] = {
    "DL": "ROTE: normalised Damerau-Levenshtein distance of the greedy rollout (lower is better)",
    "JW": "ROTE: Jaro-Winkler distance of the rollout (lower is better)",
    "exact": "ROTE: 1 when the rollout equals the withheld continuation",
    "test_loss": "ROTE: cross-entropy on the test windows (nats)",
    "test_accuracy": "ROTE: next-symbol accuracy on the test windows",
    "test_score": "CogScale: test score, 0 = perfect (error rate, label-wise error or MSE)",
    "best_val_score": "CogScale: best validation score over the epochs (selects the learning rate)",
    "accuracy": "OEIS-LLM: share of sequences whose next terms are all right",
    "abstention_rate": "OEIS-LLM: share of NO_FORMULA_FOUND answers",
    "confabulation_rate": "OEIS-LLM: share of wrong answers given with confidence >= 4",
}
"""Headline metrics exported as typed ``metric_<key>`` columns (key of ``ResultRow.metrics`` -> meaning)."""

COLUMN_DOCS: dict[str, tuple[str, str]] = {
    "run_id": ("string", "`<suite>-<model>-<task>-<hash16>`: one run (published rows: one table cell)"),
    "suite": ("string", "`rote`, `rote_matched`, `cogscale` or `mdl`"),
    "task": ("string", "the task (ROTE: `n<n>-c<c>`; CogScale: `<task>-<difficulty>`; MDL: stratum)"),
    "model": ("string", "architecture or LLM name"),
    "config": ("string", "the task's configuration name"),
    "task_params": ("string (JSON)", "task parameters"),
    "model_config": ("string (JSON)", "model configuration"),
    "param_count": ("int64", "trainable parameters"),
    "budget": ("string", "parameter budget label (`1k`, `100k`, `1M`)"),
    "data_seed": ("int64", "seed of the data"),
    "init_seed": ("int64", "seed of the model initialisation"),
    "run": ("int64", "repeat index"),
    "protocol": ("string", "fit protocol"),
    "learning_rate": ("float64", "learning rate"),
    "settings": ("string (JSON)", "protocol settings"),
    "status": ("string", "`ok` or `failed`"),
    "error": ("string", "why a failed run failed"),
    "metrics": ("string (JSON)", "every metric of the run (the typed `metric_*` columns copy the headline ones)"),
    "outputs": ("string (JSON)", "string outputs, e.g. a ROTE forecast"),
    "score_name": ("string", "the suite's headline metric"),
    "score": ("float64", "its value"),
    "lower_is_better": ("bool", "ranking direction of `score`"),
    "train_time_s": ("float64", "training time, seconds"),
    "time_per_epoch_s": ("float64", "seconds per epoch"),
    "epochs": ("int64", "epochs trained"),
    "peak_cuda_mb": ("float64", "peak CUDA memory, MiB"),
    "peak_cpu_mb": ("float64", "peak CPU memory, MiB"),
    "device": ("string", "device the run used"),
    "source": ("string", "`ours`, `paper` or `submitted`"),
    "package_version": ("string", "rote-hf version that produced the row"),
    "git_commit": ("string", "commit of the code"),
    "dataset_fingerprint": ("string", "SHA-256 prefix of the exact training arrays"),
    "config_name": ("string", "sweep config that ran it"),
    "config_hash": ("string", "hash of the run's identity"),
    "timestamp": ("string", "when the row was written, ISO 8601 UTC (typed copy: `timestamp_utc`)"),
    "verified": ("bool", "produced by the maintainers' documented configs"),
    "schema_version": ("int64", "version of the row layout"),
}
"""Type and meaning of each stored column, for the card's column table."""

RESULTS_CARD = """# rote-hf results

Result rows of the rote-hf leaderboard: one row per training run (ROTE, CogScale) or per
model x MDL stratum (LLM query), beside the published numbers of the three papers.

```python
from datasets import load_dataset
{examples}
```

{configs}

The leaderboard Space reads this repo when its variable `ROTE_RESULTS_REPO=rote/results` is set.

## Example instance

One row of `paper` (long text shortened):

{example}
## Columns

| column | type | meaning |
|---|---|---|
{columns}

Every row carries its provenance: `source`, `package_version`, `git_commit`,
`dataset_fingerprint`, `config_hash`, `timestamp` and `verified`.

## Uses

Compare a new model with the papers and our reproductions on the same tasks; recompute the
leaderboard's tables (`rote-hf results --view <suite>` reads these rows); check a reproduction
row against its published cell.

## Language

{non_linguistic}

## Limitations

Our rows cover the configs run so far (see the leaderboard's reproduction view); the papers' rows
are what the authors published (summary statistics or released runs), not reruns. Metrics of
different suites are not comparable with each other.

## Supported tasks and leaderboards

These are the rows of the [rote-hf leaderboard](https://huggingface.co/spaces/rote/leaderboard):
ROTE exact memorisation of symbolic sequences, the CogScale sequence-processing tasks
([arXiv:2605.19758](https://arxiv.org/abs/2605.19758)) and the OEIS-LLM evaluation stratified by
MDL difficulty.

## Licences

Config by config (`LICENSE.md` holds the notices):

- `ours`: MIT, like [rote-hf]({repository}).
- `paper`: the published results under their authors' licences: ROTE (nla-group/slearn and
  nla-group/rote archives): MIT License, Copyright (c) 2021 Numerical Linear Algebra Group, The
  University of Manchester. CogScale (Naowak/CogScale `baseline/results`): MIT License,
  Copyright (c) 2025 Yannis Bendi-Ouis. MDL LLM evaluation
  (sabilashang/where-induction-runs-out `results/llm_eval.csv`): the authors' released per-row
  results, redistributed with attribution; cite the paper below.

## Citation

{citation}"""
"""Card of ``rote/results``; ``{configs}`` and ``{examples}`` list only the configs built."""

LICENSE_FILE = """# Licences of rote/results

This dataset mixes rows under different terms, config by config.

## Config `ours`

MIT License. Copyright (c) 2026 rote-hf contributors.

## Config `paper`

- ROTE rows (nla-group/slearn and nla-group/rote archives): MIT License,
  Copyright (c) 2021 Numerical Linear Algebra Group, The University of Manchester.
- CogScale rows (Naowak/CogScale `baseline/results`): MIT License,
  Copyright (c) 2025 Yannis Bendi-Ouis.
- MDL LLM-evaluation rows (sabilashang/where-induction-runs-out `results/llm_eval.csv`): the
  authors' released results, redistributed with attribution to Ganeshan (2026), *Where Induction
  Runs Out*; the model outputs they summarise remain the model providers'.

The MIT License: Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files, to deal in them without restriction, subject
to the copyright notice above and this permission notice being included in all copies. THE
SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.
"""

ROTE_BIBTEX = r"""@inproceedings{cahuantzi2023comparison,
  title     = {A Comparison of {LSTM} and {GRU} Networks for Learning Symbolic Sequences},
  author    = {Cahuantzi, Roberto and Chen, Xinye and G{\"u}ttel, Stefan},
  booktitle = {Intelligent Computing (SAI 2023)},
  series    = {Lecture Notes in Networks and Systems},
  volume    = {739},
  publisher = {Springer},
  year      = {2023},
  doi       = {10.1007/978-3-031-37963-5_53}
}"""
COGSCALE_BIBTEX = """@misc{bendiouis2026cogscale,
  title         = {{CogScale}: Scalable Benchmark for Sequence Processing},
  author        = {Bendi-Ouis, Yannis and de Coudenhove, Romain and Hinaut, Xavier},
  year          = {2026},
  eprint        = {2605.19758},
  archivePrefix = {arXiv},
  url           = {https://github.com/Naowak/CogScale}
}"""
MDL_BIBTEX = """@misc{ganeshan2026induction,
  title  = {Where Induction Runs Out: Description-Length Difficulty and the Memorisation Gap
            in Integer-Sequence Benchmarks},
  author = {Ganeshan, Sabilashan},
  year   = {2026},
  note   = {Code and data: https://github.com/sabilashang/where-induction-runs-out}
}"""


def results_card(configs: list[str], example: dict | None = None) -> str:
    """The card body of ``rote/results`` documenting exactly ``configs`` (``example``: one row shown)."""
    unknown = sorted(set(configs) - set(RESULTS_CONFIGS))
    if unknown:
        raise ValueError(f"configs must be among {sorted(RESULTS_CONFIGS)}, got {unknown}")
    listed = "\n".join(f"- config `{c}`: {RESULTS_CONFIGS[c]}." for c in configs)
    examples = "\n".join(f'{c} = load_dataset("rote/results", "{c}", split="train")' for c in configs)
    columns = [f"| `{name}` | {COLUMN_DOCS[name][0]} | {COLUMN_DOCS[name][1]} |" for name in COLUMNS]
    columns += [f"| `metric_{key}` | float64 | {meaning} |" for key, meaning in TYPED_METRICS.items()]
    columns.append("| `timestamp_utc` | timestamp[s, UTC] | `timestamp` as a typed time |")
    return RESULTS_CARD.format(configs=listed, examples=examples, columns="\n".join(columns),
                               example=instance_block(example or {}, limit=80), repository=REPOSITORY,
                               citation=citation_block(ROTE_BIBTEX, COGSCALE_BIBTEX, MDL_BIBTEX),
                               non_linguistic=NON_LINGUISTIC)


def store_rows(results: str | os.PathLike, *, include_failed: bool = False):
    """The rows of the results store at ``results`` to publish, as an Arrow table of the row schema.

    ``FileNotFoundError`` when ``results`` is not a folder; ``ValueError`` (naming ``--results``
    and the counts) when it holds failed or unverified rows and not ``include_failed``: a store
    of local smoke runs must not be published as our rows by accident.
    """
    import pyarrow.compute as pc

    folder = Path(results)
    if not folder.is_dir():
        raise FileNotFoundError(f"--results must be a results store folder; {str(folder)!r} is not a folder")
    table = ResultStore(folder).table()
    failed = int(pc.sum(pc.equal(table.column("status"), "failed")).as_py() or 0) if table.num_rows else 0
    unverified = int(pc.sum(pc.invert(table.column("verified").fill_null(False))).as_py() or 0) if table.num_rows else 0
    if (failed or unverified) and not include_failed:
        raise ValueError(f"--results {folder}: {failed} failed and {unverified} unverified row(s) of {table.num_rows}; "
                         "publish verified rows only (rote-hf results --export-reproduction ships them) or pass --include-failed")
    return table


def typed_table(table):
    """``table`` (row schema) with the typed columns of the module docstring appended."""
    import json

    import pyarrow as pa
    import pyarrow.compute as pc

    metrics = [json.loads(m) if m else {} for m in table.column("metrics").to_pylist()]
    for key in TYPED_METRICS:
        values = [m.get(key) for m in metrics]
        table = table.append_column(f"metric_{key}", pa.array(
            [float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None for v in values], pa.float64()))
    text = pc.if_else(pc.equal(table.column("timestamp"), ""), None, table.column("timestamp"))
    stamps = pc.strptime(text, format="%Y-%m-%dT%H:%M:%SZ", unit="s", error_is_null=True)
    return table.append_column("timestamp_utc", pc.assume_timezone(stamps, "UTC"))


def build_results_repo(root: Path, results: str | os.PathLike | None, *, include_failed: bool = False) -> BuiltRepo:
    """``<root>/rote/results/``: configs ``ours`` (the shipped reproduction rows + the rows of the
    store at ``results``: :func:`store_rows`) and ``paper``, with the typed columns."""
    import datasets
    import pyarrow as pa
    import pyarrow.compute as pc
    from datasets.table import InMemoryTable

    from rote_hf.results.published import paper_rows  # lazy: imports numpy

    schema = arrow_schema()
    configs: dict[str, dict[str, datasets.Dataset]] = {}
    # our rows: the shipped reproduction rows (rote_hf.results.shipped), then the store's other runs
    ours = pa.concat_tables([shipped_table(name) for name in SHIPPED_CONFIGS])
    if results is not None:
        store = store_rows(results, include_failed=include_failed)
        shipped_ids = pa.array(ours.column("run_id").to_pylist(), pa.string())
        ours = pa.concat_tables([ours, store.filter(pc.invert(pc.is_in(store.column("run_id"), shipped_ids)))])
    if ours.num_rows:
        configs["ours"] = {"train": datasets.Dataset(InMemoryTable(typed_table(ours)))}
    paper = pa.Table.from_pylist([r.to_record() for r in paper_rows()], schema=schema)
    configs["paper"] = {"train": datasets.Dataset(InMemoryTable(typed_table(paper)))}
    example = {k: v for k, v in paper.slice(0, 1).to_pylist()[0].items()}
    return write_dataset_repo(
        root, RESULTS, configs, results_card(list(configs), example),
        default_config="ours" if "ours" in configs else "paper",
        card_meta={"license": "other", "license_name": "mit-and-published-results",
                   "license_link": "LICENSE.md", "pretty_name": "rote-hf results",
                   "tags": ["rote", "cogscale", "mdl", "leaderboard", "results", "arxiv:2605.19758"],
                   "source_datasets": ["extended"], "task_categories": ["other"]},
        extra_files={"LICENSE.md": LICENSE_FILE},
    )
