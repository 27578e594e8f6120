"""A fake of ``huggingface_hub.HfApi`` for the publish tests: the one thing faked (no hub is reachable
from tests). It records every call in order and keeps each repo's files per branch in memory, so
that the hashes ``list_repo_tree`` reports are computed from what was uploaded, like the Hub's (git
blob SHA-1 for small files, LFS SHA-256 for data files). Errors are huggingface_hub's own classes."""

from __future__ import annotations

import fnmatch
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError, RevisionNotFoundError
from huggingface_hub.hf_api import CommitInfo, RepoFile

LFS_SUFFIXES = (".parquet",)


def _error(cls, status: int, message: str):
    return cls(message, response=httpx.Response(status, request=httpx.Request("GET", "https://huggingface.co/api")))


@dataclass
class FakeHub:
    """The Hub's state: accounts, repos (id -> {branch: {path: bytes}}), tags, variables, and the calls."""

    user: str = "alice"
    orgs: dict[str, str] = field(default_factory=lambda: {"acme-lab": "write"})
    existing_orgs: tuple[str, ...] = ("acme-lab", "other-org")
    token_role: str = "write"
    repos: dict[str, dict] = field(default_factory=dict)
    calls: list[tuple] = field(default_factory=list)
    fail: tuple[str, str] | None = None  # (method, repo_id): raise there once

    def api(self, token: str | None = None) -> "FakeHfApi":
        return FakeHfApi(self)


class FakeHfApi:
    def __init__(self, hub: FakeHub):
        self.hub = hub

    def _maybe_fail(self, method: str, repo_id: str) -> None:
        if self.hub.fail == (method, repo_id):
            self.hub.fail = None
            raise _error(HfHubHTTPError, 500, f"500 Server Error for {repo_id}")

    def whoami(self, token=None, **kw):
        self.hub.calls.append(("whoami",))
        return {"name": self.hub.user, "orgs": [{"name": n, "roleInOrg": r} for n, r in self.hub.orgs.items()],
                "auth": {"accessToken": {"role": self.hub.token_role}}}

    def get_organization_overview(self, organization, token=None):
        self.hub.calls.append(("org", organization))
        if organization not in self.hub.existing_orgs:
            raise _error(HfHubHTTPError, 404, f"404 Client Error: organization {organization} not found")
        return {"name": organization}

    def create_repo(self, repo_id, *, repo_type=None, private=None, exist_ok=False, space_sdk=None, **kw):
        self.hub.calls.append(("create_repo", repo_id, {"repo_type": repo_type, "private": private, "space_sdk": space_sdk}))
        repo = self.hub.repos.setdefault(repo_id, {"type": repo_type, "private": private, "branches": {"main": {}},
                                                   "tags": {}, "variables": {}})
        return repo_id

    def create_branch(self, repo_id, *, branch, repo_type=None, exist_ok=False, **kw):
        self.hub.calls.append(("create_branch", repo_id, branch))
        branches = self.hub.repos[repo_id]["branches"]
        branches.setdefault(branch, dict(branches["main"]))

    def list_repo_tree(self, repo_id, *, repo_type=None, revision=None, recursive=False, **kw):
        self.hub.calls.append(("list_repo_tree", repo_id, revision))
        if repo_id not in self.hub.repos:
            raise _error(RepositoryNotFoundError, 404, f"404 Client Error: repository {repo_id} not found")
        branches = self.hub.repos[repo_id]["branches"]
        if (revision or "main") not in branches:
            raise _error(RevisionNotFoundError, 404, f"404 Client Error: revision {revision} not found")
        for path, data in sorted(branches[revision or "main"].items()):
            blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
            lfs = None
            if path.endswith(LFS_SUFFIXES):
                lfs = {"size": len(data), "oid": hashlib.sha256(data).hexdigest(), "pointerSize": 130}
                blob = hashlib.sha1(b"pointer:" + data).hexdigest()  # the Hub's blob of an LFS file is the pointer's
            yield RepoFile(path=path, size=len(data), oid=blob, lfs=lfs)

    def upload_folder(self, *, repo_id, folder_path, repo_type=None, revision=None, create_pr=None,
                      commit_message=None, commit_description=None, delete_patterns=None, **kw):
        self.hub.calls.append(("upload_folder", repo_id, {
            "repo_type": repo_type, "revision": revision, "create_pr": create_pr, "folder_path": folder_path,
            "commit_message": commit_message, "commit_description": commit_description,
            "delete_patterns": delete_patterns}))
        self._maybe_fail("upload_folder", repo_id)
        folder = Path(folder_path)
        files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
        branch = revision or "main"
        if create_pr:
            n = len([k for k in self.hub.repos[repo_id]["branches"] if k.startswith("refs/pr/")]) + 1
            branch = f"refs/pr/{n}"
            base = dict(self.hub.repos[repo_id]["branches"][revision or "main"])
            self.hub.repos[repo_id]["branches"][branch] = base
        current = self.hub.repos[repo_id]["branches"][branch]
        for path in list(current):
            if path not in files and any(fnmatch.fnmatch(path, p) for p in delete_patterns or []):
                del current[path]
        current.update(files)
        url = f"https://huggingface.co/{repo_id}/commit/{len(self.hub.calls):040d}"
        pr = f"https://huggingface.co/{repo_id}/discussions/{branch.rsplit('/', 1)[-1]}" if create_pr else None
        return CommitInfo(commit_url=url, commit_message=commit_message or "", commit_description=commit_description or "",
                          oid=f"{len(self.hub.calls):040d}", pr_url=pr)

    def create_tag(self, repo_id, *, tag, revision=None, repo_type=None, exist_ok=False, **kw):
        self.hub.calls.append(("create_tag", repo_id, tag, revision))
        self.hub.repos[repo_id]["tags"].setdefault(tag, revision or "main")

    def add_space_variable(self, repo_id, key, value, **kw):
        self.hub.calls.append(("add_space_variable", repo_id, key, value))
        self._maybe_fail("add_space_variable", repo_id)
        self.hub.repos[repo_id]["variables"][key] = value
