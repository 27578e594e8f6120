"""rote_hf.suites: one registered unit per benchmark suite.

:data:`SUITES` maps the name a result row carries (``ResultRow.suite``) to its
:class:`~rote_hf.suites.base.Suite`; entries are lazy ``"module:object"`` references, so this
package imports nothing heavy. Adding a suite is one module with a ``Suite`` subclass plus one
``SUITES.register(name, unit)`` call (from the package, or from your own code: the registry
refuses duplicates and lists the known names in its errors).

>>> from rote_hf.suites import get_suite
>>> get_suite("cogscale").headline.lower_is_better
True
"""

from __future__ import annotations

from rote_hf.registry import Registry
from rote_hf.results.headlines import MetricSpec
from rote_hf.results.schema import budget_label, budget_value
from rote_hf.suites.base import ModelEntry, RunSpec, Suite

SUITES: Registry[Suite] = Registry("suite")
SUITES.register("rote", "rote_hf.suites.rote:ROTE")
SUITES.register("rote_matched", "rote_hf.suites.rote:ROTE_MATCHED")
SUITES.register("cogscale", "rote_hf.suites.cogscale:COGSCALE")
SUITES.register("mdl", "rote_hf.suites.oeis_llm:OEIS_LLM")  # rows of the OEIS-LLM query carry suite "mdl"


def get_suite(name: str) -> Suite:
    """The unit of suite ``name`` (``ValueError`` listing the registered suites otherwise)."""
    return SUITES.get(name)


__all__ = ["MetricSpec", "ModelEntry", "RunSpec", "SUITES", "Suite", "budget_label", "budget_value", "get_suite"]
