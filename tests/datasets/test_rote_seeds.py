import hashlib

import pytest
from datasets import get_dataset_config_names, load_dataset

from rote_hf.datasets import rote_seeds
from rote_hf.mirror.repo import repo_dir, write_dataset_repo
from rote_hf.symbolic import make_windows, paper_seed


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    root = tmp_path_factory.mktemp("mirror")
    built = rote_seeds.build(root, progress=False)
    assert built.path == root / "rote" / "rote-seeds"
    return root


def _digests(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_load_dataset_with_the_hub_id_from_the_mirror_root(mirror, monkeypatch):
    monkeypatch.chdir(mirror)
    assert sorted(get_dataset_config_names("rote/rote-seeds")) == ["grid", "paper", "windows"]
    paper = load_dataset("rote/rote-seeds", "paper")["train"]
    assert paper.num_rows == 44
    assert sorted(set(paper["track"])) == ["main", "matched_size"]
    row = paper[0]
    assert row["name"] == "main-n2-c10-s0" and row["seed"] == "BAABABABBBABBBBAAB"
    assert row["r_star"] == 6 and row["alpha_100"] == 0.0 and row["entropy_nats"][-1] == 0.0
    assert max(paper["r_star"]) == 18 and min(paper["r_star"]) == 2
    assert load_dataset("rote/rote-seeds")["train"].num_rows == 44  # paper is the default config


def test_grid_keeps_only_exact_complexities(mirror, monkeypatch):
    monkeypatch.chdir(mirror)
    grid = load_dataset("rote/rote-seeds", "grid")["train"]
    assert set(grid["n_symbols"]) == {2, 4, 6, 8} and set(grid["complexity"]) == {10, 30, 50, 70, 90}
    from rote_hf.symbolic import complexity

    assert all(complexity(s) == c for s, c in zip(grid["seed"], grid["complexity"]))


def test_windows_expand_to_the_protocol_arrays(mirror, monkeypatch):
    monkeypatch.chdir(mirror)
    windows = load_dataset("rote/rote-seeds", "windows")
    assert [windows[s][0]["num_windows"] for s in ("train", "validation", "test")] == [2640, 330, 330]
    row = windows["validation"][5]
    w = make_windows(paper_seed(row["name"]))
    X, y = w.arrays("validation")
    pairs = list(rote_seeds.iter_windows(row))
    assert len(pairs) == 330
    for j in (0, 100, 329):
        context, nxt = pairs[j]
        assert context == "".join(w.alphabet[i] for i in X[j]) and nxt == w.alphabet[y[j]]
    assert row["context"] == w.context and row["target"] == w.target


def test_two_builds_are_byte_identical(mirror, tmp_path):
    rote_seeds.build(tmp_path, progress=False)
    first = _digests(repo_dir(mirror, "rote-seeds"))
    assert first == _digests(repo_dir(tmp_path, "rote-seeds"))
    assert "data/paper/train-00000-of-00001.parquet" in first


def test_card_documents_every_column(mirror):
    card = (repo_dir(mirror, "rote-seeds") / "README.md").read_text()
    for column in ("r_star", "alpha_100", "entropy_nats", "first_window", "num_windows", "context", "target", "lzw_count"):
        assert f"`{column}`" in card
    assert "license: mit" in card and "rote-hf build rote-seeds" in card
    # the citation the ROTE authors ask for, and the MIT notice of the reference the seeds match
    assert "@inproceedings{cahuantzi2023comparison," in card and "Cahuantzi, Roberto and Chen, Xinye and G" in card
    assert "year      = {2023}" in card and "doi       = {10.1007/978-3-031-37963-5_53}" in card
    assert "Copyright (c) 2021 Numerical Linear Algebra Group, The University of Manchester" in card
    assert "size_categories:\n- n<1K" in card and "source_datasets:\n- original" in card


def test_failed_write_keeps_the_previous_repo(tmp_path):
    from datasets import Dataset

    good = {"a": {"train": Dataset.from_list([{"x": 1}])}}
    write_dataset_repo(tmp_path, "demo", good, "# demo")
    before = _digests(repo_dir(tmp_path, "demo"))

    class Broken:
        features = None
        data = Dataset.from_list([{"x": 1}]).data  # its Arrow size picks the shard count

        def to_parquet(self, path):
            raise OSError("disk full")

        def __len__(self):
            return 1

    with pytest.raises(OSError, match="disk full"):
        write_dataset_repo(tmp_path, "demo", {"a": {"train": Broken()}}, "# demo")
    assert _digests(repo_dir(tmp_path, "demo")) == before
    assert [p.name for p in (tmp_path / "rote").iterdir()] == ["demo"]  # no staging folder left


@pytest.mark.parametrize("repo", ["", "a/b", ".hidden"])
def test_repo_names_are_validated(tmp_path, repo):
    with pytest.raises(ValueError, match="repo must be a plain repo name"):
        repo_dir(tmp_path, repo)


def test_built_repo_summary_is_one_short_line(tmp_path):
    from rote_hf.mirror.repo import BuiltRepo

    few = BuiltRepo(tmp_path / "rote" / "a", {"paper": {"train": 44}, "windows": {"train": 44, "test": 44}})
    assert few.summary().endswith("(paper: train 44; windows: train 44, test 44)")
    many = BuiltRepo(tmp_path / "rote" / "b", {f"c{i}": {"train": 1000, "test": 200} for i in range(28)})
    assert many.summary().endswith("(28 configs, 33,600 rows)")


def test_paste_lines_use_the_mirror_from_anywhere(mirror, tmp_path, monkeypatch):
    from rote_hf.mirror.repo import paste_lines

    text = paste_lines(mirror)
    assert f"The local mirror is {mirror.resolve() / 'rote'}" in text and f"  cd {mirror.resolve()}" in text
    (line,) = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("load_dataset(")]
    assert line == f'load_dataset("{mirror.resolve()}/rote/rote-seeds", "paper")'
    monkeypatch.chdir(tmp_path)  # elsewhere: the pasted full-path line loads the repo
    assert eval(line, {"load_dataset": load_dataset})["train"].num_rows == 44  # noqa: S307 -- our own line
    with pytest.raises(ConnectionError, match="Couldn.t reach .rote/rote-seeds."):  # the bare id does not resolve here
        load_dataset("rote/rote-seeds", "paper")
