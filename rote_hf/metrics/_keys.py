"""Output keys of the evaluate modules that do not clash with evaluate's own metrics.

``evaluate.combine`` prefixes every key that two modules share (``exact_match`` of
``exact_rollout`` beside evaluate's ``exact_match`` becomes ``exact_rollout_exact_match`` and
``exact_match_exact_match``), so the modules of the ``rote`` org name their keys after what they
measure: :data:`RENAMED`. The old names are deprecated: for one release (0.2) a module still
returns them beside the new ones when called with ``legacy_keys=True`` (a ``FutureWarning``);
they go in 0.3. The pure functions of :mod:`rote_hf.metrics` keep their keys (stored result rows
use them).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

RENAMED: dict[str, dict[str, str]] = {
    "exact_rollout": {"exact_match": "exact_rollout_rate"},
    "confabulation": {"accuracy": "answer_accuracy", "accuracy_ci_low": "answer_accuracy_ci_low",
                      "accuracy_ci_high": "answer_accuracy_ci_high"},
    "cogscale_score": {"score": "cogscale_score"},
}
"""Module -> {old key: new key}."""

LEGACY_UNTIL = "0.3"
"""The release that drops the old keys."""


def renamed_keys(module: str, out: Mapping[str, Any], legacy_keys: bool = False) -> dict[str, Any]:
    """``out`` (a metric function's result) with the keys of ``module`` renamed, in the same order;
    with ``legacy_keys`` the old keys follow the new ones (deprecated: a ``FutureWarning``)."""
    if module not in RENAMED:
        raise ValueError(f"module must be one of {sorted(RENAMED)}, got {module!r}")
    if not isinstance(legacy_keys, bool):
        raise TypeError(f"legacy_keys must be a bool, got {type(legacy_keys).__name__}")
    names = RENAMED[module]
    renamed = {names.get(k, k): v for k, v in out.items()}
    if legacy_keys:
        old = ", ".join(k for k in names if k in out)
        warnings.warn(f"{module}: the keys {old} are deprecated (they clash with evaluate's own metrics in "
                      f"evaluate.combine) and go in rote-hf {LEGACY_UNTIL}; read "
                      f"{', '.join(names[k] for k in names if k in out)} instead", FutureWarning, stacklevel=3)
        renamed.update({k: out[k] for k in names if k in out})
    return renamed
