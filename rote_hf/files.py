"""The one way the package writes a file that readers may open at any moment: into a temporary
file beside it, then ``os.replace`` (atomic on POSIX), so a reader sees the old file or the new one.
A failing writer leaves the old file (or nothing) and no temporary file; a killed one leaves at most
a ``.tmp-*`` file, which readers that list a folder skip.

A leaf module (it imports nothing of the package): the results store, the exports, the
leaderboard's request log, the LLM cache and log, and the dataset builders all write through it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def current_umask() -> int:
    """This process's umask (from ``/proc/self/status`` where available, so no thread sees it change)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike, content: bytes | Callable[[str], object], *,
                 mode: int | None = None, fsync: bool = False) -> Path:
    """Write ``path`` atomically and return it; its parent folder is created.

    ``content`` is the file's bytes, or a function that writes the file whose path (a ``str``) it
    is given (``lambda tmp: pq.write_table(table, tmp)``). ``mode`` is the file's permission bits
    (default: an ordinary file's, ``0o666`` less the umask; ``mkstemp`` alone would give ``0o600``).
    ``fsync`` flushes the bytes to disk before the rename (a record that must survive a power cut).
    """
    if not isinstance(content, (bytes, bytearray, memoryview)) and not callable(content):
        raise TypeError(f"content must be bytes or a function of the file's path, got {type(content).__name__}")
    path = Path(path)
    with _temp_beside(path, content, 0o666 & ~current_umask() if mode is None else mode, fsync) as tmp:
        os.replace(tmp, path)
    return path


def create_once(path: str | os.PathLike, content: bytes, *, mode: int = 0o600) -> bytes:
    """Create ``path`` holding ``content`` unless it exists, and return the bytes it holds either way.

    The bytes go into a temporary file beside it that is then hard-linked to ``path`` (``os.link``
    fails when the target exists), so ``path`` appears whole: a process or thread that loses the
    race to create it reads the winner's complete bytes, never an empty or half-written file.
    """
    if not isinstance(content, (bytes, bytearray)):
        raise TypeError(f"content must be bytes, got {type(content).__name__}")
    path = Path(path)
    with _temp_beside(path, content, mode, False) as tmp:
        try:
            os.link(tmp, path)
        except FileExistsError:
            return path.read_bytes()
    return bytes(content)


@contextmanager
def _temp_beside(path: Path, content: bytes | Callable[[str], object], mode: int, fsync: bool) -> Iterator[str]:
    """A ``.tmp-*`` file in ``path``'s folder (created) holding ``content`` with ``mode``; removed on exit
    unless the body moved it away."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            if not callable(content):
                fh.write(content)
        if callable(content):
            content(tmp)  # after the close: the function opens the path itself
        if fsync:
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        yield tmp
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


__all__ = ["create_once", "current_umask", "write_atomic"]
