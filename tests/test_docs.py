"""Every ```python block of README.md and docs/*.md runs as written, against a built mirror.

The blocks are collected when the tests are collected, so a block added to any docs/*.md is
tested without touching this file. The mirror is built once per session the way a user gets it
(``rote-hf demo`` then the dry-run ``rote-hf publish``, which also assembles ``rote/results`` and
the leaderboard Space) in a temporary folder that looks like a checkout: the repository's
top-level entries are linked into it, so relative paths such as ``eval_suite/configs/...`` and the
hub ids ``rote/<repo>`` resolve there exactly as they do for a user in the repository root, and
files a block writes (``results/``) land in the temporary folder.

Each block runs on its own in a fresh interpreter (a reader copies one block, not a page), with
the test environment of conftest.py (offline, private HF home). A block whose lines start with
``>>>`` is a doctest: its printed outputs are checked too. The only way out is an explicit
``python no-run`` info string, for a block that cannot run offline; those are counted below and
may not grow silently.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, run_cli

DOC_FILES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
# a fence may be indented (inside a list item); its closing fence has the same indentation
FENCE = re.compile(r"^([ \t]*)```python([^\n]*)\n(.*?)^\1```[ \t]*$", re.S | re.M)
NO_RUN = "no-run"
MAX_NO_RUN = 2  # opt-outs allowed in all docs together; raising it needs a reason in review
BLOCK_TIMEOUT_S = 180


@dataclass(frozen=True)
class Block:
    """One fenced python block: its file (relative to the repo), first code line, info and code."""

    path: str
    line: int
    info: str
    code: str

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"


def doc_blocks(files: list[Path] = DOC_FILES, base: Path = REPO_ROOT) -> list[Block]:
    """Every ```python block of ``files``, in order (``line`` is 1-based, of the code's first line)."""
    blocks = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start(3)) + 1
            blocks.append(Block(str(path.relative_to(base)), line, m.group(2).strip(), textwrap.dedent(m.group(3))))
    return blocks


BLOCKS = doc_blocks()
RUNNABLE = [b for b in BLOCKS if NO_RUN not in b.info.split()]


@pytest.fixture(scope="session")
def user_root(tmp_path_factory) -> Path:
    """A temporary checkout-like folder holding a freshly built mirror ``rote/``."""
    root = tmp_path_factory.mktemp("docs-root")
    for entry in REPO_ROOT.iterdir():
        if not entry.name.startswith(".") and entry.name not in ("rote", "results"):
            (root / entry.name).symlink_to(entry)
    proc = run_cli("demo", "--root", str(root), cwd=root)
    assert proc.returncode == 0, f"rote-hf demo failed:\n{proc.stderr[-3000:]}"
    # `make demo` then trains the smoke sweeps into ./results; one real run of rote_smoke stands in
    # for them (seconds, not minutes), so that the results store and rote/results hold our rows
    train = ("from rote_hf.train import SweepConfig, expand, run_specs\n"
             "run_specs(expand(SweepConfig.from_yaml('eval_suite/configs/rote_smoke.yaml'))[:1], 'results', progress=False)\n")
    proc = subprocess.run([sys.executable, "-c", train], cwd=root, env=_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"the smoke run failed:\n{proc.stderr[-3000:]}"
    proc = run_cli("publish", "--root", str(root), "--results", str(root / "results"), "--quiet", cwd=root)
    assert proc.returncode == 0, f"rote-hf publish failed:\n{proc.stderr[-3000:]}"
    return root


def _env() -> dict[str, str]:
    """This environment with this checkout first on the path (the venv's install may point elsewhere)."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}


def run_block(block: Block, cwd: Path) -> subprocess.CompletedProcess:
    """Run one block in a fresh interpreter in ``cwd`` with this checkout first on the path."""
    if block.code.lstrip().startswith(">>>"):
        # a doctest block: run it through doctest so that the shown outputs are checked as well
        code = ("import doctest, sys\n"
                f"test = doctest.DocTestParser().get_doctest({block.code!r}, {{}}, {block.id!r}, {block.path!r}, {block.line - 1})\n"
                "runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)\n"
                "runner.run(test)\n"
                "sys.exit(1 if runner.failures else 0)\n")
    else:
        code = block.code
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=BLOCK_TIMEOUT_S)


def test_the_docs_have_python_blocks():
    paths = {b.path for b in BLOCKS}
    assert "README.md" in paths and len(paths) >= 5, paths
    assert len(BLOCKS) >= 15


def test_opt_outs_are_counted():
    skipped = [b.id for b in BLOCKS if b not in RUNNABLE]
    print(f"{len(BLOCKS)} python blocks, {len(skipped)} marked {NO_RUN}: {skipped}")
    assert len(skipped) <= MAX_NO_RUN, f"too many ```python {NO_RUN} blocks ({len(skipped)} > {MAX_NO_RUN}): {skipped}"
    assert not any(b.path == "README.md" for b in BLOCKS if b not in RUNNABLE), "every README block must run"


def test_extraction_finds_fences_exactly(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("text\n```python\nprint(1)\n```\n```bash\nls\n```\n\n```python no-run\nimport x\n```\n"
                   "- item:\n\n  ```python\n  if True:\n      print(2)\n  ```\n")
    assert doc_blocks([doc], tmp_path) == [Block("x.md", 3, "", "print(1)\n"), Block("x.md", 10, "no-run", "import x\n"),
                                           Block("x.md", 15, "", "if True:\n    print(2)\n")]


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.id for b in RUNNABLE])
def test_block_runs_as_written(block, user_root):
    proc = run_block(block, user_root)
    assert proc.returncode == 0, f"{block.id} failed (cwd {user_root}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
