"""Test environment: offline, isolated caches, one thread (stack.md §10).

The environment variables are set before any Hugging Face library is imported, because
huggingface_hub reads HF_HUB_OFFLINE at import time.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

# One private HF home per test process (each xdist worker imports this file), removed when that
# process exits so that test runs leave no rote-hf-test-home-* folders in the temp dir.
_HOME = tempfile.mkdtemp(prefix="rote-hf-test-home-")
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)
os.environ["HF_HOME"] = _HOME
os.environ["HF_DATASETS_CACHE"] = os.path.join(_HOME, "datasets")
os.environ["HF_ENDPOINT"] = "http://127.0.0.1:9"  # a closed port: stray hub calls fail fast
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"
os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _no_accelerate_state_left_behind():
    """A test that builds an Accelerator in the test process (run_specs without a launcher) leaves
    accelerate's process-wide state behind; forked debug_launcher workers of a later test in the
    same process would inherit its single-process world, so clear it after every test."""
    yield
    import sys

    if "accelerate.state" in sys.modules:
        sys.modules["accelerate.state"].AcceleratorState._reset_state(reset_partial_state=True)


@pytest.fixture(autouse=True, scope="session")
def _one_thread() -> None:
    try:
        import torch
    except ImportError:  # pragma: no cover
        return
    torch.set_num_threads(1)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT
