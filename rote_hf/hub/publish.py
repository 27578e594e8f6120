"""``rote-hf publish``: assemble every hub repo of the org in the local mirror, validate, upload.

Repos (each a folder ``<root>/rote/<name>/``, uploaded as it is):

- the datasets of every build target in :data:`rote_hf.hub.targets.BUILD_TARGETS` except
  ``metrics`` (``rote-seeds``, ``cogscale``, and the MDL dataset when its target exists);
- the five metric Spaces (target ``metrics``: evaluate module + card + ``app.py``);
- the leaderboard Space ``leaderboard`` (the files of ``space/`` plus the ``rote_hf`` modules
  they import: :mod:`rote_hf.hub.space_repo`);
- the results dataset ``results``: our runs (config ``ours``, from the results store) and the
  papers' published rows (config ``paper``), one Parquet file each, same schema as the store.

A dataset or metric repo already in the mirror is reused unless ``rebuild`` (building CogScale's
configs takes minutes); the leaderboard Space and the results dataset are always rewritten.
Each repo is checked offline (:func:`check_repo`): huggingface_hub's own card parsing
(``RepoCard``, ``DatasetCardData``/``SpaceCardData``, repo id rules) beside our checks of the
metadata against the folder's files, and, for Spaces, that ``requirements.txt`` installs from
public packages and covers what the code imports (:mod:`rote_hf.hub.requirements`). What only
the Hub can check (its YAML schema endpoint, the Space build, the dataset viewer) is listed by
:data:`HUB_ONLY_CHECKS`. The dry run stops there; ``push`` checks again, then uploads each
folder with ``HfApi.upload_folder`` (token from ``$HF_TOKEN`` or the stored login).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from rote_hf.hub.metric_repos import METRIC_REPOS
from rote_hf.hub.requirements import check_requirements
from rote_hf.hub.space_repo import LEADERBOARD, build_leaderboard_space
from rote_hf.hub.targets import BUILD_TARGETS, build
from rote_hf.leaderboard.source import RESULTS_REPO_ENV
from rote_hf.mirror.repo import BuiltRepo, repo_dir, write_dataset_repo
from rote_hf.results import ResultStore
from rote_hf.results.schema import arrow_schema
from rote_hf.results.shipped import SHIPPED_CONFIGS, shipped_table

RESULTS = "results"
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
        return list(METRIC_REPOS)
    return [target]


RESULTS_CONFIGS = {
    "ours": "our runs, from the results store (`rote_hf.results.ResultStore`)",
    "paper": "the published numbers of the three papers (`source = paper`, one row per table cell or "
             "released run), shipped with the package",
}

RESULTS_CARD = """# rote-hf results

Result rows of the rote-hf leaderboard: one row per training run (ROTE, CogScale) or per
model x MDL stratum (LLM query), in the schema of `rote_hf.results` (identity, task and model
settings, metrics as JSON text, cost, provenance).

{configs}

Every row carries its provenance: `source`, `package_version`, `git_commit`,
`dataset_fingerprint`, `config_hash`, `timestamp` and `verified` (submissions made through the
leaderboard are stored with `verified = false`).

```python
from datasets import load_dataset
{examples}
```

The leaderboard Space reads this repo when `ROTE_RESULTS_REPO=<org>/results` is set.

## Licences of the published rows

The `paper` rows redistribute published results under their authors' licences, whose notices
are kept here:

- ROTE (nla-group/slearn and nla-group/rote archives): MIT License, Copyright (c) 2021 Numerical Linear Algebra Group, The University of Manchester.
- CogScale (Naowak/CogScale `baseline/results`): MIT License, Copyright (c) 2025 Yannis Bendi-Ouis.
- MDL LLM evaluation (sabilashang/where-induction-runs-out `results/llm_eval.csv`): the
  authors' released per-row results, cited below.

Our own rows are MIT, like rote-hf.

## Citation

```bibtex
@inproceedings{{cahuantzi2023comparison,
  title     = {{A Comparison of {{LSTM}} and {{GRU}} Networks for Learning Symbolic Sequences}},
  author    = {{Cahuantzi, Roberto and Chen, Xinye and G{{\"u}}ttel, Stefan}},
  booktitle = {{Intelligent Computing (SAI 2023)}},
  series    = {{Lecture Notes in Networks and Systems}},
  volume    = {{739}},
  publisher = {{Springer}},
  year      = {{2023}},
  doi       = {{10.1007/978-3-031-37963-5_53}}
}}

@misc{{bendiouis2026cogscale,
  title         = {{{{CogScale}}: Scalable Benchmark for Sequence Processing}},
  author        = {{Bendi-Ouis, Yannis and de Coudenhove, Romain and Hinaut, Xavier}},
  year          = {{2026}},
  eprint        = {{2605.19758}},
  archivePrefix = {{arXiv}},
  url           = {{https://github.com/Naowak/CogScale}}
}}

@misc{{ganeshan2026induction,
  title  = {{Where Induction Runs Out: Description-Length Difficulty and the Memorisation Gap
            in Integer-Sequence Benchmarks}},
  author = {{Ganeshan, Sabilashan}},
  year   = {{2026}},
  note   = {{Code and data: https://github.com/sabilashang/where-induction-runs-out}}
}}
```
"""
"""Card of ``rote/results``; ``{configs}`` and ``{examples}`` list only the configs built."""


def results_card(configs: list[str]) -> str:
    """The card body of ``rote/results`` documenting exactly ``configs``."""
    unknown = sorted(set(configs) - set(RESULTS_CONFIGS))
    if unknown:
        raise ValueError(f"configs must be among {sorted(RESULTS_CONFIGS)}, got {unknown}")
    listed = "\n".join(f"- config `{c}`: {RESULTS_CONFIGS[c]}." for c in configs)
    examples = "\n".join(f'{c} = load_dataset("rote/results", "{c}", split="train")' for c in configs)
    return RESULTS_CARD.format(configs=listed, examples=examples)


def build_results_repo(root: Path, results: str | os.PathLike | None) -> BuiltRepo:
    """``<root>/rote/results/``: configs ``ours`` (the shipped reproduction rows + the store at
    ``results``, if any rows) and ``paper``."""
    import datasets
    import pyarrow as pa
    import pyarrow.compute as pc
    from datasets.table import InMemoryTable

    from rote_hf.results.published import paper_rows  # lazy: imports numpy

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
        root, RESULTS, configs, results_card(list(configs)), default_config="ours" if "ours" in configs else "paper",
        card_meta={"license": "mit", "pretty_name": "rote-hf results",
                   "tags": ["rote", "cogscale", "mdl", "leaderboard", "results"], "source_datasets": ["extended"]},
    )


def assemble(root: str | os.PathLike, *, results: str | os.PathLike | None = "results", rebuild: bool = False,
             progress: bool = False) -> list[HubRepo]:
    """Write every repo of the org into the mirror at ``root``; returns them (validated later)."""
    root = Path(root)
    names: list[str] = []
    for target in BUILD_TARGETS.names():
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


HUB_ONLY_CHECKS: tuple[str, ...] = (
    "the Hub's YAML metadata validation (RepoCard.validate: POST /api/validate-yaml)",
    "the Space builds (pip install -r requirements.txt on the Hub's image) and answers",
    "the dataset viewer converts every config",
)
"""What ``publish`` cannot check offline; ``rote-hf publish`` lists these after a dry run."""

OFFLINE_CHECKS: tuple[str, ...] = (
    "huggingface_hub: RepoCard front matter parses; DatasetCardData/SpaceCardData typed metadata; repo id rules",
    "rote-hf: configs and data files, dataset_info, size_categories, citation; Space title, sdk, "
    "sdk_version = installed gradio, python_version, app_file; requirements install from public packages",
)
"""What :func:`check_repo` runs offline, one line each (printed by ``rote-hf publish``)."""

MIN_PYTHON = (3, 11)


def validate_repo(repo: HubRepo):
    """Run huggingface_hub's offline card checks and ours on ``repo``; returns the card.

    huggingface_hub: the card loads with its class (``DatasetCard``/``SpaceCard``: the YAML
    front matter parses into ``DatasetCardData``/``SpaceCardData``), and ``rote/<name>`` obeys
    its repo id rules (``validate_repo_id``). Ours, dataset: ``configs`` present, every
    ``data_files`` path matches a file, ``dataset_info`` names only known configs,
    ``size_categories`` set, a BibTeX citation in the body. Space: ``title``, a known ``sdk``,
    ``sdk_version`` equal to the installed gradio, ``python_version`` >= 3.11 and an
    ``app_file`` that exists. ``ValueError`` names the repo and the problem.
    """
    import gradio
    from huggingface_hub import DatasetCard, SpaceCard
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    readme = repo.path / "README.md"
    if not readme.is_file():
        raise ValueError(f"rote/{repo.name}: README.md (the card) is missing in {repo.path}")
    try:
        validate_repo_id(f"rote/{repo.name}")
    except HFValidationError as exc:
        raise ValueError(f"rote/{repo.name}: not a valid repo id: {exc}") from None
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
        if not meta.get("size_categories"):
            raise ValueError(f"rote/{repo.name}: dataset card needs 'size_categories'")
        if "```bibtex" not in card.text:
            raise ValueError(f"rote/{repo.name}: dataset card needs a BibTeX citation (a ```bibtex block)")
    else:
        card = SpaceCard.load(readme)
        meta = card.data.to_dict()
        if not meta.get("title"):
            raise ValueError(f"rote/{repo.name}: Space card needs a 'title'")
        if meta.get("sdk") not in SPACE_SDKS:
            raise ValueError(f"rote/{repo.name}: Space sdk must be one of {SPACE_SDKS}, got {meta.get('sdk')!r}")
        if meta["sdk"] == "gradio" and str(meta.get("sdk_version")) != gradio.__version__:
            raise ValueError(f"rote/{repo.name}: sdk_version must be the installed gradio {gradio.__version__}, "
                             f"got {meta.get('sdk_version')!r}")
        version = str(meta.get("python_version") or "")
        if not re.fullmatch(r"3\.\d+(\.\d+)?", version) or tuple(map(int, version.split(".")[:2])) < MIN_PYTHON:
            raise ValueError(f"rote/{repo.name}: Space card needs python_version >= 3.11 "
                             f"(the Hub defaults to 3.10), got {version or None!r}")
        app = meta.get("app_file") or "app.py"
        if not (repo.path / app).is_file():
            raise ValueError(f"rote/{repo.name}: app_file {app!r} is not in the repo")
    return card


def check_repo(repo: HubRepo) -> list[str]:
    """Every offline check of ``repo`` (:func:`validate_repo`, and for Spaces the requirements);
    returns one line per check group for the report. ``ValueError`` on the first problem."""
    card = validate_repo(repo)
    lines = [f"card ok ({type(card).__name__})"]
    if repo.repo_type == "space":
        forbid = ("torch", "transformers") if repo.name in METRIC_REPOS else ("torch",)
        lines.append(check_requirements(repo.path, forbid=forbid).summary())
    return lines


# -- pushing ------------------------------------------------------------------------------------------

_ORG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")


def push(repos: list[HubRepo], org: str, *, token: str | None = None) -> list[str]:
    """Create (if needed) and upload each repo as ``<org>/<name>``; returns the repo ids.

    The leaderboard Space gets the variable ``ROTE_RESULTS_REPO=<org>/results`` so that it reads
    the pushed results. Every repo is checked first (:func:`check_repo`; ``ValueError``, nothing
    uploaded). Any upload failure raises :class:`PushError` with one line naming the repo.
    """
    from huggingface_hub import HfApi

    if not isinstance(org, str) or not _ORG.match(org):
        raise ValueError(f"org must be a hub user or organisation name (letters, digits, '-', '_', '.'), got {org!r}")
    for repo in repos:  # refuse before the first upload: a Space that cannot install is not pushed
        check_repo(repo)
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
