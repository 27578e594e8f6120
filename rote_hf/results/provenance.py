"""Provenance fields of a result row: package version, git commit, timestamp, fingerprints."""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import subprocess
from pathlib import Path
from typing import Any, Iterable

from rote_hf import __version__


def package_version() -> str:
    """``rote_hf.__version__``."""
    return __version__


@functools.lru_cache(maxsize=1)
def git_commit() -> str:
    """The commit of the checkout that holds this package (with ``+dirty`` when modified), or ``""``.

    Why: a row must say which code produced it; an installed wheel has no checkout, so ``""``.
    """
    root = Path(__file__).resolve().parents[2]
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return sha + ("+dirty" if dirty else "")


def utc_timestamp() -> str:
    """Now, UTC, ISO 8601 with seconds (``2026-11-30T12:00:00Z``)."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def array_fingerprint(arrays: Iterable[Any]) -> str:
    """SHA-256 (16 hex) over the dtype, shape and bytes of each array, in order.

    Used as the dataset fingerprint of a run: the exact arrays the model was trained and
    evaluated on, so two rows with the same fingerprint saw the same data.
    """
    import numpy as np

    h = hashlib.sha256()
    for a in arrays:
        arr = np.ascontiguousarray(a.detach().cpu().numpy() if hasattr(a, "detach") else np.asarray(a))
        h.update(str(arr.dtype).encode())
        h.update(repr(arr.shape).encode())
        h.update(arr.tobytes())
    return h.hexdigest()[:16]
