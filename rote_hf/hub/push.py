"""Upload the assembled repos of an org to the Hub, safely (``rote-hf publish --push``).

Before anything is uploaded, :func:`check_access` asks the Hub who the token belongs to
(``whoami``) and refuses, in one line, a missing token, a read-only token, an org the account is
not a writing member of, or an org that does not exist. Then :func:`push` takes the repos in
upload order (:data:`rote_hf.hub.publish.UPLOAD_ORDER`) and, for each:

- skips it when the Hub already holds exactly its files (:func:`unchanged`: every local file's
  git blob SHA-1, or its LFS SHA-256, equals the Hub's, and no stale file is left), so a rerun
  after a failure resumes where it stopped;
- creates it with the visibility asked for (private unless ``public``), and the branch
  ``revision`` when one is given;
- uploads the folder in one commit whose description lists the build's provenance, deleting the
  stale files of its data and code folders (:func:`delete_patterns`), on ``revision`` or as a
  pull request (``create_pr``);
- tags the release (``v<version>``) unless the commit is a pull request;
- for the leaderboard Space, sets the variables that name the org's results repo and LLM sample.

A failure says which repos are already on the Hub and how to resume (:class:`PushError`, one
line). The ``api`` is any object with ``HfApi``'s methods: ``huggingface_hub.HfApi`` in use, a
recording fake in the tests (no hub is reachable from them).
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rote_hf import __version__
from rote_hf.hub.publish import HubRepo, check_repo, upload_group
from rote_hf.hub.results_repo import RESULTS
from rote_hf.hub.space_repo import LEADERBOARD
from rote_hf.leaderboard.source import RESULTS_REPO_ENV

SAMPLE_ENV = "ROTE_LLM_SAMPLE"
"""The leaderboard Space's variable naming the LLM tab's sample dataset (``space/llm_tab.py``)."""
SAMPLE_REPO = "oeis-mdl"
WRITE_ROLES = ("admin", "write")
"""Org roles that may push to a branch; ``contributor`` may only open pull requests."""


class PushError(RuntimeError):
    """The push cannot start or stopped (no token, no access, a failed upload); one line."""


@dataclass(frozen=True)
class PushOptions:
    """How to push: visibility of created repos, target branch, pull request, release tag."""

    private: bool = True
    revision: str | None = None
    create_pr: bool = False
    tag: str = f"v{__version__}"

    def __post_init__(self) -> None:
        if self.revision is not None and (not isinstance(self.revision, str) or not self.revision.strip()
                                          or self.revision.startswith(("-", "/")) or ".." in self.revision):
            raise ValueError(f"--revision must be a branch name such as 'release-0.2', got {self.revision!r}")


@dataclass
class PushReport:
    """What a push did: repo ids uploaded, skipped as unchanged, and pull-request URLs."""

    pushed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    pull_requests: dict[str, str] = field(default_factory=dict)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def _status(exc: BaseException) -> int | None:
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None)


# -- before anything is uploaded ----------------------------------------------------------------------

def find_token(token: str | None = None) -> str | None:
    """``token``, ``$HF_TOKEN`` or the stored login (never printed or logged)."""
    if token:
        return token
    if os.environ.get("HF_TOKEN"):
        return os.environ["HF_TOKEN"]
    from huggingface_hub import get_token

    return get_token()


def check_access(api: Any, org: str, *, create_pr: bool = False) -> str:
    """The account name when the token may write to ``org`` (or open pull requests there, with
    ``create_pr``); :class:`PushError` otherwise, before anything is uploaded."""
    try:
        me = api.whoami()
    except Exception as exc:  # noqa: BLE001 -- offline, 401: one line
        if _status(exc) == 401:
            raise PushError("the Hugging Face token is not valid (whoami: 401); set HF_TOKEN to a write token; "
                            "nothing was pushed") from None
        raise PushError(f"cannot check the token with the Hub (whoami: {_one_line(exc)}); nothing was pushed") from None
    user = me.get("name", "")
    token = (me.get("auth") or {}).get("accessToken") or {}
    role = token.get("role")
    if role == "read":
        raise PushError(f"the token of {user!r} is read-only; a write token is needed to push to {org!r}; nothing was pushed")
    if role == "fineGrained":
        scoped = (token.get("fineGrained") or {}).get("scoped") or []
        if not any((s.get("entity") or {}).get("name") == org and "repo.write" in (s.get("permissions") or [])
                   for s in scoped):
            raise PushError(f"the fine-grained token of {user!r} has no 'repo.write' permission on {org!r}; "
                            "nothing was pushed")
    if org == user:
        return user
    roles = {o.get("name"): o.get("roleInOrg") for o in me.get("orgs") or []}
    if org not in roles:
        try:
            api.get_organization_overview(org)
        except Exception as exc:  # noqa: BLE001 -- 404: no such org; anything else: say so
            if _status(exc) == 404:
                raise PushError(f"--org {org!r} does not exist on the Hub (create it first); nothing was pushed") from None
            raise PushError(f"cannot look up --org {org!r} ({_one_line(exc)}); nothing was pushed") from None
        raise PushError(f"{user!r} is not a member of {org!r}, so the token cannot write there; nothing was pushed")
    if roles[org] in WRITE_ROLES or (create_pr and roles[org] == "contributor"):
        return user
    need = "write or admin" + ("" if create_pr else " (contributor: with --create-pr)")
    raise PushError(f"{user!r} has the role {roles[org]!r} in {org!r}; pushing needs {need}; nothing was pushed")


# -- comparing with the Hub ---------------------------------------------------------------------------

def file_hashes(path: Path) -> tuple[str, str]:
    """``(git blob SHA-1, SHA-256)`` of a file: what the Hub reports as ``blob_id`` and LFS ``sha256``."""
    data = path.read_bytes()
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324 -- git's object id
    return blob, hashlib.sha256(data).hexdigest()


def local_files(folder: Path) -> dict[str, tuple[str, str]]:
    """Every file of a repo folder (relative POSIX path -> :func:`file_hashes`)."""
    return {p.relative_to(folder).as_posix(): file_hashes(p) for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


def delete_patterns(repo: HubRepo) -> list[str]:
    """Remote files that go when the local folder no longer has them: a dataset's data folder, a
    Space's code (its modules and, for the leaderboard, the bundled ``rote_hf`` package)."""
    if repo.repo_type == "dataset":
        return ["data/**", "*.md"]
    if repo.name == LEADERBOARD:
        return ["*.py", "rote_hf/**", "*.md"]
    return ["*.py", "*.md"]


def unchanged(api: Any, repo: HubRepo, revision: str | None) -> bool:
    """Whether the Hub's ``revision`` of ``repo`` holds exactly its local files (compared by hash)
    and no stale file that :func:`delete_patterns` would remove. A missing repo or branch: False."""
    try:
        tree = list(api.list_repo_tree(repo.repo_id, repo_type=repo.repo_type, revision=revision, recursive=True))
    except Exception as exc:  # noqa: BLE001 -- RepositoryNotFound / RevisionNotFound: not there yet
        if _status(exc) in (401, 404) or type(exc).__name__ in ("RepositoryNotFoundError", "RevisionNotFoundError"):
            return False
        raise
    remote = {f.path: f for f in tree if hasattr(f, "blob_id")}
    local = local_files(repo.path)
    for path, (blob, sha256) in local.items():
        f = remote.get(path)
        if f is None or (f.lfs.sha256 if f.lfs is not None else f.blob_id) != (sha256 if f.lfs is not None else blob):
            return False
    stale = [p for p in remote if p not in local and any(fnmatch.fnmatch(p, pat) for pat in delete_patterns(repo))]
    return not stale


def provenance(repos: list[HubRepo], *, results: str | os.PathLike | None, include_failed: bool) -> str:
    """The commit description: the package, its commit, when and from what the repos were built."""
    from rote_hf.results.provenance import git_commit, utc_timestamp  # lazy: runs git

    lines = [f"Built by rote-hf {__version__} (git commit {git_commit() or 'unknown: not a checkout'}) "
             f"at {utc_timestamp()} with `rote-hf publish`.", "",
             f"- results store: {results}" + (" (failed and unverified rows included)" if include_failed else ""),
             "- repos of this release, in upload order:"]
    for repo in repos:
        files = local_files(repo.path)
        digest = hashlib.sha256("".join(f"{p}:{h[1]}\n" for p, h in sorted(files.items())).encode()).hexdigest()[:16]
        lines.append(f"  - {repo.repo_type} {repo.repo_id}: {len(files)} files, content sha256 {digest}")
    return "\n".join(lines)


# -- uploading ----------------------------------------------------------------------------------------

def space_variables(org: str) -> dict[str, str]:
    """Variables of the leaderboard Space: the org's results repo and LLM sample."""
    return {RESULTS_REPO_ENV: f"{org}/{RESULTS}", SAMPLE_ENV: f"{org}/{SAMPLE_REPO}"}


def _push_one(api: Any, repo: HubRepo, options: PushOptions, description: str, report: PushReport,
              say: Callable[[str], None]) -> None:
    """Upload one repo (unless the Hub holds it already), tag it, set its variables; the report
    counts it only once every step succeeded, so a rerun redoes a half-finished repo."""
    same = unchanged(api, repo, options.revision)
    pr = None
    if not same:
        api.create_repo(repo.repo_id, repo_type=repo.repo_type, private=options.private, exist_ok=True,
                        space_sdk="gradio" if repo.repo_type == "space" else None)
        if options.revision:
            api.create_branch(repo.repo_id, branch=options.revision, repo_type=repo.repo_type, exist_ok=True)
        info = api.upload_folder(folder_path=str(repo.path), repo_id=repo.repo_id, repo_type=repo.repo_type,
                                 revision=options.revision, create_pr=options.create_pr,
                                 commit_message=f"rote-hf publish {options.tag}: {repo.name}",
                                 commit_description=description, delete_patterns=delete_patterns(repo))
        pr = getattr(info, "pr_url", None) if options.create_pr else None
    if not options.create_pr:
        api.create_tag(repo.repo_id, tag=options.tag, revision=options.revision, repo_type=repo.repo_type,
                       exist_ok=True)
    if repo.name == LEADERBOARD:
        for key, value in space_variables(repo.org).items():
            api.add_space_variable(repo.repo_id, key, value)
    if same:
        report.unchanged.append(repo.repo_id)
        say(f"unchanged  {repo.repo_id} (the Hub holds these files; skipped)")
        return
    report.pushed.append(repo.repo_id)
    if pr:
        report.pull_requests[repo.repo_id] = pr
    say(f"pushed     {repo.repo_id}" + (f" (pull request {pr})" if pr else ""))


def push(repos: list[HubRepo], *, api: Any, options: PushOptions = PushOptions(), description: str = "",
         say: Callable[[str], None] = print) -> PushReport:
    """Upload ``repos`` (in the order given: :func:`rote_hf.hub.publish.assemble`'s) after
    :func:`check_access`; see the module docstring. :class:`PushError` names what is already pushed."""
    orgs = {r.org for r in repos}
    if len(orgs) != 1:
        raise ValueError(f"repos must belong to one org, got {sorted(orgs)}")
    order = [upload_group(r.name) for r in repos]
    if order != sorted(order):
        raise ValueError("repos must be in upload order: datasets, results, metric Spaces, leaderboard")
    for repo in repos:  # refuse before the first upload: a Space that cannot install is not pushed
        check_repo(repo)
    check_access(api, orgs.pop(), create_pr=options.create_pr)
    report = PushReport()
    for repo in repos:
        try:
            _push_one(api, repo, options, description, report, say)
        except Exception as exc:  # noqa: BLE001 -- offline, auth, HTTP: one clear line for the user
            done = report.pushed + report.unchanged
            already = (f"already on the Hub: {', '.join(done)} ({len(done)} of {len(repos)})" if done
                       else "nothing was pushed")
            raise PushError(f"push of {repo.repo_type} {repo.repo_id} failed: {_one_line(exc)}; {already}; "
                            "rerun the same command to resume (repos the Hub already holds are skipped)") from None
    return report


__all__ = ["PushError", "PushOptions", "PushReport", "check_access", "delete_patterns", "find_token", "push",
           "space_variables", "unchanged"]
