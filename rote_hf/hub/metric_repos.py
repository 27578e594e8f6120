"""Write the five ``evaluate`` metric repos into the local mirror: ``<root>/rote/<name>/``.

The modules live in ``eval_suite/metrics/<name>/`` (``<name>.py``, metric card README.md,
``app.py``, ``requirements.txt``); this build copies each folder as is, so that
``evaluate.load("rote/<name>")`` works verbatim with the mirror root as working directory,
offline. ``rote_hf`` never imports ``eval_suite``: the folders are located as files next to
the package in a source checkout and copied, nothing more.
"""

from __future__ import annotations

from pathlib import Path

from rote_hf.hub.mirror import BuiltRepo, copy_files_repo

METRIC_REPOS: tuple[str, ...] = ("dl_distance", "jw_distance", "exact_rollout", "confabulation", "cogscale_score")
"""Metric repos of the ``rote`` org, one ``evaluate`` module each."""

MODULE_FILES: tuple[str, ...] = ("README.md", "app.py", "requirements.txt")
"""Files every metric folder holds besides ``<name>.py``."""


def source_dir() -> Path:
    """``eval_suite/metrics`` of the source checkout this package was imported from."""
    return Path(__file__).resolve().parents[2] / "eval_suite" / "metrics"


def module_files(name: str, source: Path | None = None) -> list[Path]:
    """The files of metric ``name`` to publish; ``FileNotFoundError`` if one is missing."""
    folder = (source or source_dir()) / name
    files = [folder / f"{name}.py", *(folder / f for f in MODULE_FILES)]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise FileNotFoundError(
            f"metric module files not found: {missing}; `rote-hf build metrics` needs a source checkout with eval_suite/metrics/"
        )
    return files


def build_metric_repo(root: Path, name: str, *, source: Path | None = None) -> BuiltRepo:
    """Copy metric ``name`` into ``<root>/rote/<name>/`` atomically (staging folder + swap)."""
    if name not in METRIC_REPOS:
        raise ValueError(f"name must be one of {list(METRIC_REPOS)}, got {name!r}")
    files = module_files(name, source)
    return BuiltRepo(path=copy_files_repo(root, name, files), rows={"module": {"files": len(files)}})


def build(root: Path, *, progress: bool = True) -> list[BuiltRepo]:
    """Build target ``metrics``: all five metric repos (copying is instant; no progress bar)."""
    return [build_metric_repo(Path(root), name) for name in METRIC_REPOS]
