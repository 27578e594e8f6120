"""The walls of DESIGN.md hold: no import circles inside rote_hf, the core rooms import nothing
else of the package (except the leaf rote_hf.registry), no private name is imported across
modules, benchmarks/ never imports tests/, and the library never switches off Python's
int<->str digit limit (global interpreter state)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import REPO_ROOT

PACKAGE = REPO_ROOT / "rote_hf"
CORE_ROOMS = ("symbolic", "cogscale", "mdl", "metrics", "zoo")
LEAVES = ("rote_hf.registry", "rote_hf.argtypes")  # modules that import nothing of the package


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(module: str) -> list[tuple[str, str | None]]:
    """(imported rote_hf module, imported name or None) for every import statement, nested ones too."""
    path = MODULES[module]
    base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            target = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else node.module
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.append((sub, None) if sub in MODULES else (target, alias.name))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, None) for alias in node.names)
    out = []
    for target, name in found:
        if target and target.startswith("rote_hf"):
            while target not in MODULES:
                target = target.rsplit(".", 1)[0]
            out.append((target, name))
    return out


GRAPH = {m: {t for t, _ in _imports(m) if t != m} for m in MODULES}


def _cycles() -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return comps


def test_the_walker_sees_the_package():
    assert len(MODULES) > 100 and "rote_hf.suites.base" in MODULES
    assert "rote_hf.results.schema" in GRAPH["rote_hf.suites.base"]
    assert "rote_hf.zoo.spec" in GRAPH["rote_hf.zoo.families.rnn"]


def test_no_import_circles():
    assert _cycles() == []


def test_core_rooms_import_no_other_room():
    crossing = []
    for module, targets in GRAPH.items():
        room = module.split(".")[1] if module.count(".") else ""
        if room in CORE_ROOMS:
            crossing += [f"{module} -> {t}" for t in targets
                         if t not in LEAVES and not t.startswith(f"rote_hf.{room}.") and t != f"rote_hf.{room}"]
    assert crossing == []


def test_no_private_names_across_modules():
    private = [f"{module} imports {name} from {target}" for module in MODULES for target, name in _imports(module)
               if name and name.startswith("_") and not name.startswith("__") and target != module]
    assert private == []


def test_benchmarks_never_import_tests():
    offenders = []
    for path in (REPO_ROOT / "benchmarks").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            offenders += [f"{path.name}: {n}" for n in names if n == "tests" or n.startswith("tests.")]
    assert offenders == []


def test_the_library_leaves_the_int_digit_limit_alone():
    calls = [str(p.relative_to(REPO_ROOT)) for p in PACKAGE.rglob("*.py")
             for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
             if isinstance(node, ast.Attribute) and node.attr == "set_int_max_str_digits"]
    assert calls == []


def test_leaves_import_nothing_of_the_package():
    assert {leaf: [t for t in GRAPH[leaf] if t.startswith("rote_hf")] for leaf in LEAVES} == {leaf: [] for leaf in LEAVES}
