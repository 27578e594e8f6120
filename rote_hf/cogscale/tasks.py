"""The 14 CogScale tasks: ``TASK_REGISTRY`` (lookups: duplicates refused, known names in errors)
and ``TASKS`` (a read-only mapping in the reference's order, for iteration)."""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from .cross_situation import CROSS_SITUATION
from .forecasting import CHAOTIC_FORECASTING, SINUS_FORECASTING
from .manipulation import ADDING_PROBLEM, BRACKET_MATCHING, SORTING_PROBLEM
from .memory import CONTINUOUS_POSTCASTING, DISCRETE_POSTCASTING, SELECTIVE_COPY, SIMPLE_COPY
from .patterns import ASSOCIATIVE_RECALL, CONTINUOUS_PATTERN_COMPLETION, DISCRETE_PATTERN_COMPLETION, INDUCTION_HEADS
from rote_hf.registry import Registry

from .registry import Task

_ORDER = (
    SINUS_FORECASTING, CHAOTIC_FORECASTING, DISCRETE_POSTCASTING, CONTINUOUS_POSTCASTING,
    DISCRETE_PATTERN_COMPLETION, CONTINUOUS_PATTERN_COMPLETION, BRACKET_MATCHING, SIMPLE_COPY,
    SELECTIVE_COPY, ADDING_PROBLEM, SORTING_PROBLEM, CROSS_SITUATION, ASSOCIATIVE_RECALL, INDUCTION_HEADS,
)

TASK_REGISTRY: Registry[Task] = Registry("task name")
for _task in _ORDER:
    TASK_REGISTRY.add(_task.name, _task)

TASKS: Mapping[str, Task] = MappingProxyType({t.name: t for t in _ORDER})

# parameters a task accepts beyond its preset's keys
EXTRA_PARAMS: Mapping[str, tuple[str, ...]] = MappingProxyType({"cross_situation": ("column_order",)})
