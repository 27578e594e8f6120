"""Where the leaderboard's rows come from.

- The published rows of the papers (always; shipped with the package), and our reproduction
  rows shipped with the package (unless ``shipped=False``).
- A local results store (``--results DIR``, default ``./results``; may not exist yet).
- When the environment variable :data:`RESULTS_REPO_ENV` is set: a results dataset repo as
  published by ``rote-hf publish`` (``data/ours/*.parquet``), given as a hub id
  (``org/results``, its current revision fetched with ``huggingface_hub.snapshot_download``) or
  as a local folder (e.g. the mirror's ``rote/results``): :func:`repo_revision`.

Rows with the same run id are kept once (local store first). The repo holds our shipped rows too
(``rote-hf publish`` uploads them): a stored row whose run id is one of the rows bundled with the
package is the same run and is dropped silently, before it is decoded or validated
(:func:`bundled_run_ids`), so the bundled copy is shown once. Every other row read from a store
or a repo must meet the row schema (:mod:`rote_hf.leaderboard.validate`); one that does not (or a
file that cannot be read, or a row claiming ``source="paper"`` or a published run id, which only
the shipped published rows may) is skipped and named in a notice (:func:`load_board_rows`),
never raised.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from rote_hf.leaderboard.validate import short, valid_rows
from rote_hf.results import ResultStore, load
from rote_hf.results.schema import COLUMNS, JSON_COLUMNS, arrow_schema, decode_json_columns
from rote_hf.results.store import rows_to_frame

RESULTS_REPO_ENV = "ROTE_RESULTS_REPO"
RESULTS_CONFIG = "ours"


REPO_NOTICE = "results repo "
"""How a notice about the results repo itself (not one of its rows) begins."""


def repo_revision(repo: str) -> tuple[Path, str]:
    """``(local folder, revision)`` of results repo ``repo``.

    A folder is its own copy; its revision is a digest of its row files' names, sizes and
    modification times. A hub id is downloaded (``snapshot_download``: only what changed since
    the last call, into the cache) and its revision is the commit it resolved to, so a caller
    reads the rows again only when the repo has a new commit.
    """
    if not isinstance(repo, str) or not repo:
        raise ValueError(f"{RESULTS_REPO_ENV} must be a hub dataset id 'org/name' or a folder, got {repo!r}")
    path = Path(repo).expanduser()
    if path.is_dir():
        files = sorted((path / "data" / RESULTS_CONFIG).glob("*.parquet"))
        stamp = "".join(f"{f.name}:{f.stat().st_size}:{f.stat().st_mtime_ns}\n" for f in files)
        return path, "folder-" + hashlib.sha256(stamp.encode()).hexdigest()[:16]
    from huggingface_hub import snapshot_download

    folder = Path(snapshot_download(repo, repo_type="dataset", allow_patterns=[f"data/{RESULTS_CONFIG}/*.parquet"]))
    return folder, folder.name  # .../snapshots/<commit>


def repo_folder(repo: str) -> Path:
    """A results repo as a local folder: the folder itself, or a hub snapshot of ``repo``."""
    return repo_revision(repo)[0]


def bundled_run_ids(paper) -> set[str]:
    """Run ids of our rows bundled with the package (``source="ours"`` rows of :func:`paper_frame`)."""
    return set(paper.loc[paper["source"] == "ours", "run_id"])


def read_repo_table(folder: str | os.PathLike):
    """All rows under ``folder/data/ours/*.parquet`` as one Arrow table with the row schema."""
    table, notices, _ = read_files(sorted((Path(folder) / "data" / RESULTS_CONFIG).glob("*.parquet")))
    if notices:
        raise ValueError(f"results repo {folder}: {notices[0]}")
    return table


def read_files(files: list[Path]):
    """Parquet files -> (one Arrow table with the row schema, notices for files that could not be
    read with it, the files that were read)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = arrow_schema()
    tables, notices, read = [], [], []
    for f in files:
        try:
            tables.append(pq.read_table(f).select(list(COLUMNS)).cast(schema))
            read.append(f)
        except Exception as exc:  # noqa: BLE001 -- one bad file must not hide the others
            notices.append(f"{f.name}: file could not be read with the row schema ({type(exc).__name__})")
    return (pa.concat_tables(tables) if tables else schema.empty_table()), notices, read


def _decode_rows(frame):
    """JSON columns decoded to dicts; a row whose JSON does not decode is dropped with a notice."""
    import json

    keep, notices = [], []
    decoded = {name: [] for name in JSON_COLUMNS}
    for i in range(len(frame)):
        try:
            values = {name: (json.loads(v) if isinstance(v, str) and v else {})
                      for name, v in ((n, frame[n].iloc[i]) for n in JSON_COLUMNS)}
        except (ValueError, RecursionError) as exc:
            notices.append(f"{frame['run_id'].iloc[i]!r}: a JSON column does not decode ({type(exc).__name__})")
            keep.append(False)
            continue
        keep.append(True)
        for name, value in values.items():
            decoded[name].append(value)
    frame = frame.iloc[[i for i, k in enumerate(keep) if k]].reset_index(drop=True).copy()  # rows (an empty list would select columns)
    for name, values in decoded.items():
        frame[name] = values
    return frame, notices


def read_stored(files: list[Path], skip: set[str] | None = None):
    """Stored rows of ``files`` (a store's or a results repo's Parquet files) that a board may show:
    ``(frame with JSON columns decoded, notices)``; an unreadable file, a row whose JSON does not
    decode or that does not meet its suite's schema is left out and named in a notice. Rows whose
    run id is in ``skip`` (the bundled rows: :func:`bundled_run_ids`) are dropped unread."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table, notices, _ = read_files(files)
    if skip:
        table = table.filter(pc.invert(pc.is_in(table.column("run_id"), pa.array(sorted(skip), pa.string()))))
    frame, more = shown_rows(table)
    return frame, notices + more


def shown_rows(table):
    """The rows of an Arrow ``table`` of stored rows that a board may show: ``(frame with JSON
    columns decoded, notices)`` for the rows whose JSON does not decode or that do not meet their
    suite's schema."""
    frame, bad = _decode_rows(table.to_pandas())
    frame, invalid = valid_rows(frame)
    return frame, bad + invalid


def paper_frame(shipped: bool = True):
    """The rows every board starts from: the papers' published rows, and (``shipped``) our
    reproduction rows shipped with the package; JSON columns decoded."""
    if shipped:
        return decode_json_columns(load(None, include_paper=True, decode_json=False))
    from rote_hf.results.published import paper_rows  # lazy: imports numpy

    return decode_json_columns(rows_to_frame(paper_rows(), decode_json=False))


def merge_rows(stored: list, paper):
    """``stored`` frames (of :func:`read_stored`, first wins) and the :func:`paper_frame` as one
    frame, deduplicated on ``run_id``: ``(frame, notices)``; neither input is changed. A stored row
    with the run id of one of our bundled rows is that run again: the bundled row is kept, silently.
    A stored row that claims ``source="paper"`` or a published run id is left out with a notice."""
    import pandas as pd

    notices: list[str] = []
    stored = [f for f in stored if len(f)]
    if stored:
        ours = pd.concat(stored, ignore_index=True)
        ours = ours[~ours["run_id"].isin(bundled_run_ids(paper))]
        published = set(paper.loc[paper["source"] == "paper", "run_id"])
        claimed = (ours["source"] == "paper") | ours["run_id"].isin(published)
        notices += [f"{short(rid, 60)}: source 'paper' and paper run ids belong to the published rows shipped with "
                    "the package" for rid in ours.loc[claimed, "run_id"]]
        ours = ours[~claimed].drop_duplicates(subset="run_id", keep="first")
    else:
        ours = paper.iloc[0:0]
    frame = pd.concat([f for f in (ours, paper) if len(f)] or [paper], ignore_index=True)
    return frame.reset_index(drop=True), notices


def store_files(results: str | os.PathLike) -> list[Path]:
    """The run files of the results store at ``results`` (none when it does not exist yet)."""
    runs = ResultStore(results).runs_dir
    return sorted(p for p in runs.glob("*.parquet") if not p.name.startswith(".")) if runs.is_dir() else []


def repo_files(repo: str) -> list[Path]:
    """The row files of results repo ``repo`` (a hub id or a folder; see :func:`repo_folder`)."""
    return sorted((repo_folder(repo) / "data" / RESULTS_CONFIG).glob("*.parquet"))


def load_board_rows(results: str | os.PathLike | None = "results", *, repo: str | None = None,
                    shipped: bool = True):
    """Published rows + the local store + (``repo`` or ``$ROTE_RESULTS_REPO``) as one DataFrame
    (JSON columns decoded), deduplicated on ``run_id``, with the notices of what was skipped:
    ``(frame, ["<file or run id>: <why>", ...])``. ``shipped=False`` leaves out our reproduction
    rows shipped with the package (:mod:`rote_hf.results.shipped`). Reads everything on every call;
    the Space serves through :class:`rote_hf.leaderboard.serving.BoardService`, which reads once."""
    repo = repo if repo is not None else os.environ.get(RESULTS_REPO_ENV) or None
    notices: list[str] = []
    stored = []
    paper = paper_frame(shipped)
    skip = bundled_run_ids(paper)
    for files in ([store_files(results)] if results is not None else []) + ([repo_files(repo)] if repo else []):
        frame, bad = read_stored(files, skip)
        stored.append(frame)
        notices += bad
    frame, claimed = merge_rows(stored, paper)
    return frame, notices + claimed


def load_rows(results: str | os.PathLike | None = "results", *, repo: str | None = None, shipped: bool = True):
    """The rows of :func:`load_board_rows` without the notices."""
    return load_board_rows(results, repo=repo, shipped=shipped)[0]
