"""rote_hf.mirror: the local mirror's repo folders, laid out exactly as they are uploaded.

:mod:`~rote_hf.mirror.repo` writes one repo atomically (Parquet files, the card and its YAML);
:mod:`~rote_hf.mirror.stream` streams a large dataset config to Parquet chunk by chunk. The
dataset builders (:mod:`rote_hf.datasets`) and the hub's metric and Space repos use them.
"""
