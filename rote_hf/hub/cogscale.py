"""Build target ``cogscale``: the dataset repo ``rote/cogscale`` (one config per task and difficulty).

Each (config, split) is generated chunk by chunk into an on-disk Arrow table
(``Dataset.from_generator`` with a bounded writer batch) and written to Parquet by
:func:`rote_hf.hub.mirror.write_dataset_repo`, so memory stays bounded whatever the difficulty.
By default small and medium are built (28 configs, fast); ``config="large"`` or ``"all"`` adds
the large ones. Building a subset keeps the configs already in the repo.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path

import yaml

from rote_hf.cogscale import DIFFICULTIES, TASKS, resolve_params
from rote_hf.hub.mirror import BuiltRepo, parquet_path, repo_dir, write_dataset_repo

REPO = "cogscale"
SEED = 0
DEFAULT_DIFFICULTIES = ("small", "medium")
DEFAULT_CONFIG = "simple_copy-small"
WRITER_BYTES = 64 * 2**20  # Arrow writer batch size in bytes of float64 rows


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


def _row_bytes(task: str, difficulty: str) -> int:
    from rote_hf.cogscale.hf import feature_widths

    p = resolve_params(task, difficulty)
    steps = p.get("sequence_length", 1) * 3 + 64  # a generous upper bound on the time axis
    n_in, n_out = feature_widths(task, difficulty)
    return 8 * steps * (n_in + n_out)


def config_splits(task: str, difficulty: str, cache_dir: str, seed: int = SEED) -> dict:
    """``{split: datasets.Dataset}`` of one config, generated into ``cache_dir``."""
    import datasets

    from rote_hf.cogscale.hf import HF_SPLITS, features, split_rows

    feats = features(task, difficulty)
    batch = max(1, min(1000, WRITER_BYTES // _row_bytes(task, difficulty)))
    out = {}
    for split in HF_SPLITS.values():
        out[split] = datasets.Dataset.from_generator(
            split_rows, features=feats, cache_dir=cache_dir, writer_batch_size=batch, keep_in_memory=False,
            gen_kwargs={"name": task, "difficulty": difficulty, "seed": seed, "split": split},
        )
    return out


def _config_meta(name: str) -> dict:
    task, difficulty = name.rsplit("-", 1)
    params = {k: (list(v) if isinstance(v, tuple) else v) for k, v in resolve_params(task, difficulty).items()}
    params = yaml.safe_load(yaml.safe_dump(params))  # plain lists, also for nested synonym tuples
    meta = {"task": task, "difficulty": difficulty, "category": TASKS[task].category, "seed": SEED, "params": params}
    if task == "cross_situation":
        meta["column_order"] = "alphabetical"
    return meta


def _existing(root: Path, cache_dir: str, skip: Iterable[str]) -> dict:
    """Configs already in the repo (not being rebuilt), reloaded from their Parquet files."""
    import datasets

    target = repo_dir(root, REPO)
    readme = target / "README.md"
    if not readme.exists():
        return {}
    front = readme.read_text(encoding="utf-8").split("---\n")[1]
    kept = {}
    for entry in yaml.safe_load(front).get("configs", []):
        name = entry["config_name"]
        if name in skip or name not in ALL_CONFIGS:
            continue
        files = {f["split"]: target / f["path"] for f in entry["data_files"]}
        if all(p.exists() for p in files.values()):
            kept[name] = {s: datasets.Dataset.from_parquet(str(p), cache_dir=cache_dir) for s, p in files.items()}
    return kept


def build(root: Path, *, progress: bool = True, config: str | None = None) -> BuiltRepo:
    """Write ``<root>/rote/cogscale/``; see the module docstring for ``config``."""
    import datasets
    from tqdm.auto import tqdm

    from rote_hf.hub.cogscale_card import card_body

    selected = parse_config(config)
    was_enabled = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        with tempfile.TemporaryDirectory(prefix="cogscale-build-") as cache:
            configs = _existing(Path(root), cache, selected)
            for name in tqdm(selected, desc="cogscale configs", disable=not progress):
                task, difficulty = name.rsplit("-", 1)
                configs[name] = config_splits(task, difficulty, cache)
            ordered = {c: configs[c] for c in ALL_CONFIGS if c in configs}
            meta = {
                "license": "mit",
                "pretty_name": "CogScale",
                "task_categories": ["time-series-forecasting", "other"],
                "tags": ["synthetic", "sequence-modeling", "memory", "benchmark"],
                "cogscale_configs": {c: _config_meta(c) for c in ordered},
            }
            default = DEFAULT_CONFIG if DEFAULT_CONFIG in ordered else None
            return write_dataset_repo(root, REPO, ordered, card_body(list(ordered)), default_config=default, card_meta=meta)
    finally:
        if was_enabled:
            datasets.enable_progress_bars()


__all__ = ["ALL_CONFIGS", "REPO", "build", "config_name", "config_splits", "parse_config", "parquet_path"]
