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
``>>>`` is a doctest: its printed outputs are checked too. In the other blocks, a ``print(...)``
statement followed by a comment (``print(x)   # 30 5``) is checked against the line it prints
when that comment reads as the value: ``...`` stands for any text, ``<name>`` for one word, and a
trailing ``(explanation in words)`` is not part of the value (:func:`expected_pattern`). A print
whose output spans several lines carries a description, not a value, and is not compared
(:data:`UNCOMPARED` lists those, so that the list cannot grow silently). The only way out is an
explicit ``python no-run`` info string, for a block that cannot run offline; those are counted
below and may not grow silently.

The session fixture builds the mirror outside the per-test timeout (``timeout_func_only`` in
pyproject.toml): the build is bounded by its own subprocess timeouts, each block by its own.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import subprocess
import sys
import textwrap
import tokenize
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
#: Commented prints whose output spans several lines (a description in words, not a value), as
#: "<file>: # <comment>"; the test fails when one is added or one disappears.
UNCOMPARED = {"docs/train.md: # per model: DL, JW, exact rate, cost ..."}
PRINT_HOOK = "__docs_print"


@dataclass(frozen=True)
class Expected:
    """A ``print(...)`` statement of a block with the comment that follows it."""

    line: int  # 1-based, in the block's code
    comment: str


def expected_pattern(comment: str) -> re.Pattern:
    """The printed line a comment announces, as a regex: ``...`` is any text, ``<name>`` one
    word, and a trailing ``(explanation in words)`` is dropped (``cuda:1 (two processes per GPU)``)."""
    text = comment.strip()
    note = re.fullmatch(r"(.*\S) \(([^()]*)\)", text)
    if note and re.search(r"[A-Za-z]{2,} [A-Za-z]", note.group(2)):
        text = note.group(1)
    parts = re.split(r"(\.\.\.|<[A-Za-z0-9_]+>)", text)
    return re.compile("".join(".*" if p == "..." else r"\S+" if p.startswith("<") else re.escape(p) for p in parts))


def instrument_prints(code: str) -> tuple[str, dict[int, Expected]]:
    """``code`` with every commented ``print(...)`` statement calling :data:`PRINT_HOOK` (which
    prints as ``print`` does and records the text), and those statements by their index."""
    comments = {tok.start[0]: tok.string.lstrip("#").strip()
                for tok in tokenize.generate_tokens(io.StringIO(code).readline) if tok.type == tokenize.COMMENT}
    prints = sorted((node for node in ast.walk(ast.parse(code)) if _is_print(node) and comments.get(node.end_lineno)),
                    key=lambda node: (node.lineno, node.col_offset))
    found = {index: Expected(node.lineno, comments[node.end_lineno]) for index, node in enumerate(prints)}
    lines = code.splitlines(keepends=True)
    for index, node in reversed(list(enumerate(prints))):  # from the end: earlier offsets stay valid
        raw = lines[node.lineno - 1].encode("utf-8")  # col_offset counts UTF-8 bytes
        head, tail = raw[:node.col_offset], raw[node.col_offset + len(b"print("):]
        lines[node.lineno - 1] = (head + f"{PRINT_HOOK}({index}, ".encode() + tail).decode("utf-8")
    return "".join(lines), found


def _is_print(node: ast.AST) -> bool:
    """Whether ``node`` is a statement that is a plain ``print(...)`` call."""
    call = node.value if isinstance(node, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print"


# prints as print() does, and appends [index, printed text] to the file $ROTE_DOCS_PRINTS
_HOOK_SOURCE = f"""
def {PRINT_HOOK}(index, *args, **kwargs):
    import io, json, os
    buffer = io.StringIO()
    print(*args, **{{**kwargs, "file": buffer}})
    print(buffer.getvalue(), end="", file=kwargs.get("file"), flush=kwargs.get("flush", False))
    with open(os.environ["ROTE_DOCS_PRINTS"], "a", encoding="utf-8") as record:
        record.write(json.dumps([index, buffer.getvalue()]) + "\\n")
"""


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
    proc = run_cli("publish", "--root", str(root), "--results", str(root / "results"), "--quiet", "--include-failed",
                   cwd=root)  # smoke rows are unverified: a local mirror may hold them, a push of them is explicit
    assert proc.returncode == 0, f"rote-hf publish failed:\n{proc.stderr[-3000:]}"
    return root


def _env() -> dict[str, str]:
    """This environment with this checkout first on the path (the venv's install may point elsewhere)."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}


def run_block(block: Block, cwd: Path, prints: Path | None = None) -> subprocess.CompletedProcess:
    """Run one block in a fresh interpreter in ``cwd`` with this checkout first on the path;
    with ``prints``, its commented prints record what they print there (:func:`instrument_prints`)."""
    env = _env()
    if block.code.lstrip().startswith(">>>"):
        # a doctest block: run it through doctest so that the shown outputs are checked as well
        code = ("import doctest, sys\n"
                f"test = doctest.DocTestParser().get_doctest({block.code!r}, {{}}, {block.id!r}, {block.path!r}, {block.line - 1})\n"
                "runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)\n"
                "runner.run(test)\n"
                "sys.exit(1 if runner.failures else 0)\n")
    elif prints is not None and instrument_prints(block.code)[1]:
        # run in the script's own globals (as the plain block would be), compiled under the block's
        # id so that a traceback names the block's own line numbers
        code = _HOOK_SOURCE + f"exec(compile({instrument_prints(block.code)[0]!r}, {block.id!r}, 'exec'))\n"
        env["ROTE_DOCS_PRINTS"] = str(prints)
    else:
        code = block.code
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=BLOCK_TIMEOUT_S)


def check_prints(block: Block, prints: Path) -> None:
    """Each commented print of ``block`` ran and printed, each time, the line its comment
    announces; a print of several lines must be one of :data:`UNCOMPARED`."""
    expected = instrument_prints(block.code)[1]
    records = [json.loads(line) for line in prints.read_text(encoding="utf-8").splitlines()] if prints.exists() else []
    printed: dict[int, list[str]] = {}
    for index, text in records:
        printed.setdefault(index, []).append(text)
    for index, want in expected.items():
        where = f"{block.id}+{want.line - 1}"
        key = f"{block.path}: # {want.comment}"
        assert index in printed, f"{where}: the print commented '# {want.comment}' never ran"
        for text in printed[index]:
            if text.count("\n") > 1:
                assert key in UNCOMPARED, f"{where} prints {text.count(chr(10))} lines: not a value to compare " \
                                            f"with '# {want.comment}'; add it to UNCOMPARED if it is a description"
                continue
            assert key not in UNCOMPARED, f"{where} prints one line now: remove {key!r} from UNCOMPARED"
            assert expected_pattern(want.comment).fullmatch(text.rstrip("\n")), \
                f"{where} printed {text.rstrip()!r}, its comment says '# {want.comment}'"


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


def test_expected_comments_read_as_values():
    for comment, line in (("{'dl_distance': 0.25}", "{'dl_distance': 0.25}"), ("30 5", "30 5"),
                          ("(100, 50, 4) classification", "(100, 50, 4) classification"),
                          ("cuda:1 (two processes per GPU on 8 GPUs)", "cuda:1"),
                          ("8 rote-gru-n2-c10-<hash16>", "8 rote-gru-n2-c10-0123456789abcdef"),
                          ("0.4 15 results/llm_logs/...", "0.4 15 results/llm_logs/x.jsonl"),
                          ("{'groups': ..., 'tested': ...}", "{'groups': 3, 'tested': 2}")):
        assert expected_pattern(comment).fullmatch(line), (comment, line)
    for comment, line in (("30 5", "30 6"), ("(1, 2)", "1, 2"), ("8 rote-<hash16>", "8 rote-a b")):
        assert not expected_pattern(comment).fullmatch(line), (comment, line)


def test_commented_prints_are_found_and_instrumented():
    code, found = instrument_prints("x = 1\nprint(x)   # 1\nprint(x)\nif x:\n    print(x, x)  # 1 1\n# print(2)  # 2\n"
                                    "print('é'); print(x)  # 1\n")
    assert found == {0: Expected(2, "1"), 1: Expected(5, "1 1"), 2: Expected(7, "1"), 3: Expected(7, "1")}
    assert code.splitlines()[1] == f"{PRINT_HOOK}(0, x)   # 1" and code.splitlines()[4] == f"    {PRINT_HOOK}(1, x, x)  # 1 1"
    assert code.splitlines()[6] == f"{PRINT_HOOK}(2, 'é'); {PRINT_HOOK}(3, x)  # 1"
    scripts = [b for b in RUNNABLE if not b.code.lstrip().startswith(">>>")]
    commented = {f"{b.path}: # {e.comment}" for b in scripts for e in instrument_prints(b.code)[1].values()}
    assert UNCOMPARED <= commented, UNCOMPARED - commented  # a print went away: update UNCOMPARED


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.id for b in RUNNABLE])
def test_block_runs_as_written(block, user_root, tmp_path):
    prints = tmp_path / "prints.jsonl"
    proc = run_block(block, user_root, prints)
    assert proc.returncode == 0, f"{block.id} failed (cwd {user_root}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    if not block.code.lstrip().startswith(">>>"):
        check_prints(block, prints)
