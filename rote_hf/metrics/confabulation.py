"""LLM next-term answers on integer sequences: accuracy, abstention, confabulation.

Definitions follow the MDL paper's LLM evaluation (§9; released ``run_llm_eval.py`` and
``llm_summary.json``; see docs/llm.md). One row is one (sequence, model)
query with

* ``prediction``: the predicted next terms (ints of any size, or decimal strings);
* ``reference``: the true next terms;
* ``confidence``: the stated confidence, an int in 1..5 (``None`` if the model gave none);
* ``abstained``: the model answered ``NO_FORMULA_FOUND``;
* ``recognized``: the model said it recognised the sequence (``None`` = unknown);
* ``status``: ``"ok"`` or a failure status of the response parser (``no_json``,
  ``bad_json``, ``schema_error``, ``api_error``).

Every rate is over the **scored** rows (status ``ok``). Failed rows are counted
separately (``n_failed``, ``n_failed_<status>``) and never as wrong answers, exactly as the
paper reported "12 of 180 calls failed". A row is

* exact: the prediction has the reference's length and equals it term by term;
* partial: same length and at least one position right;
* confabulated (the paper's definition): confidence >= 4, a prediction was given (non-empty)
  and it is not exact -- abstaining rows included, because a model can write
  ``NO_FORMULA_FOUND`` and still state next terms with confidence 4;
* confabulated excluding abstentions: the same among non-abstaining rows only, over the
  non-abstaining rows (our variant, asked for by the spec).

Each rate comes with a Wilson 95 % score interval (``<rate>_ci_low``, ``<rate>_ci_high``),
because the paper's cells hold about 20 rows.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from rote_hf.metrics._checks import as_rows, check_bool, check_same_length, is_integer

OK = "ok"
FAILURE_STATUSES = ("no_json", "bad_json", "schema_error", "api_error")
"""Parser outcomes that mean "no usable answer" (docs/llm.md)."""

CONFABULATION_CONFIDENCE = 4
"""Stated confidence at or above which a wrong answer is a confabulation (paper §9)."""

Z_95 = 1.959963984540054
"""Two-sided 95 % standard-normal quantile used by the Wilson interval."""

_DECIMAL = re.compile(r"-?[0-9]+")

RATE_KEYS = (
    "accuracy",
    "partial_accuracy",
    "abstention_rate",
    "confabulation_rate",
    "confabulation_rate_excluding_abstentions",
    "recognition_rate",
    "accuracy_recognized",
    "accuracy_unrecognized",
    "contamination_share",
)


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; ``(nan, nan)`` when ``n == 0``."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _term(value: Any, name: str, row: int) -> int:
    if is_integer(value):
        return int(value)
    if isinstance(value, str) and _DECIMAL.fullmatch(value.strip()):  # no 1_000, +5, 1e3 or other digits
        try:
            return int(value.strip())
        except ValueError:  # over Python's int-conversion digit limit
            raise ValueError(f"{name}[{row}] holds a term of {len(value.strip())} digits, over Python's "
                             "int-conversion limit (sys.set_int_max_str_digits)") from None
    raise TypeError(f"{name}[{row}] must hold integers (or decimal strings), got {value!r}")


def _terms(value: Any, name: str, row: int) -> list[int]:
    if value is None:
        return []
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name}[{row}] must be a list of integers, got {type(value).__name__}")
    return [_term(v, name, row) for v in value]


def _status(value: Any, row: int) -> str:
    if value == OK or value in FAILURE_STATUSES:
        return value
    raise ValueError(f"status[{row}] must be one of {[OK, *FAILURE_STATUSES]}, got {value!r}")


def _confidence(value: Any, row: int) -> int | None:
    if value is None:
        return None
    if not is_integer(value):
        raise TypeError(f"confidence[{row}] must be an integer in 1..5 or None, got {value!r}")
    if not 1 <= int(value) <= 5:
        raise ValueError(f"confidence[{row}] must be in 1..5, got {int(value)}")
    return int(value)


def _rate(k: int, n: int) -> float:
    return k / n if n else float("nan")


def score_row(prediction: list[int], reference: list[int], confidence: int | None, abstained: bool) -> dict[str, bool]:
    """Per-row flags of one scored answer: exact, partial, confabulated."""
    same_length = len(prediction) == len(reference) and len(reference) > 0
    n_right = sum(a == b for a, b in zip(prediction, reference)) if same_length else 0
    exact = same_length and n_right == len(reference)
    confident = confidence is not None and confidence >= CONFABULATION_CONFIDENCE
    return {
        "exact": exact,
        "partial": n_right >= 1,
        "confabulated": confident and len(prediction) > 0 and not exact,
    }


def confabulation(
    predictions: Sequence[Any],
    references: Sequence[Any],
    confidence: Sequence[Any],
    abstained: Sequence[Any],
    recognized: Sequence[Any],
    status: Sequence[Any] | None = None,
    *,
    return_per_row: bool = False,
) -> dict[str, object]:
    """Score N LLM answers (see the module docstring for every definition).

    ``status=None`` means every row parsed (``"ok"``). Returns floats: counts ``n_rows``,
    ``n_scored``, ``n_failed`` and ``n_failed_<status>``; ``failure_rate`` (over all
    rows); the rates of ``RATE_KEYS`` with Wilson 95 % bounds; ``mean_confidence`` (over
    scored rows that stated one); ``n_recognized``, ``n_unrecognized``; and ``hedges``
    (1.0 when abstention >= 0.5 or mean confidence < 3.0, the paper's pre-registered
    "hedges" test). Rates with an empty denominator are NaN. ``return_per_row=True`` adds
    the lists ``exact``, ``partial`` and ``confabulated`` (``None`` on failed rows).
    """
    columns = {
        "predictions": as_rows(predictions, "predictions"),
        "references": as_rows(references, "references"),
        "confidence": as_rows(confidence, "confidence"),
        "abstained": as_rows(abstained, "abstained"),
        "recognized": as_rows(recognized, "recognized"),
    }
    if status is not None:
        columns["status"] = as_rows(status, "status")
    n_rows = check_same_length(columns)
    statuses = [_status(s, i) for i, s in enumerate(columns["status"])] if status is not None else [OK] * n_rows

    per_row: list[dict[str, bool] | None] = []
    scored: list[tuple[dict[str, bool], int | None, bool, bool | None]] = []
    for i in range(n_rows):
        if statuses[i] != OK:
            per_row.append(None)
            continue
        pred = _terms(columns["predictions"][i], "predictions", i)
        ref = _terms(columns["references"][i], "references", i)
        if not ref:
            raise ValueError(f"references[{i}] must hold at least one true next term")
        conf = _confidence(columns["confidence"][i], i)
        abst = check_bool(columns["abstained"][i], "abstained", i)
        recog = check_bool(columns["recognized"][i], "recognized", i, allow_none=True)
        flags = score_row(pred, ref, conf, abst)
        per_row.append(flags)
        scored.append((flags, conf, abst, recog))

    n = len(scored)
    counts = {
        "exact": sum(f["exact"] for f, *_ in scored),
        "partial": sum(f["partial"] for f, *_ in scored),
        "abstained": sum(a for _, _, a, _ in scored),
        "confabulated": sum(f["confabulated"] for f, *_ in scored),
    }
    answering = [(f, c) for f, c, a, _ in scored if not a]
    recognised = [f for f, _, _, r in scored if r is True]
    unrecognised = [f for f, _, _, r in scored if r is False]
    confidences = [c for _, c, _, _ in scored if c is not None]

    successes = {
        "accuracy": (counts["exact"], n),
        "partial_accuracy": (counts["partial"], n),
        "abstention_rate": (counts["abstained"], n),
        "confabulation_rate": (counts["confabulated"], n),
        "confabulation_rate_excluding_abstentions": (sum(f["confabulated"] for f, _ in answering), len(answering)),
        "recognition_rate": (len(recognised), n),
        "accuracy_recognized": (sum(f["exact"] for f in recognised), len(recognised)),
        "accuracy_unrecognized": (sum(f["exact"] for f in unrecognised), len(unrecognised)),
        # share of the exact answers that came with recognition (paper: contamination)
        "contamination_share": (sum(f["exact"] for f in recognised), counts["exact"]),
    }
    out: dict[str, object] = {
        "n_rows": float(n_rows),
        "n_scored": float(n),
        "n_failed": float(n_rows - n),
        **{f"n_failed_{s}": float(statuses.count(s)) for s in FAILURE_STATUSES},
        "failure_rate": (n_rows - n) / n_rows,
    }
    for key in RATE_KEYS:
        k, d = successes[key]
        out[key] = _rate(k, d)
    mean_conf = sum(confidences) / len(confidences) if confidences else float("nan")
    out["mean_confidence"] = mean_conf
    out["n_recognized"] = float(len(recognised))
    out["n_unrecognized"] = float(len(unrecognised))
    out["hedges"] = float(bool(n) and (out["abstention_rate"] >= 0.5 or mean_conf < 3.0))
    for key in RATE_KEYS:
        low, high = wilson_interval(*successes[key])
        out[f"{key}_ci_low"] = low
        out[f"{key}_ci_high"] = high
    if return_per_row:
        for flag in ("exact", "partial", "confabulated"):
            out[flag] = [None if r is None else r[flag] for r in per_row]
    return out
