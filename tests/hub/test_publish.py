"""``rote-hf publish``: the dry run assembles every repo with valid cards for any org, the mirror
loads with datasets/evaluate, and bad input is refused in one line (the push itself:
tests/hub/test_push.py)."""

from __future__ import annotations

import shutil

import pytest

from rote_hf.hub.publish import HubRepo, validate_repo
from tests.helpers import run_cli
from tests.hub.conftest import EXPECTED, METRICS

def test_dry_run_assembles_every_repo_with_valid_cards(mirror):
    root, _, out = mirror
    lines = [line.split() for line in out.splitlines() if line.startswith("ok ")]
    assert {name.removeprefix("rote/"): kind for _, kind, name, _ in lines} == EXPECTED
    # upload order: datasets, then results, then the metric Spaces, then the leaderboard
    assert [name.removeprefix("rote/") for _, _, name, _ in lines] == [
        "cogscale", "oeis-mdl", "rote-seeds", "results", *METRICS, "leaderboard"]
    assert out.splitlines()[-1] == "dry run: 10 repos assembled and validated for rote; upload with --push"
    for name, kind in EXPECTED.items():
        card = validate_repo(HubRepo(name=name, repo_type=kind, path=root / "rote" / name))
        assert type(card).__name__ == ("SpaceCard" if kind == "space" else "DatasetCard")
    space = (root / "rote" / "leaderboard")
    assert sorted(p.name for p in space.iterdir()) == ["LICENSE.md", "README.md", "app.py", "llm_tab.py",
                                                       "requirements.txt", "rote_hf"]
    # the report says which checks ran offline and which need the Hub, and where the mirror is
    assert "checks run offline:" in out and "checks that need the Hub (run after --push):" in out
    assert "RepoCard.validate" in out and out.count("requirements ok:") == 6
    assert f"cd {root.resolve()}" in out


def test_mirror_loads_with_datasets_and_evaluate(mirror, monkeypatch):
    import evaluate
    import yaml
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
    # typed columns for Hub readers: headline metrics as float64, the timestamp as a timestamp
    assert str(ours.features["metric_test_score"].dtype) == "float64" and str(ours.features["timestamp_utc"].dtype) == "timestamp[s, tz=UTC]"
    shipped = ours.filter(lambda r: r["config_name"] == "cogscale_paper")
    import json

    assert shipped[0]["metric_test_score"] == json.loads(shipped[0]["metrics"])["test_score"]
    assert shipped[0]["timestamp_utc"].strftime("%Y-%m-%dT%H:%M:%SZ") == shipped[0]["timestamp"]
    assert paper.filter(lambda r: r["suite"] == "mdl")[0]["metric_accuracy"] is not None
    assert "| `metric_DL` | float64 |" in card and "| `timestamp_utc` | timestamp[s, UTC] |" in card
    meta = yaml.safe_load(card.split("---\n")[1])
    assert (meta["license"], meta["license_link"]) == ("other", "LICENSE.md")
    assert "## Config `paper`" in (root / "rote" / "results" / "LICENSE.md").read_text()
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


def test_bad_input_is_refused_in_one_line(mirror):
    root, results, _ = mirror
    refused = run_cli("publish", "--root", str(root), "--results", str(results), "--quiet")
    assert refused.returncode == 2
    err = refused.stderr.strip().splitlines()
    assert len(err) == 1 and "0 failed and 67 unverified row(s) of 67" in err[0] and "--include-failed" in err[0]
    for org in ("bad/org", "a--b", "-lead", "x" * 97, "sp ace"):
        bad = run_cli("publish", "--root", str(root), "--results", str(results), f"--org={org}")
        assert bad.returncode == 2 and bad.stderr.startswith("rote-hf: error: --org must be a hub user or organisation")
    missing = run_cli("publish", "--root", str(root), "--quiet")
    assert missing.returncode == 2 and "--results" in missing.stderr  # required: no default
    gone = run_cli("publish", "--root", str(root), "--results", str(root / "nope"), "--quiet", "--include-failed")
    assert gone.returncode == 2 and "--results must be a results store folder" in gone.stderr


def test_no_token_is_refused_before_assembling(mirror, tmp_path):
    root, results, _ = mirror
    proc = run_cli("publish", "--root", str(root), "--results", str(results), "--quiet", "--include-failed", "--push",
                   "--org", "acme-lab", env={"HF_TOKEN": "", "HF_HOME": str(tmp_path), "HF_TOKEN_PATH": str(tmp_path / "t")})
    assert proc.returncode == 1
    assert proc.stderr.strip() == ("rote-hf: error: no Hugging Face token: set HF_TOKEN or run `hf auth login`; "
                                   "nothing was pushed")
    assert "ok " not in proc.stdout  # refused before assembling anything


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


def test_a_second_org_gets_every_id(mirror, second_org, monkeypatch):
    """Built for acme-lab, no file of any repo names a repo of `rote`; the cards, the Space's YAML and
    the LLM tab's default sample name acme-lab's repos, and the cards' examples run from the root."""
    import re

    import yaml

    from tests.hub.conftest import SECOND_ORG

    root, _, _ = mirror
    assert [r.repo_id for r in second_org][:4] == [f"{SECOND_ORG}/{n}" for n in ("cogscale", "oeis-mdl", "rote-seeds", "results")]
    names = "|".join(re.escape(n) for n in EXPECTED)
    left = re.compile(rb"rote/(" + names.encode() + rb")\b")
    files = [p for repo in second_org for p in repo.path.rglob("*") if p.is_file()]
    assert len(files) > 60 and all(repo.path == root / SECOND_ORG / repo.name for repo in second_org)
    assert {str(p.relative_to(root)): m.group(0) for p in files for m in [left.search(p.read_bytes())] if m} == {}
    space = root / SECOND_ORG / "leaderboard"
    meta = yaml.safe_load((space / "README.md").read_text().split("---\n")[1])
    assert meta["datasets"] == [f"{SECOND_ORG}/results", f"{SECOND_ORG}/oeis-mdl"]
    assert f'DEFAULT_SAMPLE = "{SECOND_ORG}/oeis-mdl"' in (space / "llm_tab.py").read_text()
    jw = yaml.safe_load((root / SECOND_ORG / "jw_distance" / "README.md").read_text().split("---\n")[1])
    assert jw["datasets"] == [f"{SECOND_ORG}/rote-seeds"]
    assert f'evaluate.load("{SECOND_ORG}/jw_distance")' in (root / SECOND_ORG / "jw_distance" / "jw_distance.py").read_text()
    for repo in second_org:  # huggingface_hub's card classes accept every rendered card
        card = validate_repo(repo)
        assert type(card).__name__ == ("SpaceCard" if repo.repo_type == "space" else "DatasetCard")
    monkeypatch.chdir(root)
    results_card = (root / SECOND_ORG / "results" / "README.md").read_text()
    namespace: dict = {}
    exec(compile(_python_blocks(results_card.split("---\n", 2)[2])[0], "results card", "exec"), namespace)  # noqa: S102
    assert len(namespace["paper"]) == 1279 and f'load_dataset("{SECOND_ORG}/results", "ours"' in results_card
