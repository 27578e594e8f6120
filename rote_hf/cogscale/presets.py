"""The three difficulty presets of the reference ``evals.py`` (paper Appendix B for S/M).

``PRESETS[difficulty][task]`` is a read-only mapping of the generator parameters. Lists of the
reference are tuples here so that a preset can never be mutated by a caller (the reference
``build_task`` mutates its module-level dicts, so an override leaked into later calls).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping

DIFFICULTIES = ("small", "medium", "large")

_SPLITS = {"small": (100, 20, 100), "medium": (1000, 200, 1000), "large": (10000, 2000, 10000)}
_FORECAST = {"small": (200, 5), "medium": (2000, 15), "large": (20000, 50)}

# task -> difficulty -> task-specific parameters (split sizes are added below)
_TABLE: dict[str, dict[str, dict[str, Any]]] = {
    "discrete_postcasting": {
        "small": dict(sequence_length=50, delay=5, n_symbols=3),
        "medium": dict(sequence_length=100, delay=15, n_symbols=8),
        "large": dict(sequence_length=300, delay=50, n_symbols=8),
    },
    "continuous_postcasting": {
        "small": dict(sequence_length=50, delay=5),
        "medium": dict(sequence_length=100, delay=15),
        "large": dict(sequence_length=300, delay=50),
    },
    "discrete_pattern_completion": {
        "small": dict(sequence_length=60, n_symbols=3, base_length=4, mask_ratio=0.2),
        "medium": dict(sequence_length=150, n_symbols=8, base_length=10, mask_ratio=0.2),
        "large": dict(sequence_length=500, n_symbols=20, base_length=25, mask_ratio=0.2),
    },
    "continuous_pattern_completion": {
        "small": dict(sequence_length=60, base_length=4, mask_ratio=0.2),
        "medium": dict(sequence_length=150, base_length=10, mask_ratio=0.2),
        "large": dict(sequence_length=500, base_length=20, mask_ratio=0.2),
    },
    "bracket_matching": {
        "small": dict(sequence_length=50, max_depth=5),
        "medium": dict(sequence_length=100, max_depth=10),
        "large": dict(sequence_length=300, max_depth=30),
    },
    "simple_copy": {
        "small": dict(sequence_length=22, delay=5, n_symbols=3),
        "medium": dict(sequence_length=50, delay=10, n_symbols=8),
        "large": dict(sequence_length=150, delay=30, n_symbols=20),
    },
    "selective_copy": {
        "small": dict(sequence_length=40, delay=5, n_markers=5, n_symbols=3),
        "medium": dict(sequence_length=80, delay=10, n_markers=10, n_symbols=8),
        "large": dict(sequence_length=240, delay=30, n_markers=30, n_symbols=20),
    },
    "adding_problem": {
        "small": dict(sequence_length=10, max_number=3),
        "medium": dict(sequence_length=20, max_number=8),
        "large": dict(sequence_length=50, max_number=20),
    },
    "sorting_problem": {
        "small": dict(sequence_length=10, n_symbols=3),
        "medium": dict(sequence_length=20, n_symbols=8),
        "large": dict(sequence_length=50, n_symbols=20),
    },
    "cross_situation": {
        "small": dict(objects=("glass", "orange"), colors=("blue", "orange"), positions=("left", "right")),
        "medium": dict(
            objects=("glass", "orange", "cup", "bowl"),
            colors=("blue", "orange", "green", "red"),
            positions=("left", "right", ("center", "middle")),
        ),
        "large": dict(
            objects=("glass", "orange", "cup", "bowl", "plate", "spoon"),
            colors=("blue", "orange", "green", "red", "yellow", "purple"),
            positions=("left", "right", ("center", "middle"), "top", "bottom"),
        ),
    },
    "associative_recall": {
        "small": dict(sequence_length=16, num_pairs=3, n_symbols=5),
        "medium": dict(sequence_length=32, num_pairs=7, n_symbols=16),
        "large": dict(sequence_length=64, num_pairs=15, n_symbols=32),
    },
    "induction_heads": {
        "small": dict(sequence_length=40, n_symbols=3),
        "medium": dict(sequence_length=100, n_symbols=8),
        "large": dict(sequence_length=250, n_symbols=20),
    },
}

FORECASTING_TASKS = ("sinus_forecasting", "chaotic_forecasting")


def _presets() -> dict[str, dict[str, Mapping[str, Any]]]:
    out: dict[str, dict[str, Mapping[str, Any]]] = {}
    for difficulty in DIFFICULTIES:
        level: dict[str, Mapping[str, Any]] = {}
        length, horizon = _FORECAST[difficulty]
        for task in FORECASTING_TASKS:
            level[task] = MappingProxyType(dict(
                sequence_length=length, forecast_length=horizon,
                training_ratio=0.45, validation_ratio=0.1, testing_ratio=0.45,
            ))
        n_train, n_valid, n_test = _SPLITS[difficulty]
        for task, by_level in _TABLE.items():
            level[task] = MappingProxyType(dict(n_train=n_train, n_valid=n_valid, n_test=n_test, **by_level[difficulty]))
        out[difficulty] = level
    return out


PRESETS: Mapping[str, Mapping[str, Mapping[str, Any]]] = MappingProxyType(
    {d: MappingProxyType(v) for d, v in _presets().items()}
)
