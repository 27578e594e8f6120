"""Can a Space install from its ``requirements.txt``? Offline checks run before anything is pushed.

A Space builds by ``pip install -r requirements.txt`` and then runs ``app.py``. The checks:

1. every line is a plain requirement of a public package (no local paths, no options) and not
   ``rote-hf`` itself, which is on no package index;
2. each requirement is installed here at a version that satisfies it (so the pin set is the one
   the test suite ran; pip check is clean on it);
3. every third-party module that the repo's Python files import at module level is provided by
   a requirement or by one of their dependencies (read from the installed metadata);
   function-level imports that are not covered are reported as optional (e.g. the local
   ``transformers`` responder of the LLM tab, never used on the Space);
4. ``forbid``: distributions that must not be pulled in at all (a metric demo must not install
   torch or transformers).

Problems raise ``ValueError`` naming the repo folder and every offending line or module.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

NOT_ON_AN_INDEX = ("rote-hf",)


@dataclass(frozen=True)
class RequirementsReport:
    """What :func:`check_requirements` found: the requirements, their dependency closure, and the
    function-level imports that stay optional (module -> importing files)."""

    requirements: tuple[str, ...]
    closure: frozenset[str]
    optional: dict[str, list[str]] = field(default_factory=dict)

    def summary(self) -> str:
        """One line for ``rote-hf publish``."""
        line = f"requirements ok: {len(self.requirements)} packages ({len(self.closure)} with dependencies)"
        if self.optional:
            line += "; optional, not installed on the Hub: " + ", ".join(sorted(self.optional))
        return line


def _canonical(name: str) -> str:
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(name))


def dependency_closure(names: list[str]) -> frozenset[str]:
    """Canonical names of ``names`` and everything they require (no extras), from installed metadata."""
    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = [_canonical(n) for n in names]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for line in requires:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(_canonical(req.name))
    return frozenset(seen)


def _type_checking_only(stmt: ast.AST) -> bool:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): imports there never run."""
    if not isinstance(stmt, ast.If):
        return False
    test = stmt.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(path: Path) -> list[tuple[str, bool]]:
    """``(top-level module, at module level?)`` for each absolute import in the file that can run
    (imports under ``if TYPE_CHECKING:`` are left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = set()
    for stmt in tree.body:  # module level, including top-level try/if blocks (not `if TYPE_CHECKING:`)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or _type_checking_only(stmt):
            continue
        top_level.update(id(n) for n in ast.walk(stmt))
    never_run = {id(n) for stmt in ast.walk(tree) if _type_checking_only(stmt) for n in ast.walk(stmt)}
    out = []
    for node in ast.walk(tree):
        if id(node) in never_run:
            continue
        if isinstance(node, ast.Import):
            out += [(a.name.split(".")[0], id(node) in top_level) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.append((node.module.split(".")[0], id(node) in top_level))
    return out


def check_requirements(folder: Path, *, forbid: tuple[str, ...] = (), label: str | None = None) -> RequirementsReport:
    """Check ``folder/requirements.txt`` against the folder's Python files; see the module docstring.
    ``label`` names the repo in messages (default ``rote/<folder name>``)."""
    from packaging.requirements import InvalidRequirement, Requirement

    folder = Path(folder)
    label = label or f"rote/{folder.name}"
    path = folder / "requirements.txt"
    if not path.is_file():
        raise ValueError(f"{label}: requirements.txt is missing")
    problems: list[str] = []
    names: list[str] = []
    lines = [ln.split("#", 1)[0].strip() for ln in path.read_text(encoding="utf-8").splitlines()]
    for line in filter(None, lines):
        try:
            req = Requirement(line)
        except InvalidRequirement:
            problems.append(f"{line!r} is not a requirement of a public package (no paths, URLs or pip options)")
            continue
        name = _canonical(req.name)
        if req.url or name in NOT_ON_AN_INDEX:
            problems.append(f"{line!r} cannot be installed: {req.name} is on no package index")
            continue
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            problems.append(f"{line!r} is not installed here, so its pin is untested")
            continue
        if req.specifier and not req.specifier.contains(version, prereleases=True):
            problems.append(f"{line!r} does not match the tested version {req.name}=={version}")
        names.append(name)
    closure = dependency_closure(names)
    for bad in forbid:
        if _canonical(bad) in closure:
            problems.append(f"the requirements pull in {bad}, which this repo must not need")
    providers = metadata.packages_distributions()
    local = {p.stem for p in folder.glob("*.py")} | {p.name for p in folder.iterdir() if p.is_dir()}
    optional: dict[str, list[str]] = {}
    for py in sorted(folder.rglob("*.py")):
        for module, at_top in _imports(py):
            if module in sys.stdlib_module_names or module in local or module == "__future__":
                continue
            dists = {_canonical(d) for d in providers.get(module, [])}
            if dists & closure:
                continue
            where = py.relative_to(folder).as_posix()
            if at_top:
                problems.append(f"{where} imports {module!r}, which no requirement provides")
            else:
                optional.setdefault(module, []).append(where)
    if problems:
        raise ValueError(f"{label}: requirements.txt cannot be satisfied: " + "; ".join(dict.fromkeys(problems)))
    return RequirementsReport(tuple(names), closure, optional)
