"""Building and publishing the `rote` hub organisation: :mod:`~rote_hf.hub.targets` (the
build-target registry), :mod:`~rote_hf.hub.metric_repos` and :mod:`~rote_hf.hub.space_repo`
(self-contained metric and Space repos), :mod:`~rote_hf.hub.requirements` and
:mod:`~rote_hf.hub.publish` (checks and upload). The repo folders themselves are written by
:mod:`rote_hf.mirror`; the dataset builders live in :mod:`rote_hf.datasets`."""
