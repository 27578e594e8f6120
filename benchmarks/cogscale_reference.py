"""The reference ``cogscale`` 0.1.x (the authors' GitHub code) as an oracle for the equality tests
(tests/cogscale/test_reference_equality.py) and benchmarks/cogscale_equality.py.

The ``test`` extra pins ``cogscale==0.1.1``; 0.2.0 is a different code base (no T arrays,
-100 masking) and cannot serve as the oracle, so its presence fails loudly instead of
silently comparing against the wrong thing.
"""

from __future__ import annotations

from importlib.metadata import version

import numpy as np

REFERENCE_VERSION = version("cogscale")


def reference():
    """The imported reference package, asserted to be 0.1.x."""
    import cogscale

    assert REFERENCE_VERSION.startswith("0.1."), (
        f"tests need the reference cogscale 0.1.x (pip install 'cogscale==0.1.1'), found {REFERENCE_VERSION}"
    )
    return cogscale


def reference_build(name: str, difficulty: str, seed: int, **params):
    """``cogscale.build_task`` without its override leak: restore the preset dict afterwards."""
    cs = reference()
    import cogscale.evals as evals

    table = {"small": evals.cogscale_small, "medium": evals.cogscale_medium, "large": evals.cogscale_large}[difficulty]
    saved = dict(table[name]["params"])
    try:
        return cs.build_task(name, difficulty, seed=seed, **params)
    finally:
        table[name]["params"].clear()
        table[name]["params"].update(saved)


def legacy_columns_to_alphabetical(X: np.ndarray, params: dict) -> np.ndarray:
    """Reorder the reference cross_situation X columns (set order) into alphabetical order."""
    from rote_hf.cogscale.cross_situation import grammar

    legacy = grammar(params["objects"], params["colors"], params["positions"], "legacy").vocabulary
    order = [legacy.index(w) for w in sorted(legacy)]
    return X[..., order]


ARRAYS = ("X_train", "Y_train", "T_train", "X_valid", "Y_valid", "T_valid", "X_test", "Y_test", "T_test")


def assert_same(ours: dict, ref: dict, *, context: str = "") -> None:
    """Same keys, dtypes, shapes and bytes for the nine arrays; same category."""
    assert ours["category"] == ref["category"], context
    for key in ARRAYS:
        a, b = ours[key], np.asarray(ref[key])
        assert a.dtype == b.dtype, f"{context} {key}: dtype {a.dtype} != {b.dtype}"
        assert a.shape == b.shape, f"{context} {key}: shape {a.shape} != {b.shape}"
        assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes(), f"{context} {key}: bytes differ"
