"""Streaming variant of :func:`rote_hf.mirror.repo.write_dataset_repo` for configs too large
to hold in memory: each (config, split) is written to Parquet batch by batch.

Same repo layout, card front matter (``configs:`` and ``dataset_info:`` via
:func:`rote_hf.mirror.repo.card_yaml`) and atomic swap as the in-memory writer. A split is
either a :class:`StreamedSplit` (features + a factory of Arrow tables, one row group each) or
a :class:`KeptSplit` (an existing Parquet file copied unchanged, to rebuild part of a repo).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rote_hf.mirror.repo import (
    MAX_FILE_BYTES, BuiltRepo, SplitInfo, card_yaml, check_configs, parquet_path, repo_dir, staged_repo, write_card,
)

if TYPE_CHECKING:  # pragma: no cover
    import datasets
    import pyarrow as pa


@dataclass(frozen=True)
class StreamedSplit:
    """``batches()`` yields ``pyarrow.Table`` s with schema ``features.arrow_schema``."""

    features: "datasets.Features"
    batches: Callable[[], Iterator["pa.Table"]]


@dataclass(frozen=True)
class KeptSplit:
    """Existing Parquet files (the shards of one split, in order) kept as they are."""

    features: "datasets.Features"
    paths: tuple[Path, ...]
    num_rows: int


def write_streaming_repo(
    root: str | os.PathLike,
    repo: str,
    configs: Mapping[str, Mapping[str, StreamedSplit | KeptSplit]],
    card_body: str,
    *,
    default_config: str | None = None,
    card_meta: Mapping[str, object] | None = None,
    on_config: Callable[[str], None] | None = None,
    extra_files: Mapping[str, str] | None = None,
    max_file_bytes: int = MAX_FILE_BYTES,
) -> BuiltRepo:
    """Write ``<root>/rote/<repo>/`` atomically, streaming every split to Parquet.

    Memory is bounded by one batch. A split is written as shards of at most ``max_file_bytes``
    on disk (a new shard starts once a batch takes the file past it), named
    ``<split>-<i>-of-<n>.parquet``; the card names them by pattern. ``on_config(name)`` is called after each config (progress).
    ``extra_files`` maps file names to text written beside the card (e.g. generation parameters).
    """
    import pyarrow.parquet as pq

    check_configs(configs, default_config)
    with staged_repo(root, repo) as staging:
        written: dict[str, dict[str, SplitInfo]] = {}
        rows: dict[str, dict[str, int]] = {}
        for name, splits in configs.items():
            written[name], rows[name] = {}, {}
            for split, source in splits.items():
                if isinstance(source, KeptSplit):
                    outs = _keep(source, staging, name, split)
                    n = source.num_rows
                else:
                    outs, n = _stream(source, staging, name, split, max_file_bytes)
                # Parquet's uncompressed size: the same for a kept and a rebuilt file
                metas = [pq.ParquetFile(out).metadata for out in outs]
                size = sum(m.row_group(g).total_byte_size for m in metas for g in range(m.num_row_groups))
                written[name][split] = SplitInfo(source.features, n, size, sum(out.stat().st_size for out in outs))
                rows[name][split] = n
            if on_config is not None:
                on_config(name)
        write_card(staging, card_yaml(written, default_config=default_config, extra=card_meta), card_body)
        for file_name, text in (extra_files or {}).items():
            (staging / file_name).write_text(text, encoding="utf-8")
    return BuiltRepo(path=repo_dir(root, repo), rows=rows)


def _keep(source: KeptSplit, staging: Path, config: str, split: str) -> list[Path]:
    """Copy kept shards under their (re)numbered names."""
    outs = []
    for i, path in enumerate(source.paths):
        out = staging / parquet_path(config, split, i, len(source.paths))
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, out)
        outs.append(out)
    return outs


def _stream(source: StreamedSplit, staging: Path, config: str, split: str, max_file_bytes: int) -> tuple[list[Path], int]:
    """Write the batches of ``source`` to shards of at most ``max_file_bytes`` (a batch is never
    cut; a shard holds at least one); returns (shard paths, rows)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = staging / "data" / config
    folder.mkdir(parents=True, exist_ok=True)
    parts: list[Path] = []
    n = 0
    sink = writer = None
    try:
        for table in source.batches():
            if writer is None:
                parts.append(folder / f".{split}-{len(parts):05d}.part")
                sink = pa.OSFile(str(parts[-1]), "wb")
                writer = pq.ParquetWriter(sink, source.features.arrow_schema)
            writer.write_table(table)
            n += table.num_rows
            if sink.tell() >= max_file_bytes:
                writer.close()
                sink.close()
                sink = writer = None
        if writer is None and not parts:  # an empty split is still one (empty) file
            parts.append(folder / f".{split}-00000.part")
            pq.write_table(source.features.arrow_schema.empty_table(), parts[-1])
    finally:
        if writer is not None:
            writer.close()
            sink.close()
    outs = []
    for i, part in enumerate(parts):
        out = staging / parquet_path(config, split, i, len(parts))
        part.rename(out)
        outs.append(out)
    return outs, n
