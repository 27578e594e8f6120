"""Build target ``cogscale``: the dataset repo ``rote/cogscale`` (one config per task and difficulty).

Each (config, split) is generated chunk by chunk and streamed to Parquet
(:func:`rote_hf.mirror.stream.write_streaming_repo`), so memory stays bounded whatever the
difficulty. By default small and medium are built (28 configs, fast); ``config="large"`` or
``"all"`` adds the large ones, a single name builds one config. Configs already in the repo
and not rebuilt are kept byte for byte.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import yaml

from rote_hf.cogscale import DIFFICULTIES, TASKS, resolve_params
from rote_hf.datasets.cogscale_card import card_body
from rote_hf.datasets.cogscale_hf import HF_SPLITS, features, split_tables
from rote_hf.mirror.repo import BuiltRepo, repo_dir
from rote_hf.mirror.stream import KeptSplit, StreamedSplit, write_streaming_repo

REPO = "cogscale"
SEED = 0
DEFAULT_DIFFICULTIES = ("small", "medium")
DEFAULT_CONFIG = "simple_copy-small"
PARAMS_FILE = "generation_params.json"


def config_name(task: str, difficulty: str) -> str:
    return f"{task}-{difficulty}"


ALL_CONFIGS = tuple(config_name(t, d) for d in DIFFICULTIES for t in TASKS)


def parse_config(config: str | None) -> list[str]:
    """Config names selected by ``config``: None (small + medium), a difficulty, 'all' or one name."""
    if config is None:
        return [c for c in ALL_CONFIGS if c.rsplit("-", 1)[1] in DEFAULT_DIFFICULTIES]
    if config == "all":
        return list(ALL_CONFIGS)
    if config in DIFFICULTIES:
        return [c for c in ALL_CONFIGS if c.endswith("-" + config)]
    if config in ALL_CONFIGS:
        return [config]
    raise ValueError(
        f"config must be 'all', a difficulty {list(DIFFICULTIES)} or a name '<task>-<difficulty>' "
        f"with task in {list(TASKS)}, got {config!r}"
    )


def config_splits(task: str, difficulty: str, seed: int = SEED) -> dict[str, StreamedSplit]:
    """``{split: StreamedSplit}`` of one config (nothing is generated until written)."""
    feats = features(task, difficulty)
    return {
        split: StreamedSplit(feats, partial(split_tables, task, difficulty, seed, split))
        for split in HF_SPLITS.values()
    }


def _config_meta(name: str) -> dict:
    task, difficulty = name.rsplit("-", 1)
    params = yaml.safe_load(yaml.safe_dump(_plain(resolve_params(task, difficulty))))
    meta = {"task": task, "difficulty": difficulty, "category": TASKS[task].category, "seed": SEED, "params": params}
    if task == "cross_situation":
        meta["column_order"] = "alphabetical"
    return meta


def _plain(value):
    """Tuples -> lists, recursively (safe YAML)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _existing(root: Path, skip: list[str]) -> dict[str, dict[str, KeptSplit]]:
    """Configs already in the repo and not being rebuilt, kept as their Parquet files."""
    target = repo_dir(root, REPO)
    readme = target / "README.md"
    if not readme.exists():
        return {}
    meta = yaml.safe_load(readme.read_text(encoding="utf-8").split("---\n")[1]) or {}
    counts = {i["config_name"]: {s["name"]: s["num_examples"] for s in i.get("splits", [])} for i in meta.get("dataset_info", [])}
    kept: dict[str, dict[str, KeptSplit]] = {}
    for entry in meta.get("configs", []):
        name = entry["config_name"]
        if name in skip or name not in ALL_CONFIGS:
            continue
        files = {f["split"]: tuple(sorted(target.glob(f["path"]))) for f in entry["data_files"]}
        if all(files.values()) and set(files) <= set(counts.get(name, {})):
            feats = features(*name.rsplit("-", 1))
            kept[name] = {s: KeptSplit(feats, p, counts[name][s]) for s, p in files.items()}
    return kept


def build(root: Path, *, progress: bool = True, config: str | None = None) -> BuiltRepo:
    """Write ``<root>/rote/cogscale/``; see the module docstring for ``config``."""
    from tqdm.auto import tqdm

    selected = parse_config(config)
    configs: dict = _existing(Path(root), selected)
    for name in selected:
        configs[name] = config_splits(*name.rsplit("-", 1))
    ordered = {c: configs[c] for c in ALL_CONFIGS if c in configs}
    meta = {
        "license": "mit",
        "pretty_name": "CogScale",
        "task_categories": ["time-series-forecasting", "other"],
        "task_ids": ["multivariate-time-series-forecasting"],
        "tags": ["synthetic", "sequence-modeling", "memory", "benchmark", "non-linguistic", "arxiv:2605.19758"],
        "source_datasets": ["original"],
    }
    # per-config generation parameters: a file beside the card, not non-standard card YAML
    params = json.dumps({c: _config_meta(c) for c in ordered}, indent=1, sort_keys=True) + "\n"
    default = DEFAULT_CONFIG if DEFAULT_CONFIG in ordered else None
    with tqdm(total=len(ordered), desc="rote/cogscale configs", disable=not progress) as bar:
        return write_streaming_repo(
            root, REPO, ordered, card_body(list(ordered)), default_config=default, card_meta=meta,
            on_config=lambda name: bar.update(1), extra_files={PARAMS_FILE: params},
        )
