"""Wheel build hook: bundle ``eval_suite/metrics/`` and ``space/`` into ``rote_hf/_bundled/``.

Those top-level folders stay the one source of truth; an installed wheel cannot see them, so
the wheel carries a copy made at build time (see ``rote_hf/hub/sources.py``). Everything else
is configured in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
BUNDLE = {"metrics": HERE / "eval_suite" / "metrics", "space": HERE / "space"}
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")


class BuildPyWithSources(build_py):
    """``build_py`` that also copies the Space and metric sources into the built package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the checkout itself
            return
        for name, source in BUNDLE.items():
            if source.is_dir():
                target = Path(self.build_lib) / "rote_hf" / "_bundled" / name
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(source, target, ignore=SKIP)


setup(cmdclass={"build_py": BuildPyWithSources})
