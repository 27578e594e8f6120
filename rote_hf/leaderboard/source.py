"""Where the leaderboard's rows come from.

- The published rows of the papers (always; shipped with the package), and our reproduction
  rows shipped with the package (unless ``shipped=False``).
- A local results store (``--results DIR``, default ``./results``; may not exist yet).
- When the environment variable :data:`RESULTS_REPO_ENV` is set: a results dataset repo as
  published by ``rote-hf publish`` (``data/ours/*.parquet``), given as a hub id
  (``org/results``, fetched once with ``huggingface_hub.snapshot_download``) or as a local
  folder (e.g. the mirror's ``rote/results``).

Rows with the same run id are kept once (local store first).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

RESULTS_REPO_ENV = "ROTE_RESULTS_REPO"
RESULTS_CONFIG = "ours"


@functools.lru_cache(maxsize=4)
def _snapshot(repo_id: str) -> str:
    from huggingface_hub import snapshot_download

    return snapshot_download(repo_id, repo_type="dataset", allow_patterns=[f"data/{RESULTS_CONFIG}/*.parquet"])


def repo_folder(repo: str) -> Path:
    """A results repo as a local folder: the folder itself, or a hub snapshot of ``repo``."""
    if not isinstance(repo, str) or not repo:
        raise ValueError(f"{RESULTS_REPO_ENV} must be a hub dataset id 'org/name' or a folder, got {repo!r}")
    path = Path(repo).expanduser()
    return path if path.is_dir() else Path(_snapshot(repo))


def read_repo_table(folder: str | os.PathLike):
    """All rows under ``folder/data/ours/*.parquet`` as one Arrow table with the row schema."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from rote_hf.results.schema import COLUMNS, arrow_schema

    schema = arrow_schema()
    files = sorted((Path(folder) / "data" / RESULTS_CONFIG).glob("*.parquet"))
    tables = [pq.read_table(f).select(list(COLUMNS)).cast(schema) for f in files]
    return pa.concat_tables(tables) if tables else schema.empty_table()


def load_rows(results: str | os.PathLike | None = "results", *, repo: str | None = None, shipped: bool = True):
    """Published rows + the local store + (``repo`` or ``$ROTE_RESULTS_REPO``) as one DataFrame
    (JSON columns decoded), deduplicated on ``run_id``. ``shipped=False`` leaves out our
    reproduction rows shipped with the package (:mod:`rote_hf.results.shipped`)."""
    import pandas as pd

    from rote_hf.results import load
    from rote_hf.results.store import _decode

    repo = repo if repo is not None else os.environ.get(RESULTS_REPO_ENV) or None
    frames = []
    if results is not None and Path(results).is_dir():
        frames.append(load(results, include_paper=False, decode_json=False))
    if repo:
        frames.append(read_repo_table(repo_folder(repo)).to_pandas())
    if shipped:
        frames.append(load(None, include_paper=True, decode_json=False))
    else:
        from rote_hf.results.published import paper_rows
        from rote_hf.results.store import rows_to_frame

        frames.append(rows_to_frame(paper_rows(), decode_json=False))
    frame = pd.concat([f for f in frames if len(f)] or frames[-1:], ignore_index=True)
    frame = frame.drop_duplicates(subset="run_id", keep="first").reset_index(drop=True)
    return _decode(frame)
