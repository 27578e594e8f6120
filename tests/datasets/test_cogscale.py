"""The ``rote/cogscale`` mirror repo: offline ``load_dataset`` round trip, byte-identical
rebuilds, subset builds keep other configs, the card, and the CLI."""

from __future__ import annotations

import itertools
import json

import os
from pathlib import Path

import numpy as np
import pytest
import yaml

from rote_hf.cogscale import build_task, stream_samples
from rote_hf.datasets.cogscale import ALL_CONFIGS, build, parse_config
from rote_hf.datasets.cogscale_hf import iterable_dataset, to_arrays

from ..helpers import run_cli


def _load(root: Path, config: str):
    from datasets import load_dataset

    cwd = os.getcwd()
    os.chdir(root)
    try:
        return load_dataset("rote/cogscale", config)  # verbatim, resolved from the mirror folder
    finally:
        os.chdir(cwd)


@pytest.fixture(scope="module")
def mirror(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mirror")
    build(root, progress=False, config="simple_copy-small")
    build(root, progress=False, config="cross_situation-small")  # keeps simple_copy-small
    return root


def test_config_names() -> None:
    assert len(ALL_CONFIGS) == 42 and "simple_copy-small" in ALL_CONFIGS
    assert len(parse_config(None)) == 28 and len(parse_config("large")) == 14 and len(parse_config("all")) == 42
    with pytest.raises(ValueError, match="config must be 'all', a difficulty"):
        parse_config("simple_copy-tiny")


@pytest.mark.parametrize("config", ["simple_copy-small", "cross_situation-small"])
def test_load_dataset_round_trip(mirror: Path, config: str) -> None:
    ds = _load(mirror, config)
    assert set(ds) == {"train", "validation", "test"}
    assert ds["train"].features["inputs"].shape[1] == (4 if config.startswith("simple") else 13)
    ref = build_task(config.rsplit("-", 1)[0], "small", 0)
    for split, key in (("train", "train"), ("validation", "valid"), ("test", "test")):
        X, Y, T = to_arrays(ds[split])
        assert X.tobytes() == ref[f"X_{key}"].tobytes() and X.shape == ref[f"X_{key}"].shape
        assert Y.tobytes() == ref[f"Y_{key}"].tobytes() and T.tobytes() == ref[f"T_{key}"].tobytes()


def test_card_metadata(mirror: Path) -> None:
    text = (mirror / "rote" / "cogscale" / "README.md").read_text()
    meta = yaml.safe_load(text.split("---\n")[1])
    names = [c["config_name"] for c in meta["configs"]]
    assert names == ["simple_copy-small", "cross_situation-small"]
    assert "cogscale_configs" not in meta  # the generation parameters live beside the card, not in its YAML
    assert meta["size_categories"] == ["n<1K"] and meta["source_datasets"] == ["original"]
    params = json.loads((mirror / "rote" / "cogscale" / "generation_params.json").read_text())
    info = params["cross_situation-small"]
    assert (info["category"], info["column_order"], info["seed"]) == ("multi_classification", "alphabetical", 0)
    assert params["simple_copy-small"]["params"]["sequence_length"] == 22
    assert "no config name picks `simple_copy-small`" in text and "rote-hf build cogscale --config" in text
    for needle in ("## Presets", "## Scoring", "## Known quirks", "bibtex", "MIT", "### induction_heads"):
        assert needle in text


def test_two_builds_are_byte_identical(mirror: Path, tmp_path: Path) -> None:
    build(tmp_path, progress=False, config="simple_copy-small")
    build(tmp_path, progress=False, config="cross_situation-small")
    a, b = mirror / "rote" / "cogscale", tmp_path / "rote" / "cogscale"
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert len(files) == 8  # README + generation_params.json + 2 configs x 3 splits
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_cli_builds_one_config(tmp_path: Path) -> None:
    done = run_cli("build", "cogscale", "--root", str(tmp_path), "--config", "adding_problem-small", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "adding_problem-small: train 100, validation 20, test 100" in done.stdout
    bad = run_cli("build", "cogscale", "--root", str(tmp_path), "--config", "adding-small")
    assert bad.returncode == 2 and "config must be 'all'" in bad.stderr


def test_iterable_dataset_matches_stream() -> None:
    ds = iterable_dataset("adding_problem", "medium", 4)
    got = list(ds.take(5))
    want = list(itertools.islice(stream_samples("adding_problem", "medium", 4), 5))
    for g, w in zip(got, want):
        assert np.array_equal(np.asarray(g["inputs"], dtype=np.float64), w["inputs"])
        assert np.array_equal(np.asarray(g["targets"], dtype=np.float64), w["targets"])
        assert list(g["timesteps"]) == list(w["timesteps"])


def test_no_config_loads_the_default_and_the_configs_can_be_listed(mirror: Path) -> None:
    """Issue 31: what README.md and the card say about ``load_dataset("rote/cogscale")`` without a
    config name: the default ``simple_copy-small`` (datasets picks it silently from the card's
    ``default: true``), and ``get_dataset_config_names`` lists the configs of the build."""
    from datasets import get_dataset_config_names, load_dataset

    cwd = os.getcwd()
    os.chdir(mirror)
    try:
        default = load_dataset("rote/cogscale")  # verbatim, resolved from the mirror folder
        names = get_dataset_config_names("rote/cogscale")
    finally:
        os.chdir(cwd)
    assert names == ["simple_copy-small", "cross_situation-small"]
    X, Y, T = to_arrays(default["train"])
    ref = build_task("simple_copy", "small", 0)
    assert X.tobytes() == ref["X_train"].tobytes() and T.tobytes() == ref["T_train"].tobytes()
    card = (mirror / "rote" / "cogscale" / "README.md").read_text()
    assert 'datasets.get_dataset_config_names("rote/cogscale")' in card
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "without a config name quietly loads the default config,\n`simple_copy-small`" in readme
