"""benchmarks/hf_zoo_results.py: the hf_zoo comparison in docs/zoo.md is regenerated from the
shipped rows, and the page in the repository is what the shipped rows give (not stale)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from rote_hf.results.shipped import shipped_frame, shipped_provenance
from tests.helpers import REPO_ROOT

SCRIPT = REPO_ROOT / "benchmarks" / "hf_zoo_results.py"


@pytest.fixture(scope="module")
def report():
    spec = importlib.util.spec_from_file_location("hf_zoo_results", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def compared(report):
    return report.comparison(shipped_frame())


def test_every_model_is_ranked_on_the_same_runs(compared):
    scores, summary, partial = compared
    # the paper's seven (our runs) and the finished hf: types, each on all 14 tasks
    assert (summary["tasks"] == 14).all()
    assert set(summary.loc[summary["group"] == "paper's seven", "model"]) == {
        "ESN", "GRU", "LSTM", "Mamba", "Transformer", "TransformerEncDec", "xLSTM"}
    finished = {m for m, n in shipped_frame("hf_zoo").groupby("model").size().items() if n == 210}
    assert len(summary) == 7 + len(finished) and set(partial) == {
        m for m in shipped_frame("hf_zoo")["model"].unique() if m not in finished}
    assert (scores["seeds"] <= 3).all()  # seeds 0-2 for every model, ours included
    for task, g in scores.groupby("task"):
        assert g.loc[g["rank"] == 1, "mean"].min() == g["mean"].min() and g["top"].any()


def test_the_page_in_the_repository_is_current(report, compared):
    scores, summary, partial = compared
    page = (REPO_ROOT / "docs" / "zoo.md").read_text()
    current = page.split(report.BEGIN, 1)[1].split(report.END, 1)[0]
    fresh = report.markdown(scores, summary, partial, shipped_provenance("hf_zoo"), "hf_zoo.png")
    assert current == "\n" + fresh, "docs/zoo.md is stale: run python benchmarks/hf_zoo_results.py"


def test_the_script_rewrites_only_its_section(tmp_path, report):
    doc = tmp_path / "page.md"
    doc.write_text(f"# by hand\n\n{report.BEGIN}\nstale\n{report.END}\n\nfooter\n")
    png = tmp_path / "plot.png"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--doc", str(doc), "--plot", str(png)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    page = doc.read_text()
    assert page.startswith(f"# by hand\n\n{report.BEGIN}\n") and page.endswith(f"{report.END}\n\nfooter\n")
    assert "stale" not in page and "](plot.png)" in page and "| model | group | mean rank" in page
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
