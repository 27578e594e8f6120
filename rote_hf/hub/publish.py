"""``rote-hf publish``: assemble every hub repo of an org in the local mirror and validate it.

Repos (each a folder ``<root>/<org>/<name>/``, uploaded as it is by :mod:`rote_hf.hub.push`), in
upload order (:data:`UPLOAD_ORDER`: what a repo's card or code names is uploaded before it):

1. the datasets of every build target in :data:`rote_hf.hub.targets.BUILD_TARGETS` except
   ``metrics`` (``rote-seeds``, ``cogscale``, ``oeis-mdl``);
2. the results dataset ``results``: our runs (config ``ours``: the shipped rows and the store
   given with ``--results``) and the papers' published rows (config ``paper``):
   :mod:`rote_hf.hub.results_repo`;
3. the five metric Spaces (target ``metrics``: evaluate module + card + ``app.py``);
4. the leaderboard Space ``leaderboard`` (the files of ``space/`` plus the ``rote_hf`` modules
   they import: :mod:`rote_hf.hub.space_repo`), whose variables name the results repo.

Every repo is built for the default org under ``<root>/rote/`` and rendered for ``org`` under
``<root>/<org>/`` (:mod:`rote_hf.hub.org`). A dataset or metric repo already in the mirror is
reused unless ``rebuild`` (building CogScale's configs takes minutes); the leaderboard Space and
the results dataset are always rewritten. Each repo is checked offline (:func:`check_repo`):
huggingface_hub's own card classes (``DatasetCard``/``SpaceCard`` with their typed
``DatasetCardData``/``SpaceCardData``, repo id rules) beside our checks of the metadata against
the folder's files, and, for Spaces, that ``requirements.txt`` installs from public packages and
covers what the code imports (:mod:`rote_hf.hub.requirements`). What only the Hub can check (its
YAML schema endpoint, the Space build, the dataset viewer) is listed by :data:`HUB_ONLY_CHECKS`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from rote_hf.hub.metric_repos import METRIC_REPOS
from rote_hf.hub.org import DEFAULT_ORG, check_org, render_repo
from rote_hf.hub.requirements import check_requirements
from rote_hf.hub.results_repo import RESULTS, build_results_repo
from rote_hf.hub.space_repo import LEADERBOARD, build_leaderboard_space
from rote_hf.hub.targets import BUILD_TARGETS, build
from rote_hf.mirror.cards import NON_LINGUISTIC
from rote_hf.mirror.repo import repo_dir

SPACE_SDKS = ("gradio", "streamlit", "docker", "static")
REPO_TYPES = ("dataset", "space")
READER_SECTIONS = ("## Example instance", "## Supported tasks and leaderboards", "## Uses", "## Limitations")
"""Sections every dataset card has for Hub readers (besides usage first and a citation)."""
UPLOAD_ORDER = ("datasets", "results", "metric Spaces", "leaderboard")
"""The groups of repos in the order they are uploaded (see the module docstring)."""


@dataclass(frozen=True)
class HubRepo:
    """One repo of the org: its name, hub type, mirror folder and org."""

    name: str
    repo_type: str
    path: Path
    org: str = DEFAULT_ORG

    def __post_init__(self) -> None:
        if self.repo_type not in REPO_TYPES:
            raise ValueError(f"repo_type must be one of {REPO_TYPES}, got {self.repo_type!r}")

    @property
    def repo_id(self) -> str:
        """``<org>/<name>``."""
        return f"{self.org}/{self.name}"


# -- assembling ---------------------------------------------------------------------------------------

def _target_repos(target: str) -> list[str]:
    """Folder names a build target writes (by convention the target's name; ``metrics``: five)."""
    if target == "metrics":
        return list(METRIC_REPOS)
    return [target]


def upload_group(name: str) -> int:
    """Index in :data:`UPLOAD_ORDER` of repo ``name``'s group."""
    if name == RESULTS:
        return 1
    if name in METRIC_REPOS:
        return 2
    if name == LEADERBOARD:
        return 3
    return 0


def assemble(root: str | os.PathLike, *, results: str | os.PathLike | None, org: str = DEFAULT_ORG,
             include_failed: bool = False, rebuild: bool = False, progress: bool = False) -> list[HubRepo]:
    """Write every repo into the mirror at ``root`` for ``org``; returns them in upload order
    (validated later). ``results``: the store whose rows join config ``ours`` (``None``: only
    the shipped rows); refused when it holds failed or unverified rows, unless ``include_failed``
    (:func:`rote_hf.hub.results_repo.store_rows`)."""
    check_org(org)
    root = Path(root)
    names: list[str] = []
    for target in BUILD_TARGETS.names():
        expected = _target_repos(target)
        if rebuild or not all((repo_dir(root, n) / "README.md").is_file() for n in expected):
            built = build(target, root, progress=progress)
            expected = [b.path.name for b in built]
        names.extend(expected)
    build_results_repo(root, results, include_failed=include_failed)
    build_leaderboard_space(root)
    names += [RESULTS, LEADERBOARD]
    names.sort(key=upload_group)  # stable: the targets' order within a group
    paths = {n: render_repo(root, n, org) for n in names}
    return [HubRepo(name=n, repo_type=repo_type_of(paths[n]), path=paths[n], org=org) for n in names]


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
    "rote-hf: configs and data files, dataset_info with sizes, size_categories, language, task_categories, "
    "usage first, reader sections, licence (license_name/link for 'other'), citations (rote-hf's too); Space title, "
    "sdk, sdk_version = installed gradio, python_version, app_file, datasets of the same org; requirements "
    "install from public packages",
)
"""What :func:`check_repo` runs offline, one line each (printed by ``rote-hf publish``)."""

MIN_PYTHON = (3, 11)


def validate_repo(repo: HubRepo):
    """Run huggingface_hub's offline card checks and ours on ``repo``; returns the card.

    huggingface_hub: the card loads with its class (``DatasetCard``/``SpaceCard``: the YAML
    front matter parses into ``DatasetCardData``/``SpaceCardData``), and ``<org>/<name>`` obeys
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
        raise ValueError(f"{repo.repo_id}: README.md (the card) is missing in {repo.path}")
    try:
        validate_repo_id(repo.repo_id)
    except HFValidationError as exc:
        raise ValueError(f"{repo.repo_id}: not a valid repo id: {exc}") from None
    if repo.repo_type == "dataset":
        card = DatasetCard.load(readme)
        meta = card.data.to_dict()
        configs = meta.get("configs") or []
        if not configs:
            raise ValueError(f"{repo.repo_id}: dataset card has no 'configs' metadata")
        names = set()
        for cfg in configs:
            names.add(cfg.get("config_name"))
            files = cfg.get("data_files") or []
            files = files if isinstance(files, list) else [files]
            for entry in files:
                paths = entry.get("path") if isinstance(entry, dict) else entry
                for pattern in paths if isinstance(paths, list) else [paths]:
                    if not list(repo.path.glob(pattern)):
                        raise ValueError(f"{repo.repo_id}: config {cfg.get('config_name')!r} data file {pattern!r} matches no file")
        infos = meta.get("dataset_info") or []
        for info in infos if isinstance(infos, list) else [infos]:
            if info.get("config_name", "default") not in names:
                raise ValueError(f"{repo.repo_id}: dataset_info names unknown config {info.get('config_name')!r}")
        if not meta.get("size_categories"):
            raise ValueError(f"{repo.repo_id}: dataset card needs 'size_categories'")
        if "```bibtex" not in card.text:
            raise ValueError(f"{repo.repo_id}: dataset card needs a BibTeX citation (a ```bibtex block)")
        for info in infos if isinstance(infos, list) else [infos]:
            if "dataset_size" not in info or "download_size" not in info:
                raise ValueError(f"{repo.repo_id}: dataset_info of config {info.get('config_name')!r} needs "
                                 "download_size and dataset_size")
        if not meta.get("language") and NON_LINGUISTIC not in card.text:
            raise ValueError(f"{repo.repo_id}: dataset card needs 'language' or the statement that the data is "
                             "not natural language")
        if not meta.get("task_categories"):
            raise ValueError(f"{repo.repo_id}: dataset card needs 'task_categories'")
        missing = [s for s in READER_SECTIONS if s not in card.text]
        if missing:
            raise ValueError(f"{repo.repo_id}: dataset card needs the sections {missing}")
        usage = re.search(r"```python\n(.*?)```", card.text, flags=re.S)
        if not usage or f'load_dataset("{repo.repo_id}"' not in usage.group(1):
            raise ValueError(f"{repo.repo_id}: the card's first Python block must load it: "
                             f'load_dataset("{repo.repo_id}", ...)')
    else:
        card = SpaceCard.load(readme)
        meta = card.data.to_dict()
        if not meta.get("title"):
            raise ValueError(f"{repo.repo_id}: Space card needs a 'title'")
        if meta.get("sdk") not in SPACE_SDKS:
            raise ValueError(f"{repo.repo_id}: Space sdk must be one of {SPACE_SDKS}, got {meta.get('sdk')!r}")
        if meta["sdk"] == "gradio" and str(meta.get("sdk_version")) != gradio.__version__:
            raise ValueError(f"{repo.repo_id}: sdk_version must be the installed gradio {gradio.__version__}, "
                             f"got {meta.get('sdk_version')!r}")
        version = str(meta.get("python_version") or "")
        if not re.fullmatch(r"3\.\d+(\.\d+)?", version) or tuple(map(int, version.split(".")[:2])) < MIN_PYTHON:
            raise ValueError(f"{repo.repo_id}: Space card needs python_version >= 3.11 "
                             f"(the Hub defaults to 3.10), got {version or None!r}")
        app = meta.get("app_file") or "app.py"
        if not (repo.path / app).is_file():
            raise ValueError(f"{repo.repo_id}: app_file {app!r} is not in the repo")
        foreign = [d for d in meta.get("datasets") or [] if not str(d).startswith(f"{repo.org}/")]
        if foreign:
            raise ValueError(f"{repo.repo_id}: Space YAML 'datasets' names repos of another org: {foreign}")
    if meta.get("license") == "other":
        if not meta.get("license_name") or not meta.get("license_link"):
            raise ValueError(f"{repo.repo_id}: 'license: other' needs license_name and license_link")
        link = str(meta["license_link"])
        if "://" not in link and not (repo.path / link).is_file():
            raise ValueError(f"{repo.repo_id}: license_link {link!r} is not a file of the repo")
    elif not meta.get("license"):
        raise ValueError(f"{repo.repo_id}: the card needs a 'license'")
    if "@software{rote_hf" not in card.text:
        raise ValueError(f"{repo.repo_id}: the card needs the citation of rote-hf (@software{{rote_hf, ...}})")
    return card


def check_repo(repo: HubRepo) -> list[str]:
    """Every offline check of ``repo`` (:func:`validate_repo`, and for Spaces the requirements);
    returns one line per check group for the report. ``ValueError`` on the first problem."""
    card = validate_repo(repo)
    lines = [f"card ok ({type(card).__name__})"]
    if repo.repo_type == "space":
        forbid = ("torch", "transformers") if repo.name in METRIC_REPOS else ("torch",)
        lines.append(check_requirements(repo.path, forbid=forbid, label=repo.repo_id).summary())
    return lines
