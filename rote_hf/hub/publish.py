"""``rote-hf publish``: assemble every hub repo of the org in the local mirror, validate, upload.

Repos (each a folder ``<root>/rote/<name>/``, uploaded as it is):

- the datasets of every build target in :data:`rote_hf.hub.targets.BUILD_TARGETS` except
  ``metrics`` (``rote-seeds``, ``cogscale``, and the MDL dataset when its target exists);
- the five metric Spaces (target ``metrics``: evaluate module + card + ``app.py``);
- the leaderboard Space ``leaderboard`` (the files of ``space/`` in the source checkout);
- the results dataset ``results``: our runs (config ``ours``, from the results store) and the
  papers' published rows (config ``paper``), one Parquet file each, same schema as the store.

A dataset or metric repo already in the mirror is reused unless ``rebuild`` (building CogScale's
configs takes minutes); the leaderboard Space and the results dataset are always rewritten.
Each card's metadata is checked with huggingface_hub's card classes (``DatasetCard`` /
``SpaceCard``) against the folder's files, offline. The dry run stops there; ``push`` uploads
each folder with ``HfApi.upload_folder`` (token from ``$HF_TOKEN`` or the stored login).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from rote_hf.hub.mirror import BuiltRepo, copy_files_repo, repo_dir, write_dataset_repo

LEADERBOARD = "leaderboard"
RESULTS = "results"
SPACE_FILES = ("app.py", "llm_tab.py", "README.md", "requirements.txt")
"""Files of ``space/`` that form the leaderboard Space."""
SPACE_SDKS = ("gradio", "streamlit", "docker", "static")
REPO_TYPES = ("dataset", "space")


@dataclass(frozen=True)
class HubRepo:
    """One repo of the org: its name, hub type and mirror folder."""

    name: str
    repo_type: str
    path: Path

    def __post_init__(self) -> None:
        if self.repo_type not in REPO_TYPES:
            raise ValueError(f"repo_type must be one of {REPO_TYPES}, got {self.repo_type!r}")


class PushError(RuntimeError):
    """Uploading a repo failed (offline, no token, refused); the message is one line."""


# -- assembling ---------------------------------------------------------------------------------------

def _target_repos(target: str) -> list[str]:
    """Folder names a build target writes (by convention the target's name; ``metrics``: five)."""
    if target == "metrics":
        from rote_hf.hub.metric_repos import METRIC_REPOS

        return list(METRIC_REPOS)
    return [target]


def space_source_dir() -> Path:
    """``space/`` of the source checkout this package was imported from."""
    return Path(__file__).resolve().parents[2] / "space"


def build_leaderboard_space(root: Path, *, source: Path | None = None) -> BuiltRepo:
    """Copy the leaderboard Space files into ``<root>/rote/leaderboard/`` atomically."""
    folder = source or space_source_dir()
    files = [folder / f for f in SPACE_FILES]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise FileNotFoundError(f"leaderboard Space files not found: {missing}; publishing needs a source checkout with space/")
    return BuiltRepo(path=copy_files_repo(root, LEADERBOARD, files), rows={"space": {"files": len(files)}})


RESULTS_CARD = """# rote-hf results

Result rows of the rote-hf leaderboard: one row per training run (ROTE, CogScale) or per
model x MDL stratum (LLM query), in the schema of `rote_hf.results` (identity, task and model
settings, metrics as JSON text, cost, provenance).

- config `ours`: our runs: the reproduction rows shipped with the package (e.g. CogScale's
  published grid re-run, `config_name = cogscale_paper`, `verified = true`) and the runs of the
  results store (`rote_hf.results.ResultStore`);
- config `paper`: the published numbers of the three papers (`source = paper`, one row per
  table cell), shipped with the package.

Every row carries its provenance: `source`, `package_version`, `git_commit`,
`dataset_fingerprint`, `config_hash`, `timestamp` and `verified` (submissions made through the
leaderboard are stored with `verified = false`).

```python
from datasets import load_dataset
ours = load_dataset("rote/results", "ours", split="train")
paper = load_dataset("rote/results", "paper", split="train")
```

The leaderboard Space reads this repo when `ROTE_RESULTS_REPO=<org>/results` is set.
"""


def build_results_repo(root: Path, results: str | os.PathLike | None) -> BuiltRepo:
    """``<root>/rote/results/``: configs ``ours`` (the shipped reproduction rows + the store at
    ``results``, if any rows) and ``paper``."""
    import datasets
    import pyarrow as pa
    import pyarrow.compute as pc
    from datasets.table import InMemoryTable

    from rote_hf.results import ResultStore
    from rote_hf.results.published import paper_rows
    from rote_hf.results.schema import arrow_schema
    from rote_hf.results.shipped import SHIPPED_CONFIGS, shipped_table

    schema = arrow_schema()
    configs: dict[str, dict[str, datasets.Dataset]] = {}
    # our rows: the shipped reproduction rows (rote_hf.results.shipped), then the store's other runs
    ours = pa.concat_tables([shipped_table(name) for name in SHIPPED_CONFIGS])
    if results is not None and Path(results).is_dir():
        store = ResultStore(results).table()
        shipped_ids = pa.array(ours.column("run_id").to_pylist(), pa.string())
        ours = pa.concat_tables([ours, store.filter(pc.invert(pc.is_in(store.column("run_id"), shipped_ids)))])
    if ours.num_rows:
        configs["ours"] = {"train": datasets.Dataset(InMemoryTable(ours))}
    paper = pa.Table.from_pylist([r.to_record() for r in paper_rows()], schema=schema)
    configs["paper"] = {"train": datasets.Dataset(InMemoryTable(paper))}
    return write_dataset_repo(
        root, RESULTS, configs, RESULTS_CARD, default_config="ours" if "ours" in configs else "paper",
        card_meta={"license": "mit", "pretty_name": "rote-hf results",
                   "tags": ["rote", "cogscale", "mdl", "leaderboard", "results"], "size_categories": ["1K<n<10K"]},
    )


def assemble(root: str | os.PathLike, *, results: str | os.PathLike | None = "results", rebuild: bool = False,
             progress: bool = False) -> list[HubRepo]:
    """Write every repo of the org into the mirror at ``root``; returns them (validated later)."""
    from rote_hf.hub.targets import BUILD_TARGETS, build

    root = Path(root)
    names: list[str] = []
    for target in sorted(BUILD_TARGETS):
        expected = _target_repos(target)
        if rebuild or not all((repo_dir(root, n) / "README.md").is_file() for n in expected):
            built = build(target, root, progress=progress)
            expected = [b.path.name for b in built]
        names.extend(expected)
    build_leaderboard_space(root)
    build_results_repo(root, results)
    names += [LEADERBOARD, RESULTS]
    return [HubRepo(name=n, repo_type=repo_type_of(repo_dir(root, n)), path=repo_dir(root, n)) for n in names]


# -- validating ---------------------------------------------------------------------------------------

def repo_type_of(folder: Path) -> str:
    """``space`` when the card's metadata names an ``sdk``, else ``dataset``."""
    from huggingface_hub import RepoCard

    card = RepoCard.load(folder / "README.md")
    return "space" if card.data.to_dict().get("sdk") else "dataset"


def validate_repo(repo: HubRepo):
    """Load the card with its class and check its metadata against the folder; returns the card.

    Dataset: ``configs`` present, every ``data_files`` path matches a file, ``dataset_info``
    names only known configs. Space: ``title``, a known ``sdk``, ``sdk_version`` for gradio, and
    an ``app_file`` that exists. ``ValueError`` names the repo and the problem.
    """
    from huggingface_hub import DatasetCard, SpaceCard

    readme = repo.path / "README.md"
    if not readme.is_file():
        raise ValueError(f"rote/{repo.name}: README.md (the card) is missing in {repo.path}")
    if repo.repo_type == "dataset":
        card = DatasetCard.load(readme)
        meta = card.data.to_dict()
        configs = meta.get("configs") or []
        if not configs:
            raise ValueError(f"rote/{repo.name}: dataset card has no 'configs' metadata")
        names = set()
        for cfg in configs:
            names.add(cfg.get("config_name"))
            files = cfg.get("data_files") or []
            files = files if isinstance(files, list) else [files]
            for entry in files:
                paths = entry.get("path") if isinstance(entry, dict) else entry
                for pattern in paths if isinstance(paths, list) else [paths]:
                    if not list(repo.path.glob(pattern)):
                        raise ValueError(f"rote/{repo.name}: config {cfg.get('config_name')!r} data file {pattern!r} matches no file")
        infos = meta.get("dataset_info") or []
        for info in infos if isinstance(infos, list) else [infos]:
            if info.get("config_name", "default") not in names:
                raise ValueError(f"rote/{repo.name}: dataset_info names unknown config {info.get('config_name')!r}")
    else:
        card = SpaceCard.load(readme)
        meta = card.data.to_dict()
        if not meta.get("title"):
            raise ValueError(f"rote/{repo.name}: Space card needs a 'title'")
        if meta.get("sdk") not in SPACE_SDKS:
            raise ValueError(f"rote/{repo.name}: Space sdk must be one of {SPACE_SDKS}, got {meta.get('sdk')!r}")
        if meta["sdk"] == "gradio" and not meta.get("sdk_version"):
            raise ValueError(f"rote/{repo.name}: a gradio Space card needs 'sdk_version'")
        app = meta.get("app_file") or "app.py"
        if not (repo.path / app).is_file():
            raise ValueError(f"rote/{repo.name}: app_file {app!r} is not in the repo")
    return card


# -- pushing ------------------------------------------------------------------------------------------

_ORG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")


def push(repos: list[HubRepo], org: str, *, token: str | None = None) -> list[str]:
    """Create (if needed) and upload each repo as ``<org>/<name>``; returns the repo ids.

    The leaderboard Space gets the variable ``ROTE_RESULTS_REPO=<org>/results`` so that it reads
    the pushed results. Any failure raises :class:`PushError` with one line naming the repo.
    """
    from huggingface_hub import HfApi

    from rote_hf.leaderboard.source import RESULTS_REPO_ENV

    if not isinstance(org, str) or not _ORG.match(org):
        raise ValueError(f"org must be a hub user or organisation name (letters, digits, '-', '_', '.'), got {org!r}")
    api = HfApi(token=token or os.environ.get("HF_TOKEN") or None)
    done = []
    for repo in repos:
        repo_id = f"{org}/{repo.name}"
        try:
            api.create_repo(repo_id, repo_type=repo.repo_type, exist_ok=True,
                            space_sdk="gradio" if repo.repo_type == "space" else None)
            api.upload_folder(folder_path=str(repo.path), repo_id=repo_id, repo_type=repo.repo_type,
                              commit_message=f"rote-hf publish: {repo.name}")
            if repo.name == LEADERBOARD:
                api.add_space_variable(repo_id, RESULTS_REPO_ENV, f"{org}/{RESULTS}")
        except Exception as exc:  # noqa: BLE001 -- offline, auth, HTTP: one clear line for the user
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise PushError(f"push of {repo.repo_type} {repo_id} failed: {type(exc).__name__}: {first}") from None
        done.append(repo_id)
    return done
