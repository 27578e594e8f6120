"""The mirror the publish tests share: one dry run of ``rote-hf publish`` for the default org
(CogScale pre-built with one config, reused), and the same repos assembled for a second org."""

from __future__ import annotations

import pytest

from rote_hf.hub.targets import build
from tests.helpers import run_cli
from tests.space.rows import make_store

METRICS = ("dl_distance", "jw_distance", "exact_rollout", "confabulation", "cogscale_score")
EXPECTED = {"cogscale": "dataset", "rote-seeds": "dataset", "oeis-mdl": "dataset", "leaderboard": "space", "results": "dataset",
            **{m: "space" for m in METRICS}}
SECOND_ORG = "acme-lab"


@pytest.fixture(scope="session")
def mirror(tmp_path_factory):
    """``(root, results store, stdout)`` of a dry-run publish over a small mirror."""
    base = tmp_path_factory.mktemp("publish")
    root, results = base / "mirror", base / "results"
    make_store(results)
    build("cogscale", root, progress=False, config="simple_copy-small")
    proc = run_cli("publish", "--root", str(root), "--results", str(results), "--quiet", "--include-failed")
    assert proc.returncode == 0, proc.stderr
    return root, results, proc.stdout


@pytest.fixture(scope="session")
def second_org(mirror):
    """The repos of :data:`SECOND_ORG`, assembled from the same mirror (in upload order)."""
    from rote_hf.hub.publish import assemble

    root, results, _ = mirror
    return assemble(root, results=results, org=SECOND_ORG, include_failed=True)
