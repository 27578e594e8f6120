"""The five evaluate modules, built into a local mirror and used offline like hub metrics."""

from __future__ import annotations

import doctest
import filecmp
import importlib.util
import io
import math
import os
import re
import sys

import evaluate
import pytest
import yaml
from rote_benchmark.metrics import normalized_damerau_levenshtein_distance as ref_dl

from rote_hf.hub.metric_repos import METRIC_REPOS, build_metric_repo, repo_files
from rote_hf.hub.sources import source_dir
from rote_hf.metrics import confabulation, dl_distances, exact_rollout, jw_distances
from rote_hf.metrics._keys import renamed_keys
from tests.helpers import run_cli

CARD_SECTIONS = (
    "## Metric Description",
    "## How to Use",
    "### Inputs",
    "### Output Values",
    "#### Values from Popular Papers",
    "### Examples",
    "## Limitations and Bias",
    "## Citation",
)


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    """``rote-hf build metrics --root ROOT`` in a fresh interpreter; returns ROOT."""
    root = tmp_path_factory.mktemp("mirror")
    proc = run_cli("build", "metrics", "--root", str(root), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert len([line for line in proc.stdout.splitlines() if "(module: files " in line]) == len(METRIC_REPOS)
    assert f"cd {root.resolve()}" in proc.stdout  # the lines to paste to use the mirror from anywhere
    return root


def _load(mirror, name, **kw):
    return evaluate.load(str(mirror / "rote" / name), **kw)


def test_build_copies_the_sources_and_generates_the_siblings(mirror):
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    for name in METRIC_REPOS:
        built = mirror / "rote" / name
        sources, generated = repo_files(name)
        assert sorted(p.name for p in built.iterdir()) == sorted([*(f.name for f in sources), *generated])
        for f in sources:  # copied verbatim from eval_suite/metrics
            assert (built / f.name).read_bytes() == f.read_bytes()
        for file_name, text in generated.items():  # generated from rote_hf.metrics: no rote_hf import left
            assert file_name.startswith("metric_") and "rote_hf." not in "".join(
                line for line in text.splitlines() if line.startswith(("import ", "from ")))
        assert "metric_checks.py" in generated
    assert sorted(repo_files("exact_rollout")[1]) == ["metric_checks.py", "metric_distances.py", "metric_keys.py",
                                                     "metric_rollout.py"]
    # rebuilding swaps the folder atomically and leaves no staging folders behind
    again = build_metric_repo(mirror, "dl_distance")
    assert again.path == mirror / "rote" / "dl_distance"
    assert not [p for p in (mirror / "rote").iterdir() if p.name.startswith(".")]
    with pytest.raises(ValueError, match="name must be one of"):
        build_metric_repo(mirror, "bleu")
    # without the sources the build says what is missing
    with pytest.raises(FileNotFoundError, match="metric module files not found"):
        build_metric_repo(mirror, "dl_distance", source=mirror / "nowhere")
    assert (mirror / "rote" / "dl_distance" / "dl_distance.py").is_file()  # old copy kept


def test_a_module_must_import_every_sibling_it_needs(tmp_path):
    import shutil

    src = tmp_path / "metrics"
    shutil.copytree(source_dir("metrics"), src)
    module = src / "exact_rollout" / "exact_rollout.py"
    module.write_text(module.read_text().replace("from .metric_distances import dl_distances\n", ""))
    with pytest.raises(ValueError, match=r"exact_rollout.py must import \['metric_distances'\] itself"):
        repo_files("exact_rollout", src)


def test_modules_compute_the_library_values(mirror):
    preds = ["ABCDABCD", "ABCDABDC", "BCDABCDA", ""]
    refs = ["ABCDABCD"] * 3 + ["AB"]
    dl = _load(mirror, "dl_distance").compute(predictions=preds, references=refs, return_per_row=True)
    assert dl["dl_distances"] == dl_distances(preds, refs).tolist() == [ref_dl(r, p) for p, r in zip(preds, refs)]
    jw = _load(mirror, "jw_distance").compute(predictions=preds, references=refs)
    assert jw == {"jw_distance": float(jw_distances(preds, refs).mean())}
    ro = _load(mirror, "exact_rollout").compute(predictions=preds, references=refs, return_curve=True)
    full = exact_rollout(preds, refs, return_curve=True)
    assert ro == renamed_keys("exact_rollout", {k: v for k, v in full.items() if k not in ("dl_distance", "jw_distance")})
    # token-id lists are accepted as well as strings
    ids = _load(mirror, "dl_distance").compute(predictions=[[1, 2, 3]], references=[[2, 1, 3]])
    assert ids == {"dl_distance": 1 / 3}


def test_add_batch_and_combine(mirror):
    dl = _load(mirror, "dl_distance", experiment_id="batches")
    dl.add_batch(predictions=["AB", "AB"], references=["BA", "AB"])
    dl.add_batch(predictions=["ABC"], references=["ABD"])
    dl.add(prediction="", reference="A")
    assert dl.compute() == {"dl_distance": (0.5 + 0 + 1 / 3 + 1) / 4}

    combined = evaluate.combine([str(mirror / "rote" / n) for n in ("dl_distance", "jw_distance", "exact_rollout")])
    out = combined.compute(predictions=["ABDC", "ABCD"], references=["ABCD", "ABCD"])
    # one key per quantity: exact_rollout leaves DL and JW to their own modules
    assert out == {"dl_distance": 0.125, "jw_distance": jw_distances(["ABDC", "ABCD"], ["ABCD", "ABCD"]).mean(),
                   "exact_rollout_rate": 0.5, "mean_first_error_step": 4.0, "mean_first_error_step_given_error": 3.0,
                   "cumulative_error": 0.25}
    # cogscale_score reports the name of its repo
    assert _load(mirror, "cogscale_score").name == "cogscale_score"


def test_confabulation_module(mirror):
    confab = _load(mirror, "confabulation")
    big = 3**90  # beyond int64: terms travel as decimal strings
    args = {
        "predictions": [[big, 1, 2], [1, 2, 3], None],
        "references": [[big, 1, 2], [1, 2, 4], [5, 5, 5]],
        "confidence": [5, 4, None],
        "abstained": [False, True, False],
        "recognized": [True, None, None],
        "status": ["ok", "ok", "schema_error"],
    }
    out = confab.compute(**args)
    assert out == pytest.approx(renamed_keys("confabulation", confabulation(**args)), nan_ok=True)
    assert out["answer_accuracy"] == 0.5 and out["confabulation_rate"] == 0.5 and out["n_failed_schema_error"] == 1.0
    confab.add_batch(**{k: v[:2] for k, v in args.items()})
    confab.add(**{("prediction" if k == "predictions" else "reference" if k == "references" else k): v[2] for k, v in args.items()})
    assert confab.compute()["n_rows"] == 3.0
    with pytest.raises(ValueError, match=r"confidence\[0\] must be in 1..5, got 9"):
        confab.compute(**{**args, "confidence": [9, 4, None]})


def test_cogscale_module(mirror):
    cog = _load(mirror, "cogscale_score")
    y = [[[1.0, 0.0], [0.0, 1.0], [-100.0, -100.0]], [[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]]]
    y_hat = [[[0.9, 0.1], [0.8, 0.2], [0.0, 0.0]], [[0.1, 0.9], [0.3, 0.7], [0.2, 0.8]]]
    out = cog.compute(predictions=y_hat, references=y, prediction_timesteps=[None, [0, 2]], category="classification", return_per_row=True)
    assert out == {"cogscale_score": 0.5, "scores": [0.5, 0.5]}
    with pytest.raises(ValueError, match="category must be given"):
        cog.compute(predictions=y_hat, references=y, prediction_timesteps=[[0], [0]])


def test_validation_messages(mirror):
    dl = _load(mirror, "dl_distance")
    with pytest.raises(ValueError, match=r"Mismatch in the number of predictions \(2\) and references \(1\)"):
        dl.compute(predictions=["A", "B"], references=["A"])
    with pytest.raises(ValueError, match="don't match the expected format"):
        dl.compute(predictions=[1.5], references=["A"])
    with pytest.raises(ValueError, match="must not be empty"):
        dl.compute(predictions=[], references=[])


def _examples(card: str) -> str:
    section = card.split("### Examples", 1)[1].split("\n## ", 1)[0]
    return "\n".join(re.findall(r"```python\n(.*?)```", section, flags=re.S))


@pytest.mark.parametrize("name", METRIC_REPOS)
def test_metric_card(mirror, name, monkeypatch):
    card = (mirror / "rote" / name / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(card.split("---\n")[1])
    assert front["sdk"] == "gradio" and front["app_file"] == "app.py" and "evaluate" in front["tags"]
    assert front["python_version"] == "3.11" and front["datasets"][0].startswith("rote/")
    info = _load(mirror, name).info
    assert info.homepage.startswith("https://github.com/") and info.license == "MIT" and info.codebase_urls
    assert "@" in info.citation and "year" in info.citation
    assert front["description"].strip()
    positions = [card.index(s) for s in CARD_SECTIONS]
    assert positions == sorted(positions)
    # The card's example runs verbatim from the mirror root and prints what the card says.
    monkeypatch.chdir(mirror)
    test = doctest.DocTestParser().get_doctest(_examples(card), {}, f"{name}/README.md", None, 0)
    assert len(test.examples) >= 3
    out = io.StringIO()
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test, out=out.write)
    assert result.failed == 0, out.getvalue()


def test_gradio_apps_answer(mirror, monkeypatch):
    results = {}
    for name in METRIC_REPOS:
        monkeypatch.syspath_prepend(str(mirror / "rote" / name))  # app.py imports its sibling files
        for shared in ("rote_pair", "serve"):
            sys.modules.pop(shared, None)
        path = mirror / "rote" / name / "app.py"
        spec = importlib.util.spec_from_file_location(f"rote_app_{name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # builds the Blocks, does not launch
        results[name] = module
    assert results["dl_distance"].score("ABBA\nABCD", "ABAB\nABCD") == {"dl_distance": 0.125}
    assert results["jw_distance"].score("marhta", "martha") == {"jw_distance": 0.03888888888888886}
    assert results["exact_rollout"].score("AB\nBA", "AB\nAB")["exact_rollout_rate"] == 0.5
    assert "Mismatch in the number of predictions (1) and references (2)" in results["exact_rollout"].score("AB", "AB\nAB")["error"]
    confab = results["confabulation"].score(results["confabulation"].EXAMPLE)
    assert confab["answer_accuracy"] == 0.5 and confab["n_failed"] == 1.0
    assert "rows must be a JSON list" in results["confabulation"].score('{"a": 1}')["error"]
    cog = results["cogscale_score"].score("[[[0.9, 0.1], [0.2, 0.8]]]", "[[[1, 0], [1, 0]]]", "[[0, 1]]", "classification", 0.5)
    assert cog == {"cogscale_score": 0.5}
    assert "category must be one of" in results["cogscale_score"].score("[[[1.0]]]", "[[[1.0]]]", "[[0]]", "bogus", 0.5)["error"]
    assert all(hasattr(m, "demo") for m in results.values())
    assert not math.isnan(confab["mean_confidence"])
    assert "gradio" in sys.modules


def test_docs_examples_run():
    from tests.helpers import REPO_ROOT

    text = (REPO_ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    code = "\n".join(re.findall(r"```python\n(.*?)```", text, flags=re.S))
    test = doctest.DocTestParser().get_doctest(code, {}, "docs/metrics.md", None, 0)
    assert len(test.examples) >= 8
    out = io.StringIO()
    result = doctest.DocTestRunner().run(test, out=out.write)
    assert result.failed == 0, out.getvalue()


@pytest.mark.parametrize("task", ["simple_copy", "continuous_postcasting"])
def test_cogscale_module_equals_installed_compute_score_on_a_real_split(mirror, task):
    import inspect

    import cogscale
    import numpy as np

    data = cogscale.build_task(task, "small", seed=0)
    category = data["category"]
    y, t = data["Y_test"][:40], data.get("T_test")
    y_hat = np.random.default_rng(11).normal(size=y.shape)
    if "prediction_timesteps" in inspect.signature(cogscale.compute_score).parameters:  # 0.1.x
        t = t[:40]
        expected = cogscale.compute_score(y.tolist(), y_hat.tolist(), t, category)
    else:  # 0.2.0: -100 masking
        expected = cogscale.compute_score(y.tolist(), y_hat.tolist(), category)
        t = [None] * len(y)
    cog = _load(mirror, "cogscale_score")
    out = cog.compute(predictions=y_hat.tolist(), references=y.tolist(), prediction_timesteps=t, category=category)
    assert out == {"cogscale_score": float(expected)}
