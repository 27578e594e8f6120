"""The one fake of the requests tests: the Hub's side of an upload (``HfApi`` calls).

:class:`FakeHub` keeps each "remote" dataset repo as a folder and answers the calls that
``huggingface_hub.CommitScheduler`` and :func:`rote_hf.leaderboard.requests.open_desk` make:
``create_repo``, ``create_commit`` (the scheduler's uploads), ``snapshot_download`` and
``run_as_future`` (run at once). Everything else (the scheduler itself, its file listing and
change tracking) is the real library."""

from __future__ import annotations

import fnmatch
import shutil
from concurrent.futures import Future
from pathlib import Path
from types import SimpleNamespace


class FakeHub:
    def __init__(self, remote_root: Path) -> None:
        self.remote_root = Path(remote_root)
        self.commits: list[list[str]] = []

    def repo(self, repo_id: str) -> Path:
        return self.remote_root / repo_id.replace("/", "--")

    def create_repo(self, repo_id: str, private=None, repo_type=None, exist_ok=False, **_):
        self.repo(repo_id).mkdir(parents=True, exist_ok=True)
        return SimpleNamespace(repo_id=repo_id)

    def create_commit(self, repo_id: str, operations, commit_message: str = "", repo_type=None, revision=None, **_):
        paths = []
        for op in operations:
            target = self.repo(repo_id) / op.path_in_repo
            target.parent.mkdir(parents=True, exist_ok=True)
            source = op.path_or_fileobj
            data = source.read() if hasattr(source, "read") else Path(source).read_bytes()
            target.write_bytes(data)
            paths.append(op.path_in_repo)
        self.commits.append(paths)
        return SimpleNamespace(oid=str(len(self.commits)))

    def snapshot_download(self, repo_id: str, repo_type=None, local_dir=None, allow_patterns=None, **_):
        root = self.repo(repo_id)
        for path in sorted(root.glob("**/*")):
            rel = path.relative_to(root).as_posix()
            if path.is_file() and (allow_patterns is None or any(fnmatch.fnmatch(rel, p) for p in allow_patterns)):
                target = Path(local_dir) / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
        return str(local_dir)

    def run_as_future(self, fn, *args, **kwargs) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 -- handed to the caller through the future
            future.set_exception(exc)
        return future
