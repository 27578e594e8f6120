"""Write one hub dataset repo (Parquet files + README card) into the local mirror.

The mirror is a folder ``<root>/rote/<repo>/`` laid out exactly as it is uploaded, so that
``load_dataset("rote/<repo>", config)`` resolves it from ``<root>`` as the working directory.
Writes are atomic: the repo is assembled in a sibling temporary folder and swapped in with
``os.replace``; an interrupted build leaves the previous repo (or nothing) behind.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

if TYPE_CHECKING:  # pragma: no cover
    import datasets

ORG = "rote"


def repo_dir(root: str | os.PathLike, repo: str, *, org: str = ORG) -> Path:
    """The folder of hub repo ``<org>/<repo>`` (default ``rote/<repo>``) inside the mirror rooted at ``root``."""
    if not repo or "/" in repo or repo.startswith("."):
        raise ValueError(f"repo must be a plain repo name such as 'rote-seeds', got {repo!r}")
    if not org or "/" in org or org.startswith("."):
        raise ValueError(f"org must be a plain hub user or organisation name such as 'rote', got {org!r}")
    return Path(root) / org / repo


@dataclass(frozen=True)
class BuiltRepo:
    """What a build wrote: the repo folder and the row count of every (config, split)."""

    path: Path
    rows: dict[str, dict[str, int]]

    def summary(self) -> str:
        """One line: every (config, split) row count, or totals when there are many configs."""
        if len(self.rows) > 4:
            total = sum(n for splits in self.rows.values() for n in splits.values())
            return f"{self.path}  ({len(self.rows)} configs, {total:,} rows)"
        parts = [
            f"{config}: " + ", ".join(f"{split} {n}" for split, n in splits.items())
            for config, splits in self.rows.items()
        ]
        return f"{self.path}  ({'; '.join(parts)})"


MAX_FILE_BYTES = 500 * 2**20
"""Largest Parquet file a repo holds (the Hub's advice for datasets); a bigger split is sharded."""


def parquet_path(config: str, split: str, shard: int = 0, shards: int = 1) -> str:
    """Relative path of shard ``shard`` of ``shards`` of a (config, split) inside a dataset repo."""
    if not 0 <= shard < shards:
        raise ValueError(f"shard must be in 0..{shards - 1}, got {shard!r}")
    return f"data/{config}/{split}-{shard:05d}-of-{shards:05d}.parquet"


def split_pattern(config: str, split: str) -> str:
    """The ``data_files`` pattern of a (config, split): every shard :func:`parquet_path` names."""
    return f"data/{config}/{split}-*-of-*.parquet"


@dataclass(frozen=True)
class SplitInfo:
    """What a card says of one written split: its features, rows, Arrow size in bytes
    (``dataset_size``) and the bytes of its Parquet files (``download_size``; 0 when unknown)."""

    features: "datasets.Features"
    num_examples: int
    num_bytes: int
    file_bytes: int = 0

    @classmethod
    def of(cls, ds: "datasets.Dataset", file_bytes: int = 0) -> "SplitInfo":
        return cls(ds.features, len(ds), ds.data.nbytes, file_bytes)


SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
                   (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"))


def size_category(rows: int) -> str:
    """The Hub's ``size_categories`` value for a dataset of ``rows`` rows in all."""
    return next((label for bound, label in SIZE_CATEGORIES if rows < bound), "n>1T" if rows >= 10**12 else "100M<n<1B")


def card_yaml(
    configs: Mapping[str, Mapping[str, SplitInfo]],
    *,
    default_config: str | None,
    extra: Mapping[str, object] | None = None,
) -> str:
    """YAML front matter with ``configs:`` (data files) and ``dataset_info:`` (features, splits)."""
    import datasets

    meta: dict[str, object] = dict(extra or {})
    if "size_categories" not in meta:
        meta["size_categories"] = [size_category(sum(i.num_examples for splits in configs.values() for i in splits.values()))]
    meta["configs"] = [
        {
            "config_name": name,
            "data_files": [{"split": split, "path": split_pattern(name, split)} for split in splits],
            **({"default": True} if name == default_config else {}),
        }
        for name, splits in configs.items()
    ]
    infos = []
    for name, splits in configs.items():
        first = next(iter(splits.values()))
        info = datasets.DatasetInfo(features=first.features)._to_yaml_dict()
        infos.append(
            {
                "config_name": name,
                **info,
                "splits": [
                    {"name": split, "num_bytes": info.num_bytes, "num_examples": info.num_examples}
                    for split, info in splits.items()
                ],
                **({"download_size": sum(i.file_bytes for i in splits.values())}
                   if all(i.file_bytes for i in splits.values()) else {}),
                "dataset_size": sum(i.num_bytes for i in splits.values()),
            }
        )
    meta["dataset_info"] = infos
    return yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=100)


def write_dataset_repo(
    root: str | os.PathLike,
    repo: str,
    configs: Mapping[str, Mapping[str, "datasets.Dataset"]],
    card_body: str,
    *,
    default_config: str | None = None,
    card_meta: Mapping[str, object] | None = None,
    progress: bool = False,
    extra_files: Mapping[str, str] | None = None,
) -> BuiltRepo:
    """Write ``<root>/rote/<repo>/`` atomically: one Parquet file per (config, split) + README.md.

    ``configs`` maps config name -> split name -> ``datasets.Dataset``. Identical inputs give
    byte-identical files. ``card_body`` is the Markdown below the YAML front matter.
    ``progress`` shows one bar over the files written. ``extra_files`` maps file names to text
    written beside the card (e.g. a licence file).
    """
    from tqdm.auto import tqdm

    check_configs(configs, default_config)
    with staged_repo(root, repo) as staging:
        rows: dict[str, dict[str, int]] = {}
        sizes: dict[tuple[str, str], int] = {}
        files = [(name, split, ds) for name, splits in configs.items() for split, ds in splits.items()]
        with _quiet_datasets():
            for name, split, ds in tqdm(files, desc=f"rote/{repo}", unit="file", disable=not progress):
                sizes[name, split] = _write_shards(ds, staging, name, split)
                rows.setdefault(name, {})[split] = len(ds)
        infos = {name: {split: SplitInfo.of(ds, sizes[name, split]) for split, ds in splits.items()}
                 for name, splits in configs.items()}
        write_card(staging, card_yaml(infos, default_config=default_config, extra=card_meta), card_body)
        for file_name, text in (extra_files or {}).items():
            (staging / file_name).write_text(text, encoding="utf-8")
    return BuiltRepo(path=repo_dir(root, repo), rows=rows)


def _write_shards(ds: "datasets.Dataset", staging: Path, config: str, split: str) -> int:
    """Write ``ds`` as Parquet shards of at most about :data:`MAX_FILE_BYTES` (by its Arrow size);
    returns the bytes written."""
    shards = max(1, -(-ds.data.nbytes // MAX_FILE_BYTES)) if len(ds) else 1
    total = 0
    for i in range(shards):
        out = staging / parquet_path(config, split, i, shards)
        out.parent.mkdir(parents=True, exist_ok=True)
        part = ds.shard(shards, i, contiguous=True) if shards > 1 else ds
        part.to_parquet(str(out))
        total += out.stat().st_size
    return total


def refuse_config(repo: str, config: str | None) -> None:
    """``ValueError`` when ``config`` is given to a build whose repo is always built whole."""
    if config is not None:
        raise ValueError(f"config is not supported by target {repo!r} (it builds all its configs), got {config!r}")


def check_configs(configs: Mapping[str, object], default_config: str | None) -> None:
    """``ValueError`` unless ``configs`` is non-empty and ``default_config`` names one of them."""
    if not configs:
        raise ValueError("configs must name at least one config")
    if default_config is not None and default_config not in configs:
        raise ValueError(f"default_config must be one of {sorted(configs)}, got {default_config!r}")


@contextmanager
def staged_repo(root: str | os.PathLike, repo: str, *, org: str = ORG) -> Iterator[Path]:
    """A fresh staging folder beside ``<root>/<org>/<repo>``; swapped in when the block succeeds,
    deleted when it raises, so a build never leaves a half-written repo."""
    target = repo_dir(root, repo, org=org)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{repo}.", suffix=".tmp", dir=target.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; a published repo folder is world-readable
    try:
        yield staging
        swap_in(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def write_card(folder: Path, front_matter: str, body: str) -> None:
    """``folder/README.md``: YAML front matter, then the Markdown body."""
    (folder / "README.md").write_text(f"---\n{front_matter}---\n\n{body.strip()}\n", encoding="utf-8")


@contextmanager
def _quiet_datasets() -> Iterator[None]:
    """Silence datasets' per-file progress bars, restoring the caller's setting afterwards."""
    import datasets

    was_enabled = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        yield
    finally:
        if was_enabled:
            datasets.enable_progress_bars()


def swap_in(staging: Path, target: Path) -> None:
    """Replace folder ``target`` with ``staging`` (same parent), never leaving a half-written repo."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(target, old)
    os.replace(staging, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def paste_lines(root: str | os.PathLike) -> str:
    """Where the mirror is and lines to paste to use its hub ids from anywhere.

    ``datasets`` and ``evaluate`` resolve ``rote/<repo>`` as a folder relative to the working
    directory, so the ids work from the mirror root; from elsewhere use ``cd`` or full paths.
    """
    base = Path(root).resolve()
    mirror = base / ORG
    dataset = next((r for r in ("cogscale", "rote-seeds", "oeis-mdl") if (mirror / r / "README.md").is_file()), "rote-seeds")
    config = {"cogscale": '"simple_copy-small"', "rote-seeds": '"paper"', "oeis-mdl": '"classical"'}[dataset]
    return "\n".join([
        f"The local mirror is {mirror}; the hub ids resolve from {base}. Paste one of:",
        f"  cd {base}",
        f'  load_dataset("{mirror / dataset}", {config})',
        f'  evaluate.load("{mirror / "dl_distance"}")',
    ])
