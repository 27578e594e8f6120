"""The local mirror of the `rote` hub organisation, the cards of its metric and Space repos, and
publishing: :mod:`~rote_hf.hub.mirror` (repo folders, dataset cards' YAML, atomic writes),
:mod:`~rote_hf.hub.targets` (the build-target registry), :mod:`~rote_hf.hub.metric_repos` and
:mod:`~rote_hf.hub.space_repo` (self-contained Space repos), :mod:`~rote_hf.hub.requirements`
and :mod:`~rote_hf.hub.publish` (checks and upload). The dataset builders live in
:mod:`rote_hf.datasets`."""
