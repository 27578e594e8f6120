"""What is published works without rote-hf: metric modules load and compute their cards' examples
in a process where ``import rote_hf`` fails, requirements name public packages only (no torch for
a metric demo), and the Spaces take host and port from the environment."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from rote_hf.hub.metric_repos import METRIC_REPOS, build_metric_repo
from rote_hf.hub.requirements import check_requirements, dependency_closure
from rote_hf.hub.space_repo import build_leaderboard_space

# A finder placed first on sys.meta_path: every import of rote_hf fails, as on a machine
# without rote-hf (the shared venv's editable install would otherwise provide it).
BLOCK = """
import sys
class _NoRoteHf:
    def find_spec(self, name, path=None, target=None):
        if name == "rote_hf" or name.startswith("rote_hf."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _NoRoteHf())
sys.path[:] = [p for p in sys.path if p not in ("", ".") and not p.rstrip("/").endswith(("/hub", "/main"))]
try:
    import rote_hf
except ModuleNotFoundError:
    pass
else:
    raise SystemExit("rote_hf is importable")
"""

RUN_EXAMPLES = BLOCK + """
import doctest, io, json, re, sys
import evaluate
root = sys.argv[1]
report = {}
for name in sys.argv[2:]:
    card = open(f"{root}/rote/{name}/README.md", encoding="utf-8").read()
    section = card.split("### Examples", 1)[1].split("\\n## ", 1)[0]
    code = "\\n".join(re.findall(r"```python\\n(.*?)```", section, flags=re.S))
    test = doctest.DocTestParser().get_doctest(code, {}, name, None, 0)
    out = io.StringIO()
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test, out=out.write)
    report[name] = {"attempted": result.attempted, "failed": result.failed, "log": out.getvalue()[-2000:]}
report["rote_hf_modules"] = sorted(m for m in sys.modules if m.split(".")[0] == "rote_hf")
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    root = tmp_path_factory.mktemp("self_contained")
    for name in METRIC_REPOS:
        build_metric_repo(root, name)
    build_leaderboard_space(root)
    return root


def _env(tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_HOME=str(tmp / "hf"), HF_HUB_OFFLINE="1", HF_ENDPOINT="http://127.0.0.1:9", GRADIO_ANALYTICS_ENABLED="False")
    return env


def test_metric_modules_compute_their_card_examples_without_rote_hf(mirror, tmp_path):
    proc = subprocess.run([sys.executable, "-c", RUN_EXAMPLES, str(mirror), *METRIC_REPOS], cwd=mirror,
                          env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["rote_hf_modules"] == []
    for name in METRIC_REPOS:
        assert report[name]["attempted"] >= 3 and report[name]["failed"] == 0, report[name]["log"]


def test_the_block_is_real(tmp_path):
    code = BLOCK + "import rote_hf.metrics\n"
    proc = subprocess.run([sys.executable, "-c", code], env=_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "No module named 'rote_hf'" in proc.stderr


@pytest.mark.parametrize("name", METRIC_REPOS)
def test_metric_requirements_are_public_and_light(mirror, name):
    report = check_requirements(mirror / "rote" / name, forbid=("torch", "transformers"))
    assert set(report.requirements) == {"evaluate", "datasets", "gradio", "numpy", "rapidfuzz"}
    assert "torch" not in report.closure and "transformers" not in report.closure
    assert {"evaluate", "gradio", "pandas"} <= report.closure


def test_leaderboard_space_carries_what_it_imports(mirror):
    space = mirror / "rote" / "leaderboard"
    report = check_requirements(space, forbid=("torch",))
    assert "torch" not in report.closure and "rote-hf" not in report.requirements
    # function-level imports only, on paths the Space never takes: the local-model responder
    # (transformers, torch), the MDL learner (flint, sympy) and the reproduction figure (matplotlib)
    assert set(report.optional) <= {"transformers", "torch", "flint", "sympy", "matplotlib"}
    vendored = {p.relative_to(space).as_posix() for p in (space / "rote_hf").rglob("*.py")}
    assert {"rote_hf/boards/tables.py", "rote_hf/results/schema.py", "rote_hf/metrics/distances.py"} <= vendored
    assert not any(p.startswith(("rote_hf/zoo/", "rote_hf/train/", "rote_hf/hub/")) for p in vendored
                   if p not in ("rote_hf/zoo/__init__.py", "rote_hf/zoo/display.py"))  # display names only, no torch
    assert (space / "rote_hf" / "results" / "published" / "rote_main_runs.csv").is_file()


def test_unsatisfiable_requirements_are_refused(mirror, tmp_path):
    import shutil

    repo = tmp_path / "dl_distance"
    shutil.copytree(mirror / "rote" / "dl_distance", repo)
    req = repo / "requirements.txt"
    base = req.read_text()
    req.write_text(base + "rote-hf>=0.1\n")
    with pytest.raises(ValueError, match="rote-hf>=0.1' cannot be installed: rote-hf is on no package index"):
        check_requirements(repo)
    req.write_text(base.replace("rapidfuzz==3.14.6\n", ""))
    with pytest.raises(ValueError, match="metric_distances.py imports 'rapidfuzz', which no requirement provides"):
        check_requirements(repo)
    req.write_text(base.replace("gradio==6.31.0", "gradio==5.0.0"))
    with pytest.raises(ValueError, match="does not match the tested version gradio=="):
        check_requirements(repo)
    req.write_text(base + "transformers\n")
    with pytest.raises(ValueError, match="pull in torch|pull in transformers"):
        check_requirements(repo, forbid=("transformers",))
    assert "torch" not in dependency_closure(["evaluate", "gradio"])


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _serves(url: str, deadline: float) -> bool:
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return r.status == 200
        except OSError:
            time.sleep(0.5)
    return False


@pytest.mark.slow
def test_metric_space_binds_to_the_host_and_port_of_the_environment(mirror, tmp_path):
    host = "127.0.0.2"  # a second loopback address: answering there (and not on 127.0.0.1) proves the env is used
    port = _free_port(host)
    env = {**_env(tmp_path), "GRADIO_SERVER_NAME": host, "GRADIO_SERVER_PORT": str(port)}
    app = mirror / "rote" / "dl_distance"
    proc = subprocess.Popen([sys.executable, "-c", BLOCK + "import os, runpy; sys.path.insert(0, os.getcwd()); runpy.run_path('app.py', run_name='__main__')"],
                            cwd=app, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert _serves(f"http://{host}:{port}/", time.time() + 120), "the metric Space did not answer on the env host/port"
        with pytest.raises(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_leaderboard_host_and_port_default_from_the_environment(monkeypatch):
    import runpy

    from tests.helpers import REPO_ROOT

    captured = {}
    app = runpy.run_path(str(REPO_ROOT / "space" / "app.py"), run_name="space_app_under_test")
    monkeypatch.setenv("GRADIO_SERVER_NAME", "0.0.0.0")
    monkeypatch.setenv("GRADIO_SERVER_PORT", "7861")

    class FakeDemo:  # stands in for the Blocks app only: we check what launch() is given
        def queue(self, **kw):
            return self

        def launch(self, **kw):
            captured.update(kw)

    app["main"].__globals__["build_demo"] = lambda results, **options: FakeDemo()
    app["main"]([])
    assert (captured["server_name"], captured["server_port"]) == ("0.0.0.0", 7861)
    monkeypatch.delenv("GRADIO_SERVER_NAME")
    monkeypatch.delenv("GRADIO_SERVER_PORT")
    app["main"]([])
    assert (captured["server_name"], captured["server_port"]) == ("127.0.0.1", None)


# rote_hf may come only from the Space folder itself (its copied modules), never from the
# checkout or the shared venv's editable install.
ONLY_FROM_SPACE = """
import importlib.machinery, os, sys
SPACE = os.getcwd()
class _SpaceOnly:
    def find_spec(self, name, path=None, target=None):
        if name != "rote_hf" and not name.startswith("rote_hf."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path if path else [SPACE])
        if spec is None or not str(spec.origin).startswith(SPACE + os.sep):
            raise ModuleNotFoundError(f"No module named {name!r} in the Space", name=name)
        return spec
sys.meta_path.insert(0, _SpaceOnly())
sys.path.insert(0, SPACE)
import runpy
app = runpy.run_path("app.py", run_name="space_app")
demo = app["build_demo"](sys.argv[1])
outside = sorted(m.__file__ for n, m in sys.modules.items()
                 if n.split(".")[0] == "rote_hf" and getattr(m, "__file__", None) and not m.__file__.startswith(SPACE))
print("OUTSIDE", outside)
print("LOADED", sum(n.split(".")[0] == "rote_hf" for n in sys.modules), "TORCH", "torch" in sys.modules)
"""


@pytest.mark.slow
def test_leaderboard_space_builds_its_app_from_its_own_files(mirror, tmp_path):
    space = mirror / "rote" / "leaderboard"
    (tmp_path / "results").mkdir()
    proc = subprocess.run([sys.executable, "-c", ONLY_FROM_SPACE, str(tmp_path / "results")], cwd=space,
                          env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if line.startswith(("OUTSIDE", "LOADED")))
    assert lines["OUTSIDE"] == "[]"
    assert int(lines["LOADED"].split()[0]) >= 10
    assert lines["LOADED"].endswith("TORCH False")  # the leaderboard never loads torch


def test_only_module_level_imports_must_be_covered(tmp_path):
    repo = tmp_path / "toy"
    repo.mkdir()
    (repo / "requirements.txt").write_text("# public packages\nnumpy>=2\n")
    (repo / "helper.py").write_text("X = 1\n")
    (repo / "app.py").write_text(
        "from typing import TYPE_CHECKING\nimport json\nimport numpy\nimport helper\n"
        "if TYPE_CHECKING:\n    import pandas\n\n\ndef local_model():\n    import transformers\n"
    )
    report = check_requirements(repo)
    assert report.requirements == ("numpy",) and report.optional == {"transformers": ["app.py"]}
    assert report.summary() == "requirements ok: 1 packages (1 with dependencies); optional, not installed on the Hub: transformers"
    (repo / "app.py").write_text("import pandas\n")
    with pytest.raises(ValueError, match="rote/toy: requirements.txt cannot be satisfied: app.py imports 'pandas'"):
        check_requirements(repo)
    (repo / "requirements.txt").write_text("./rote_hf-0.1.0-py3-none-any.whl\n")
    with pytest.raises(ValueError, match="not a requirement of a public package"):
        check_requirements(repo)
