"""``rote-hf publish --push`` against a recording fake of ``HfApi`` (tests/hub/fake_hub.py, the one
fake): access is checked before anything is uploaded, repos go up in dependency order, private by
default, on a branch or as pull requests, tagged, with provenance and delete patterns; a failure
says what is pushed and a rerun resumes, skipping what the Hub already holds."""

from __future__ import annotations

import pytest

from rote_hf.hub.push import PushError, PushOptions, check_access, push
from tests.hub.conftest import METRICS, SECOND_ORG
from tests.hub.fake_hub import FakeHub

ORDER = [f"{SECOND_ORG}/{n}" for n in ("cogscale", "oeis-mdl", "rote-seeds", "results", *METRICS, "leaderboard")]


def _ops(hub: FakeHub, op: str) -> list[tuple]:
    return [c for c in hub.calls if c[0] == op]


def test_push_order_visibility_tag_provenance_and_variables(second_org):
    hub = FakeHub()
    lines: list[str] = []
    report = push(second_org, api=hub.api(), description="Built by rote-hf test", say=lines.append)
    assert report.pushed == ORDER and report.unchanged == [] and hub.calls[0] == ("whoami",)
    assert [c[1] for c in _ops(hub, "upload_folder")] == ORDER
    created = {c[1]: c[2] for c in _ops(hub, "create_repo")}
    assert all(kw["private"] is True for kw in created.values())  # private unless --public
    assert created[f"{SECOND_ORG}/leaderboard"]["space_sdk"] == "gradio" and created[f"{SECOND_ORG}/results"]["space_sdk"] is None
    uploads = {c[1]: c[2] for c in _ops(hub, "upload_folder")}
    assert uploads[f"{SECOND_ORG}/results"]["delete_patterns"] == ["data/**", "*.md"]
    assert uploads[f"{SECOND_ORG}/leaderboard"]["delete_patterns"] == ["*.py", "rote_hf/**", "*.md"]
    assert uploads[f"{SECOND_ORG}/dl_distance"]["commit_description"] == "Built by rote-hf test"
    assert all(kw["revision"] is None and not kw["create_pr"] for kw in uploads.values())
    from rote_hf import __version__

    assert {c[1] for c in _ops(hub, "create_tag")} == set(ORDER) and {c[2] for c in _ops(hub, "create_tag")} == {f"v{__version__}"}
    # the leaderboard's variables come last, after every repo they name is up
    variables = _ops(hub, "add_space_variable")
    assert hub.calls.index(variables[0]) > hub.calls.index(_ops(hub, "upload_folder")[-1])
    assert hub.repos[f"{SECOND_ORG}/leaderboard"]["variables"] == {
        "ROTE_RESULTS_REPO": f"{SECOND_ORG}/results", "ROTE_LLM_SAMPLE": f"{SECOND_ORG}/oeis-mdl"}
    assert lines[0] == f"pushed     {SECOND_ORG}/cogscale"
    # a rerun finds every repo unchanged (hashes of the Hub's files) and uploads nothing
    hub.calls.clear()
    again = push(second_org, api=hub.api(), description="x", say=lambda _: None)
    assert again.pushed == [] and again.unchanged == ORDER and _ops(hub, "upload_folder") == []


def test_stale_files_are_deleted_and_changed_repos_pushed_again(second_org, tmp_path):
    import shutil

    from rote_hf.hub.publish import HubRepo

    hub = FakeHub()
    push(second_org, api=hub.api(), say=lambda _: None)
    results = next(r for r in second_org if r.name == "results")
    files = hub.repos[results.repo_id]["branches"]["main"]
    files["data/old/train-00000-of-00001.parquet"] = b"stale"
    files["NOTES.txt"] = b"kept: no delete pattern covers it"
    hub.calls.clear()
    report = push(second_org, api=hub.api(), say=lambda _: None)
    assert report.pushed == [results.repo_id]  # only the repo with a stale data file
    assert "data/old/train-00000-of-00001.parquet" not in files and "NOTES.txt" in files
    # a changed file (the card) is found by its hash
    copy = tmp_path / SECOND_ORG / "results"
    shutil.copytree(results.path, copy)
    (copy / "README.md").write_text((copy / "README.md").read_text() + "\nOne more line.\n")
    changed = [HubRepo(r.name, r.repo_type, copy, r.org) if r is results else r for r in second_org]
    assert push(changed, api=hub.api(), say=lambda _: None).pushed == [results.repo_id]


def test_a_failure_midway_says_what_is_pushed_and_a_rerun_resumes(second_org):
    hub = FakeHub(fail=("upload_folder", f"{SECOND_ORG}/exact_rollout"))
    with pytest.raises(PushError) as err:
        push(second_org, api=hub.api(), say=lambda _: None)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"push of space {SECOND_ORG}/exact_rollout failed: HfHubHTTPError")
    assert f"already on the Hub: {', '.join(ORDER[:6])} (6 of 10)" in message and "rerun the same command to resume" in message
    assert f"{SECOND_ORG}/leaderboard" not in hub.repos
    hub.calls.clear()
    lines: list[str] = []
    report = push(second_org, api=hub.api(), say=lines.append)
    assert report.unchanged == ORDER[:6] and report.pushed == ORDER[6:]
    assert [c[1] for c in _ops(hub, "upload_folder")] == ORDER[6:]


def test_branch_and_pull_requests(second_org):
    hub = FakeHub()
    push(second_org, api=hub.api(), options=PushOptions(private=False, revision="release-next"), say=lambda _: None)
    assert all(c[2]["private"] is False for c in _ops(hub, "create_repo"))
    assert {c[2] for c in _ops(hub, "create_branch")} == {"release-next"}
    assert all(c[2]["revision"] == "release-next" for c in _ops(hub, "upload_folder"))
    assert all(c[3] == "release-next" for c in _ops(hub, "create_tag"))
    assert hub.repos[f"{SECOND_ORG}/cogscale"]["branches"]["main"] == {}  # main untouched
    prs = FakeHub(orgs={SECOND_ORG: "contributor"})  # a contributor may open pull requests
    report = push(second_org, api=prs.api(), options=PushOptions(create_pr=True), say=lambda _: None)
    assert sorted(report.pull_requests) == sorted(ORDER) and _ops(prs, "create_tag") == []
    assert all(c[2]["create_pr"] is True for c in _ops(prs, "upload_folder"))
    with pytest.raises(ValueError, match="--revision must be a branch name"):
        PushOptions(revision="../main")


@pytest.mark.parametrize("hub, message", [
    (FakeHub(token_role="read"), "the token of 'alice' is read-only"),
    (FakeHub(orgs={SECOND_ORG: "read"}), "'alice' has the role 'read' in 'acme-lab'; pushing needs write or admin"),
    (FakeHub(orgs={SECOND_ORG: "contributor"}), "(contributor: with --create-pr)"),
    (FakeHub(orgs={}), "'alice' is not a member of 'acme-lab'"),
    (FakeHub(orgs={}, existing_orgs=()), "--org 'acme-lab' does not exist on the Hub"),
])
def test_no_write_access_pushes_nothing(second_org, hub, message):
    with pytest.raises(PushError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        push(second_org, api=hub.api(), say=lambda _: None)
    assert "\n" not in str(err.value) and str(err.value).endswith("nothing was pushed")
    assert {c[0] for c in hub.calls} <= {"whoami", "org"} and hub.repos == {}


def test_access_to_ones_own_account_and_fine_grained_tokens():
    assert check_access(FakeHub().api(), "alice") == "alice"
    hub = FakeHub(token_role="fineGrained")
    with pytest.raises(PushError, match="no 'repo.write' permission on 'acme-lab'"):
        check_access(hub.api(), SECOND_ORG)


def test_the_cli_pushes_what_the_dry_run_built(mirror, second_org, monkeypatch, capsys):
    import huggingface_hub

    from rote_hf.cli import main

    root, results, _ = mirror
    hub = FakeHub()
    monkeypatch.setattr(huggingface_hub, "HfApi", lambda token=None: hub.api(token))
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    args = ["publish", "--root", str(root), "--results", str(results), "--quiet", "--include-failed",
            "--org", SECOND_ORG, "--push"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "hf_test_token" not in out and out.splitlines()[-1].startswith("10 pushed, 0 unchanged; tagged v")
    description = _ops(hub, "upload_folder")[0][2]["commit_description"]
    assert description.startswith("Built by rote-hf ") and f"space {SECOND_ORG}/leaderboard: " in description
    assert f"results store: {results} (failed and unverified rows included)" in description
    hub.fail = ("add_space_variable", f"{SECOND_ORG}/leaderboard")
    hub.calls.clear()
    assert main(args) == 1  # everything unchanged; the variable fails: one line, then a rerun resumes
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "already on the Hub:" in err[0] and "(9 of 10)" in err[0]
    assert main(args) == 0 and capsys.readouterr().out.splitlines()[-1].startswith("0 pushed, 10 unchanged")
