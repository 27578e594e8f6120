"""The dataset builders of the ``rote`` org, one module per hub dataset repo.

Each module exposes ``build(root, *, progress, config=None)`` (``config`` only where the
dataset has selectable parts) that writes ``<root>/rote/<repo>/`` through the mirror writer of
:mod:`rote_hf.mirror.repo`; its card template is the ``.md`` file of the same name beside it.
Modules: :mod:`~rote_hf.datasets.rote_seeds`, :mod:`~rote_hf.datasets.cogscale` (with the
``datasets`` views of the tasks in :mod:`~rote_hf.datasets.cogscale_hf`) and
:mod:`~rote_hf.datasets.oeis_mdl`.

(Inside this package ``import datasets`` still means Hugging Face ``datasets``: imports are absolute.)
"""
