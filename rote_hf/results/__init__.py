"""rote_hf.results: the one result-row schema, the store, published rows and aggregation.

>>> from rote_hf.results import ResultRow, ResultStore, load
>>> store = ResultStore("results")           # a local folder; one Parquet file per run id
>>> store.append(row)                        # atomic; a finished id is never duplicated
>>> df = load("results", include_paper=True) # pandas DataFrame (as_dataset=True: datasets.Dataset)

Importing this package is cheap (no pandas/pyarrow until a function needs them).
"""

from rote_hf.results.schema import COLUMNS, JSON_COLUMNS, ResultRow, canonical_json, config_hash, make_run_id
from rote_hf.results.store import ResultStore, load, rows_to_frame

__all__ = [
    "COLUMNS", "JSON_COLUMNS", "ResultRow", "ResultStore", "canonical_json", "config_hash", "load",
    "make_run_id", "rows_to_frame",
]
