"""The hub organisation a publish targets: its name rules, and the repos rendered for it.

Every repo is built once in the local mirror under ``<root>/rote/<repo>/``, with ``rote/<repo>``
ids, because the sources themselves (the metric modules' doctests, the dataset cards' examples,
``space/``) are run and tested against that mirror. ``rote-hf publish --org ORG`` renders each
built repo into ``<root>/ORG/<repo>/`` (:func:`render_repo`): text files with every ``rote/<x>``
hub id replaced by ``ORG/<x>`` (:func:`retarget_text`), data files linked unchanged. The layout is
the mirror's, so the ids of the rendered cards resolve from ``<root>`` as they do on the Hub.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from rote_hf.mirror.repo import ORG, staged_repo

DEFAULT_ORG = ORG
"""The org the sources are written for (and the default of ``--org``)."""

TEXT_SUFFIXES = (".md", ".py", ".txt", ".json", ".jsonl", ".yaml", ".yml", ".toml", ".cfg", ".csv")
"""Files whose hub ids are rewritten; every other file is data and is linked unchanged."""

#: A hub id of the default org: ``rote/`` not inside a path or URL (``nla-group/rote/...``,
#: ``<root>/rote/<repo>``), followed by a repo name, a ``{placeholder}`` or ``<placeholder>``.
HUB_ID = re.compile(r"(?<![\w./@:-])" + re.escape(DEFAULT_ORG) + r"/(?=[A-Za-z0-9_{<])")
#: The same id inside a Hub URL (``https://huggingface.co/spaces/rote/leaderboard``).
HUB_URL = re.compile(r"(huggingface\.co/(?:spaces/|datasets/)?)" + re.escape(DEFAULT_ORG) + r"/(?=[A-Za-z0-9_])")

_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?")


def check_org(org: object, flag: str = "--org") -> str:
    """``org`` when the Hub accepts it as a user or organisation name; ``ValueError`` naming ``flag``.

    The Hub's rules: 1-96 letters, digits, ``-``, ``_`` or ``.``, starting and ending with a
    letter or digit, no ``--`` or ``..`` (huggingface_hub's ``validate_repo_id`` checks the rest).
    """
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    rule = "1-96 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, no '--' or '..'"
    if not isinstance(org, str) or not _NAME.fullmatch(org) or "--" in org or ".." in org:
        raise ValueError(f"{flag} must be a hub user or organisation name ({rule}), got {org!r}")
    try:
        validate_repo_id(f"{org}/results")
    except HFValidationError as exc:
        raise ValueError(f"{flag} must be a hub user or organisation name ({rule}), got {org!r}: {exc}") from None
    return org


def retarget_text(text: str, org: str) -> str:
    """``text`` with every hub id ``rote/<x>`` of the default org written ``<org>/<x>``."""
    if org == DEFAULT_ORG:
        return text
    return HUB_URL.sub(lambda m: f"{m.group(1)}{org}/", HUB_ID.sub(f"{org}/", text))


def hub_ids_of(text: str, org: str = DEFAULT_ORG) -> list[str]:
    """The hub ids of ``org`` in ``text`` (``org/<name>``), in order, for reports and tests."""
    pattern = re.compile(r"(?:(?<![\w./@:-])|(?<=huggingface\.co/)|(?<=/spaces/)|(?<=/datasets/))"
                         + re.escape(org) + r"/[A-Za-z0-9_.{<][\w.{}<>-]*")
    return pattern.findall(text)


def _link_or_copy(source: Path, target: Path) -> None:
    """A hard link (large data files cost no space twice), or a copy across file systems."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def render_repo(root: str | os.PathLike, name: str, org: str) -> Path:
    """Write ``<root>/<org>/<name>/`` from the built ``<root>/rote/<name>/`` (atomically); returns it.

    Text files (:data:`TEXT_SUFFIXES`) get their hub ids retargeted; other files are linked.
    For the default org the built folder is the rendered one and is returned as it is.
    """
    check_org(org)
    source = Path(root) / DEFAULT_ORG / name
    if not source.is_dir():
        raise FileNotFoundError(f"repo {DEFAULT_ORG}/{name} is not built in the mirror at {source}")
    if org == DEFAULT_ORG:
        return source
    with staged_repo(root, name, org=org) as staging:
        for path in sorted(source.rglob("*")):
            target = staging / path.relative_to(source)
            if path.is_dir():
                target.mkdir(parents=True, exist_ok=True)
            elif path.suffix in TEXT_SUFFIXES:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(retarget_text(path.read_text(encoding="utf-8"), org), encoding="utf-8")
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                _link_or_copy(path, target)
    return Path(root) / org / name
