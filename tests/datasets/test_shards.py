"""Large splits are written as Parquet shards of at most MAX_FILE_BYTES, named by pattern in the
card, with their sizes in dataset_info (issue 27); datasets loads every shard, in order."""

from __future__ import annotations

import pyarrow as pa
import yaml


def _meta(folder):
    return yaml.safe_load((folder / "README.md").read_text().split("---\n")[1])


def test_an_in_memory_split_is_sharded_and_loads_whole(tmp_path, monkeypatch):
    from datasets import Dataset, load_dataset

    from rote_hf.mirror import repo

    monkeypatch.setattr(repo, "MAX_FILE_BYTES", 4_000)
    rows = Dataset.from_list([{"i": i, "text": f"row {i:05d} " + "x" * 40} for i in range(600)])
    built = repo.write_dataset_repo(tmp_path, "demo", {"big": {"train": rows}, "small": {"train": rows.select(range(3))}},
                                    "# demo")
    shards = sorted((built.path / "data" / "big").glob("*.parquet"))
    assert len(shards) == -(-rows.data.nbytes // 4_000) > 1
    assert shards[0].name == f"train-00000-of-{len(shards):05d}.parquet"
    meta = _meta(built.path)
    assert meta["configs"][0]["data_files"] == [{"split": "train", "path": "data/big/train-*-of-*.parquet"}]
    info = {i["config_name"]: i for i in meta["dataset_info"]}
    assert info["big"]["download_size"] == sum(p.stat().st_size for p in shards)
    assert info["big"]["dataset_size"] == rows.data.nbytes == info["big"]["splits"][0]["num_bytes"]
    monkeypatch.chdir(tmp_path)
    loaded = load_dataset("rote/demo", "big", split="train")
    assert loaded["i"] == list(range(600))


def test_a_streamed_split_starts_a_new_shard_past_the_limit_and_is_kept_as_it_is(tmp_path):
    import datasets

    from rote_hf.mirror.stream import KeptSplit, StreamedSplit, write_streaming_repo

    features = datasets.Features({"i": datasets.Value("int64")})

    def batches():
        for b in range(5):
            yield pa.table({"i": pa.array(range(b * 1000, (b + 1) * 1000), pa.int64())})

    built = write_streaming_repo(tmp_path, "stream", {"c": {"train": StreamedSplit(features, batches)}}, "# s",
                                 max_file_bytes=5_000)
    shards = sorted((built.path / "data" / "c").glob("*.parquet"))
    assert built.rows == {"c": {"train": 5000}} and len(shards) > 1
    assert not list((built.path / "data" / "c").glob(".*"))  # no temporary part left
    kept = write_streaming_repo(tmp_path / "again", "stream", {"c": {"train": KeptSplit(features, tuple(shards), 5000)}},
                                "# s")
    assert [p.read_bytes() for p in sorted((kept.path / "data" / "c").glob("*.parquet"))] == [p.read_bytes() for p in shards]
    assert _meta(kept.path)["dataset_info"][0]["download_size"] == sum(p.stat().st_size for p in shards)
