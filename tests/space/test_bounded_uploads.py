"""Issue 26 item 5: uploads are bounded before they are decoded. The 2 KB Parquet bomb (30 rows
sharing one dictionary-encoded 20 MB string, which decoded in full grew the app from 755 to 1,383
MiB) is refused from the file's metadata, and a refused file raises the process's peak memory
by less than 100 MB."""

from __future__ import annotations

import gc
import io
import json
import tracemalloc
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rote_hf.leaderboard.submission import (
    MAX_DECODED_BYTES, MAX_JSON_VALUES, MAX_STRING_CHARS, SubmissionError, parse_submission,
)

MB = 1024 * 1024
GOOD = {"run_id": "r1", "suite": "cogscale", "task": "simple_copy", "model": "Net", "config": "small",
        "budget": "1k", "learning_rate": 1e-3, "metrics": json.dumps({"test_score": 0.2}), "device": "cpu"}


def parquet_bytes(columns: dict, **kwargs) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf, compression="zstd", **kwargs)
    return buf.getvalue()


def dictionary_bomb(rows: int, value_bytes: int) -> bytes:
    """``rows`` rows whose ``error`` is one ``value_bytes``-long string, dictionary-encoded (stored once)."""
    column = pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int32()), pa.array(["x" * value_bytes]))
    base = {k: [v] * rows for k, v in GOOD.items() if k != "metrics"}
    base["run_id"] = [f"r{i}" for i in range(rows)]
    return parquet_bytes({**base, "error": column}, dictionary_pagesize_limit=64 * MB)


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc/self/status")


def refused_within(data: bytes, name: str) -> tuple[str, float, float]:
    """(the refusal, peak RSS growth in MB, peak Python allocations in MB) while parsing ``data``."""
    gc.collect()
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak RSS to the current RSS
    before = peak_rss_mb()
    tracemalloc.start()
    try:
        with pytest.raises(SubmissionError) as exc:
            parse_submission(data, name)
        peak_py = tracemalloc.get_traced_memory()[1] / MB
    finally:
        tracemalloc.stop()
    return str(exc.value), peak_rss_mb() - before, peak_py


def test_the_2kb_parquet_bomb_is_refused_from_its_metadata_without_decoding():
    data = dictionary_bomb(30, 20 * MB)
    assert len(data) < 4096  # ~2.2 KB on disk
    meta = pq.ParquetFile(io.BytesIO(data)).metadata
    assert meta.row_group(0).column(meta.num_columns - 1).total_uncompressed_size > 20 * MB
    message, rss_mb, py_mb = refused_within(data, "bomb.parquet")
    assert message == ("file's column 'error' is 20971572 bytes uncompressed in row group 0 (a dictionary page "
                       "included); at most 8388608 per column (refused from the file's metadata, nothing decoded)")
    assert rss_mb < 100 and py_mb < 100, (rss_mb, py_mb)
    assert rss_mb < 15  # nothing close to one 20 MB copy, let alone 30 of them


def test_a_bomb_under_the_chunk_bound_is_refused_on_its_decoded_size_before_rows_exist():
    data = dictionary_bomb(5000, 1 * MB)  # 1 MiB string x 5,000 rows = 5 GB decoded
    assert len(data) < 64 * 1024
    message, rss_mb, py_mb = refused_within(data, "bomb2.parquet")
    size = int(message.split()[3])
    assert 5000 * MB < size < 5000 * MB + 5000 * 100  # the 5,000 copies of the string, plus the small columns
    assert message == (f"file's values are {size} bytes once decoded; at most {MAX_DECODED_BYTES} "
                       "(refused before any row was decoded)")
    assert rss_mb < 100 and py_mb < 100, (rss_mb, py_mb)


def test_metadata_refuses_rows_columns_unknown_and_nested_columns():
    too_many = parquet_bytes({"run_id": [f"r{i}" for i in range(5001)]})
    with pytest.raises(SubmissionError, match="file has 5001 rows; at most 5000"):
        parse_submission(too_many, "a.parquet")
    unknown = parquet_bytes({**{k: [v] for k, v in GOOD.items()}, "payload": ["x"]})
    with pytest.raises(SubmissionError, match=r"unknown columns \['payload'\]"):
        parse_submission(unknown, "a.parquet")
    nested = parquet_bytes({**{k: [v] for k, v in GOOD.items() if k != "metrics"}, "metrics": [[1, 2]]})
    with pytest.raises(SubmissionError, match=r"columns \['metrics'\] are nested"):
        parse_submission(nested, "a.parquet")


def test_a_good_parquet_file_still_reads():
    rows = parse_submission(parquet_bytes({k: [v] for k, v in GOOD.items()}), "good.parquet")
    assert [(r.run_id, r.metrics, r.source, r.verified) for r in rows] == [
        ("submitted-r1", {"test_score": 0.2}, "submitted", False)]


def test_json_values_and_string_sizes_are_capped_while_parsing():
    many = json.dumps([{**GOOD, "run_id": f"r{i}", "metrics": {"test_score": 0.2}} for i in range(1)]
                      + [[0] * (MAX_JSON_VALUES + 10)])
    with pytest.raises(SubmissionError, match=f"holds more than {MAX_JSON_VALUES} JSON values"):
        parse_submission(many.encode(), "a.json")
    long = json.dumps([{**GOOD, "error": "y" * (MAX_STRING_CHARS + 1)}])
    with pytest.raises(SubmissionError, match=f"at most {MAX_STRING_CHARS} are accepted"):
        parse_submission(long.encode(), "a.json")
    deep = b"[" * 5000 + b"]" * 5000
    message, rss_mb, py_mb = refused_within(deep, "deep.json")
    assert message.startswith("file is nested deeper than 12 levels") and rss_mb < 100 and py_mb < 100
