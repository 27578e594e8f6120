"""The walls of DESIGN.md and docs/architecture.md hold: every room sits on one floor of the table
in docs/architecture.md and imports only down or sideways, with no circle of rooms, counting
imports inside functions and lazy ``"rote_hf.x:name"`` strings; no import circles among modules;
the core rooms import nothing else of the package (except the leaves); no private name is
imported across modules; benchmarks/ never imports tests/; and the library never switches off
Python's int<->str digit limit (global interpreter state)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.helpers import REPO_ROOT

PACKAGE = REPO_ROOT / "rote_hf"
CORE_ROOMS = ("symbolic", "cogscale", "mdl", "metrics", "zoo")
LEAVES = ("rote_hf.registry", "rote_hf.argtypes", "rote_hf.command", "rote_hf.files")  # modules that import nothing of the package


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
LAZY_REFERENCE = re.compile(r"(rote_hf(?:\.\w+)+)(?::\w+)?")


def _string_references(module: str) -> list[str]:
    """rote_hf modules named by a string constant ``"rote_hf.a.b"`` or ``"rote_hf.a.b:name"``
    (what a registry or ``resolve_object`` imports lazily)."""
    out = []
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = LAZY_REFERENCE.fullmatch(node.value)
            if match:
                target = match.group(1)
                while target not in MODULES and "." in target:
                    target = target.rsplit(".", 1)[0]
                out.append(target)
    return out


def room(module: str) -> str:
    """The room of a module: ``rote_hf.results.store`` -> ``results``; ``rote_hf`` -> ``rote_hf``."""
    return module.split(".")[1] if "." in module else module


def _room_edges() -> dict[tuple[str, str], list[str]]:
    """(from room, to room) -> the imports behind that arrow, every kind counted."""
    edges: dict[tuple[str, str], list[str]] = {}
    for module in MODULES:
        targets = [(t, "import") for t, _ in _imports(module)] + [(t, "string") for t in _string_references(module)]
        for target, kind in targets:
            if room(target) != room(module):
                edges.setdefault((room(module), room(target)), []).append(f"{module} -> {target} ({kind})")
    return edges


ROOM_EDGES = _room_edges()


def _floors() -> dict[str, int]:
    """Room -> floor number, read from the floor table of docs/architecture.md."""
    floors: dict[str, int] = {}
    text = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and re.fullmatch(r"\d+ \w+", cells[0]):
            for name in re.findall(r"`([\w.]+)`", cells[1]):
                assert name not in floors, f"room {name} is on two floors of docs/architecture.md"
                floors[name] = int(cells[0].split()[0])
    return floors


FLOORS = _floors()


def _cycles(graph: dict[str, set[str]] = GRAPH) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
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

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def test_the_walker_sees_the_package():
    assert len(MODULES) > 100 and "rote_hf.suites.base" in MODULES
    assert "rote_hf.results.schema" in GRAPH["rote_hf.suites.base"]
    assert "rote_hf.zoo.spec" in GRAPH["rote_hf.zoo.families.rnn"]


def test_no_import_circles():
    assert _cycles() == []


def test_every_room_is_on_one_floor_of_the_architecture_page():
    rooms = {room(m) for m in MODULES}
    assert len(set(FLOORS.values())) >= 7 and FLOORS["registry"] == 0 and FLOORS["cli"] == max(FLOORS.values())
    assert sorted(rooms - set(FLOORS)) == []  # a room the page does not place
    assert sorted(set(FLOORS) - rooms) == []  # a room the page names that does not exist


def test_the_room_graph_counts_lazy_imports_and_strings():
    assert "rote_hf.suites.cogscale -> rote_hf.datasets.cogscale (string)" in ROOM_EDGES[("suites", "datasets")]
    assert "rote_hf.cli -> rote_hf.reports.commands (string)" in ROOM_EDGES[("cli", "reports")]
    assert any("rote_hf.suites.cogscale -> rote_hf.protocols" in e for e in ROOM_EDGES[("suites", "protocols")])


def test_no_room_imports_up_a_floor():
    upward = sorted(f"{a} (floor {FLOORS[a]}) -> {b} (floor {FLOORS[b]}): {', '.join(sorted(set(why))[:3])}"
                    for (a, b), why in ROOM_EDGES.items() if FLOORS[a] < FLOORS[b])
    assert upward == []


def test_no_circle_of_rooms():
    graph: dict[str, set[str]] = {room(m): set() for m in MODULES}
    for a, b in ROOM_EDGES:
        graph[a].add(b)
    assert _cycles(graph) == []


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


def test_a_lazy_import_of_the_package_says_why():
    """An import of a rote_hf module inside a function stays there only to keep start-up light, and
    its line says so (``# lazy: imports torch``); any other belongs at the top of the module."""
    unexplained = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        lines = path.read_text(encoding="utf-8").splitlines()
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else \
                    [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if any(n == "rote_hf" or n.startswith("rote_hf.") for n in names) \
                        and "# lazy: " not in lines[node.end_lineno - 1]:
                    unexplained.append(f"{module}:{node.lineno}")
    assert unexplained == []


def test_the_library_leaves_the_int_digit_limit_alone():
    calls = [str(p.relative_to(REPO_ROOT)) for p in PACKAGE.rglob("*.py")
             for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
             if isinstance(node, ast.Attribute) and node.attr == "set_int_max_str_digits"]
    assert calls == []


def test_leaves_import_nothing_of_the_package():
    assert {leaf: [t for t in GRAPH[leaf] if t.startswith("rote_hf")] for leaf in LEAVES} == {leaf: [] for leaf in LEAVES}
