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

from rote_hf.mirror.repo import BuiltRepo, SplitInfo, card_yaml, check_configs, parquet_path, repo_dir, staged_repo, write_card

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
    """An existing Parquet file kept as it is."""

    features: "datasets.Features"
    path: Path
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
) -> BuiltRepo:
    """Write ``<root>/rote/<repo>/`` atomically, streaming every split to Parquet.

    Memory is bounded by one batch. ``on_config(name)`` is called after each config (progress).
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
                out = staging / parquet_path(name, split)
                out.parent.mkdir(parents=True, exist_ok=True)
                if isinstance(source, KeptSplit):
                    shutil.copyfile(source.path, out)
                    n = source.num_rows
                else:
                    n = 0
                    with pq.ParquetWriter(out, source.features.arrow_schema) as writer:
                        for table in source.batches():
                            writer.write_table(table)
                            n += table.num_rows
                # Parquet's uncompressed size: the same for a kept and a rebuilt file
                meta = pq.ParquetFile(out).metadata
                size = sum(meta.row_group(g).total_byte_size for g in range(meta.num_row_groups))
                written[name][split] = SplitInfo(source.features, n, size)
                rows[name][split] = n
            if on_config is not None:
                on_config(name)
        write_card(staging, card_yaml(written, default_config=default_config, extra=card_meta), card_body)
        for file_name, text in (extra_files or {}).items():
            (staging / file_name).write_text(text, encoding="utf-8")
    return BuiltRepo(path=repo_dir(root, repo), rows=rows)
