"""Building and publishing the hub repos of an org: :mod:`~rote_hf.hub.targets` (the build-target
registry), :mod:`~rote_hf.hub.metric_repos` and :mod:`~rote_hf.hub.space_repo` (self-contained
metric and Space repos), :mod:`~rote_hf.hub.results_repo` (the results dataset),
:mod:`~rote_hf.hub.org` (one org parameter: the repos rendered for ``--org``),
:mod:`~rote_hf.hub.requirements` and :mod:`~rote_hf.hub.publish` (assembling and offline checks),
and :mod:`~rote_hf.hub.push` (the safe upload). The repo folders themselves are written by
:mod:`rote_hf.mirror`; the dataset builders live in :mod:`rote_hf.datasets`."""
