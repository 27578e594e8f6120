"""``rote-hf publish``: the dry run assembles every repo with valid cards, the mirror loads with
datasets/evaluate, offline push fails with one line, and a (mocked) push uploads every folder."""

from __future__ import annotations

import shutil

import pytest

from rote_hf.hub.publish import HubRepo, validate_repo
from rote_hf.hub.targets import build
from tests.helpers import run_cli
from tests.space.rows import make_store

METRICS = ("dl_distance", "jw_distance", "exact_rollout", "confabulation", "cogscale_score")
EXPECTED = {"cogscale": "dataset", "rote-seeds": "dataset", "oeis-mdl": "dataset", "leaderboard": "space", "results": "dataset",
            **{m: "space" for m in METRICS}}


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    """A dry-run publish over a small mirror (CogScale pre-built with one config: reused)."""
    base = tmp_path_factory.mktemp("publish")
    root, results = base / "mirror", base / "results"
    make_store(results)
    build("cogscale", root, progress=False, config="simple_copy-small")
    proc = run_cli("publish", "--root", str(root), "--results", str(results), "--quiet")
    assert proc.returncode == 0, proc.stderr
    return root, results, proc.stdout


def test_dry_run_assembles_every_repo_with_valid_cards(mirror):
    root, _, out = mirror
    lines = [line.split() for line in out.splitlines() if line.startswith("ok ")]
    assert {name.removeprefix("rote/"): kind for _, kind, name, _ in lines} == EXPECTED
    assert out.splitlines()[-1] == "dry run: 10 repos assembled and validated; upload with --push ORG"
    for name, kind in EXPECTED.items():
        card = validate_repo(HubRepo(name=name, repo_type=kind, path=root / "rote" / name))
        assert type(card).__name__ == ("SpaceCard" if kind == "space" else "DatasetCard")
    space = (root / "rote" / "leaderboard")
    assert sorted(p.name for p in space.iterdir()) == ["README.md", "app.py", "llm_tab.py", "requirements.txt", "rote_hf"]
    # the report says which checks ran offline and which need the Hub, and where the mirror is
    assert "checks run offline:" in out and "checks that need the Hub (run after --push):" in out
    assert "RepoCard.validate" in out and out.count("requirements ok:") == 6
    assert f"cd {root.resolve()}" in out


def test_mirror_loads_with_datasets_and_evaluate(mirror, monkeypatch):
    import evaluate
    from datasets import load_dataset

    root, _, _ = mirror
    monkeypatch.chdir(root)
    ours = load_dataset("rote/results", "ours", split="train")
    paper = load_dataset("rote/results", "paper", split="train")
    from rote_hf.results.shipped import shipped_frame

    assert (len(ours), len(paper)) == (67 + len(shipped_frame()), 1279)  # the store's rows + our shipped rows
    card = (root / "rote" / "results" / "README.md").read_text()
    assert 'load_dataset("rote/results", "ours", split="train")' in card and "Copyright (c) 2025 Yannis Bendi-Ouis" in card
    assert set(paper["source"]) == {"paper"} and "submitted" not in "".join(ours["run_id"])
    seeds = load_dataset("rote/rote-seeds", "paper", split="train")
    assert len(seeds) == 44
    copy = load_dataset("rote/cogscale", "simple_copy-small")
    assert {s: len(d) for s, d in copy.items()} == {"train": 100, "validation": 20, "test": 100}
    dl = evaluate.load("rote/dl_distance")
    assert dl.compute(predictions=["ABBA"], references=["ABAB"]) == {"dl_distance": 0.25}


def test_invalid_cards_are_reported(mirror, tmp_path):
    root, _, _ = mirror
    broken = tmp_path / "leaderboard"
    shutil.copytree(root / "rote" / "leaderboard", broken)
    (broken / "app.py").unlink()
    with pytest.raises(ValueError, match="rote/leaderboard: app_file 'app.py' is not in the repo"):
        validate_repo(HubRepo(name="leaderboard", repo_type="space", path=broken))
    data = tmp_path / "results"
    shutil.copytree(root / "rote" / "results", data)
    shutil.rmtree(data / "data" / "paper")
    with pytest.raises(ValueError, match="rote/results: config 'paper' data file .* matches no file"):
        validate_repo(HubRepo(name="results", repo_type="dataset", path=data))
    old = tmp_path / "old_space"
    shutil.copytree(root / "rote" / "leaderboard", old)
    card = (old / "README.md").read_text()
    (old / "README.md").write_text(card.replace('python_version: "3.11"\n', ""))
    with pytest.raises(ValueError, match=r"needs python_version >= 3.11 \(the Hub defaults to 3.10\)"):
        validate_repo(HubRepo(name="leaderboard", repo_type="space", path=old))
    (old / "README.md").write_text(card.replace("sdk_version: 6.31.0", "sdk_version: 5.0.0"))
    with pytest.raises(ValueError, match="sdk_version must be the installed gradio"):
        validate_repo(HubRepo(name="leaderboard", repo_type="space", path=old))


def test_offline_push_fails_with_one_clear_line(mirror):
    root, results, _ = mirror
    proc = run_cli("publish", "--root", str(root), "--results", str(results), "--quiet", "--push", "my-org")
    assert proc.returncode == 1
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rote-hf: error: push of ") and "my-org/" in err[0]
    assert "OfflineModeIsEnabled" in err[0] and "Traceback" not in proc.stderr
    bad = run_cli("publish", "--root", str(root), "--results", str(results), "--quiet", "--push", "bad/org")
    assert bad.returncode == 2 and "org must be a hub user or organisation name" in bad.stderr


def test_push_uploads_every_folder(mirror, monkeypatch, capsys):
    """Hub uploads are the one thing mocked (no hub is reachable from tests)."""
    from huggingface_hub import HfApi

    from rote_hf.cli import main

    calls = []
    monkeypatch.setattr(HfApi, "create_repo", lambda self, repo_id, **kw: calls.append(("create", repo_id, kw)))
    monkeypatch.setattr(HfApi, "upload_folder", lambda self, **kw: calls.append(("upload", kw["repo_id"], kw)))
    monkeypatch.setattr(HfApi, "add_space_variable", lambda self, repo_id, key, value, **kw:
                        calls.append(("variable", repo_id, {key: value})))
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    root, results, _ = mirror
    assert main(["publish", "--root", str(root), "--results", str(results), "--quiet", "--push", "my-org"]) == 0
    uploads = {repo_id: kw for op, repo_id, kw in calls if op == "upload"}
    assert {rid.split("/")[1]: kw["repo_type"] for rid, kw in uploads.items()} == EXPECTED
    assert all(kw["folder_path"] == str(root / "rote" / rid.split("/")[1]) for rid, kw in uploads.items())
    created = {rid: kw for op, rid, kw in calls if op == "create"}
    assert created["my-org/leaderboard"]["space_sdk"] == "gradio" and created["my-org/results"]["space_sdk"] is None
    assert ("variable", "my-org/leaderboard", {"ROTE_RESULTS_REPO": "my-org/results"}) in calls
    out = capsys.readouterr().out
    assert out.count("pushed  my-org/") == len(EXPECTED)
    # a Space whose requirements cannot install is refused before anything is uploaded
    calls.clear()
    req = root / "rote" / "jw_distance" / "requirements.txt"
    good = req.read_text()
    req.write_text(good + "rote-hf>=0.1\n")
    try:
        assert main(["publish", "--root", str(root), "--results", str(results), "--quiet", "--push", "my-org"]) == 2
    finally:
        req.write_text(good)
    assert calls == []
    assert "rote/jw_distance: requirements.txt cannot be satisfied" in capsys.readouterr().err


def _python_blocks(text: str) -> list[str]:
    import re

    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_every_card_config_loads_and_every_example_runs(mirror, monkeypatch):
    """Each dataset card's YAML configs load; each card's Python examples run from the mirror root
    (doctest-style ``>>>`` examples of the metric cards: tests/metrics and tests/hub/test_self_contained)."""
    import yaml
    from datasets import load_dataset

    root, _, _ = mirror
    monkeypatch.chdir(root)
    ran = {}
    for name, kind in EXPECTED.items():
        card = (root / "rote" / name / "README.md").read_text(encoding="utf-8")
        meta = yaml.safe_load(card.split("---\n")[1])
        if kind == "dataset":
            for cfg in meta["configs"]:
                ds = load_dataset(f"rote/{name}", cfg["config_name"])
                assert sum(len(split) for split in ds.values()) > 0, (name, cfg["config_name"])
            assert meta["size_categories"] and meta["source_datasets"]
        blocks = [b for b in _python_blocks(card.split("---\n", 2)[2]) if ">>>" not in b]
        namespace: dict = {}
        for block in blocks:
            exec(compile(block, f"rote/{name}/README.md", "exec"), namespace)  # noqa: S102 -- our own card
        ran[name] = len(blocks)
    assert ran["rote-seeds"] == 2 and ran["results"] == ran["oeis-mdl"] == ran["cogscale"] == 1
    assert all(ran[m] == 1 for m in METRICS)
