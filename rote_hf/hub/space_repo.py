"""Write the leaderboard Space ``<root>/rote/leaderboard/``: the files of ``space/`` plus the part
of ``rote_hf`` that they import, so that the Space installs from public packages alone.

rote-hf is on no package index, so ``requirements.txt`` cannot name it. Instead the build
follows every ``rote_hf`` import of ``app.py`` and its local modules (function-level imports
included), and copies those modules, with the data files of their packages, into
``<repo>/rote_hf/`` from the installed package (a wheel or a checkout: one source of truth,
nothing kept by hand). ``app.py`` puts its own folder first on ``sys.path``, so it imports that
copy. ``rote_hf.zoo`` and ``rote_hf.train`` (torch) are not reached, so the Space does not
install torch.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from rote_hf.hub.sources import source_dir
from rote_hf.mirror.repo import BuiltRepo, repo_dir, staged_repo
import rote_hf

LEADERBOARD = "leaderboard"
SPACE_FILES = ("app.py", "llm_tab.py", "README.md", "LICENSE.md", "requirements.txt")
"""Files of ``space/`` that form the leaderboard Space."""
PACKAGE = "rote_hf"
_DATA_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*.py", ".*", "_bundled")


def _package_root() -> Path:
    return Path(rote_hf.__file__).resolve().parent


def _module_path(package_root: Path, module: str) -> Path | None:
    """File of ``rote_hf.<...>`` module ``module`` (a module or a package's ``__init__``), or None."""
    parts = module.split(".")[1:]
    base = package_root.joinpath(*parts)
    candidates = [base / "__init__.py"] if not parts else [base.with_suffix(".py"), base / "__init__.py"]
    return next((c for c in candidates if c.is_file()), None)


def _imported_modules(path: Path, module: str) -> set[str]:
    """Absolute names of every module (and ``module.attr``) imported anywhere in the file."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.add(name)
            out.update(f"{name}.{a.name}" for a in node.names)
    return out


def package_closure(entry_files: list[Path]) -> dict[str, Path]:
    """``{module: file}`` of every ``rote_hf`` module reached from ``entry_files`` (and their parents)."""
    root = _package_root()
    found: dict[str, Path] = {}
    todo = [(f, f.stem) for f in entry_files]
    while todo:
        path, module = todo.pop()
        for name in _imported_modules(path, module):
            if name.split(".")[0] != PACKAGE:
                continue
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                candidate = ".".join(parts[:i])
                file = _module_path(root, candidate)
                if file is not None and candidate not in found:
                    found[candidate] = file
                    todo.append((file, candidate))
    return found


def build_leaderboard_space(root: Path, *, source: Path | None = None) -> BuiltRepo:
    """Write ``<root>/rote/leaderboard/`` atomically: ``space/`` files + the ``rote_hf`` they import."""
    folder = source if source is not None else source_dir("space")
    files = [folder / f for f in SPACE_FILES]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise FileNotFoundError(f"leaderboard Space files not found: {missing}")
    modules = package_closure([f for f in files if f.suffix == ".py"])
    package_root = _package_root()
    with staged_repo(root, LEADERBOARD) as staging:
        for f in files:
            shutil.copyfile(f, staging / f.name)
        packages = {p.parent for p in modules.values()}
        for file in sorted(set(modules.values())):
            target = staging / PACKAGE / file.relative_to(package_root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, target)
        for pkg in sorted(packages):  # data files (published rows, ...) of the packages reached
            for data in pkg.iterdir():
                if data.is_file() and not _DATA_SKIP(str(pkg), [data.name]):
                    shutil.copyfile(data, staging / PACKAGE / data.relative_to(package_root))
                elif data.is_dir() and data.name not in ("__pycache__", "_bundled") and not (data / "__init__.py").exists():
                    shutil.copytree(data, staging / PACKAGE / data.relative_to(package_root), ignore=_DATA_SKIP)
    return BuiltRepo(path=repo_dir(root, LEADERBOARD), rows={"space": {"files": len(files), "rote_hf modules": len(modules)}})
