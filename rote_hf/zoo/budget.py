"""Parameter counting, honest budget matching, the ROTE matched-size grids, and CogScale's
reference width rules.

Honest rule (``search_width``): every architecture's width is found by binary search on its real
trainable-parameter count (all of them: embeddings, norms, heads); the closest width wins (ties:
the smaller), and a budget that cannot be met within +-10% is refused with the achieved count.
The CogScale reference instead solved a quadratic for LSTM/GRU/Transformers (an approximate count)
and binary-searched only Mamba and xLSTM; ``reference_width`` reproduces that exactly.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable, Mapping

from .spec import ModelSpec

BUDGET_TOLERANCE = 0.10

#: ROTE matched-size candidate grids (rote.md 11.2), by width argument.
ROTE_MATCHED_GRIDS: dict[str, tuple[int, ...]] = {
    "hidden_size": (32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768),
    "d_model": (32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256),
}


def count_parameters(model) -> int:
    """Sum of ``numel`` over trainable parameters (buffers and frozen parameters excluded)."""
    return int(sum(p.numel() for p in model.parameters() if p.requires_grad))


def architecture_count(spec: ModelSpec, input_size: int, output_size: int, arch: Mapping[str, Any]) -> int:
    """Trainable parameters of ``spec`` built with ``arch``: the closed form when the family has one,
    otherwise the model is built on the ``meta`` device (no memory, no init cost) and counted."""
    if spec.count is not None:
        return int(spec.count(input_size, output_size, arch))
    # a pure function of its arguments; a budget bisection builds ~10 models, ~0.3 CPU s for an xLSTM,
    # and a sweep resolves the same few architectures for every run
    key = (spec.builder, input_size, output_size, json.dumps(dict(arch), sort_keys=True, default=repr))
    if key not in _META_COUNTS:
        _META_COUNTS[key] = _meta_count(spec, input_size, output_size, arch)
    return _META_COUNTS[key]


_META_COUNTS: dict[tuple, int] = {}


def _meta_count(spec: ModelSpec, input_size: int, output_size: int, arch: Mapping[str, Any]) -> int:
    import torch

    try:
        with torch.device("meta"):
            model = spec.builder(input_size, output_size, **arch)
    except (NotImplementedError, RuntimeError):  # a library op without a meta kernel
        model = spec.builder(input_size, output_size, **arch)
    return count_parameters(model)


def _aligned(width: int, step: int, first: int) -> int:
    """Largest multiple of ``step`` <= ``width``, but at least ``first`` (itself a multiple)."""
    return max(first, width - width % step)


def search_width(
    count: Callable[[int], int],
    budget: int,
    *,
    width_min: int,
    width_step: int,
    width_max: int,
    monotone: bool = True,
) -> tuple[int, int]:
    """Width (a multiple of ``width_step``, >= ``width_min``) whose count is closest to ``budget``
    (ties: the smaller width). Returns (width, count).

    Monotone counts: gallop up from ``width_min`` then bisect, so huge widths are never built.
    Non-monotone counts: scan every width until the count passes twice the budget.
    """
    first = -(-width_min // width_step) * width_step  # smallest legal width: a multiple of the step
    if not monotone:
        best, best_count, width = None, None, first
        while width <= width_max:
            c = count(width)
            if best is None or abs(c - budget) < abs(best_count - budget):
                best, best_count = width, c
            if c > 2 * budget:
                break
            width += width_step
        return best, best_count
    lo = first
    c_lo = count(lo)
    if c_lo >= budget:
        return lo, c_lo
    hi = lo
    while True:  # gallop: double until the count passes the budget or the cap is reached
        nxt = min(width_max, lo + 2 * (hi - lo) + width_step)
        nxt = _aligned(nxt, width_step, first)
        if nxt <= hi:
            return hi, count(hi)
        hi = nxt
        if count(hi) >= budget:
            break
        lo = hi
    # invariant: count(lo) < budget <= count(hi)
    while hi - lo > width_step:
        mid = _aligned((lo + hi) // 2, width_step, first)
        if mid <= lo:
            mid = lo + width_step
        if count(mid) < budget:
            lo = mid
        else:
            hi = mid
    c_lo, c_hi = count(lo), count(hi)
    return (lo, c_lo) if budget - c_lo <= c_hi - budget else (hi, c_hi)


def check_tolerance(name: str, budget: int, achieved: int, width_key: str, width: int, *,
                    smallest: bool = False) -> None:
    """Refuse (ValueError) a budget missed by more than 10%, naming the achieved count; ``smallest``:
    ``width`` is the architecture's smallest valid size (the budget is below it)."""
    if abs(achieved - budget) > BUDGET_TOLERANCE * budget:
        if smallest:
            raise ValueError(
                f"budget={budget} cannot be met within +-{BUDGET_TOLERANCE:.0%} by {name!r}: its smallest valid "
                f"size, {width_key}={width}, has {achieved} trainable parameters ({(achieved - budget) / budget:+.1%})"
            )
        raise ValueError(
            f"budget={budget} cannot be met within +-{BUDGET_TOLERANCE:.0%} by {name!r}: the closest "
            f"{width_key}={width} has {achieved} trainable parameters "
            f"({(achieved - budget) / budget:+.1%})"
        )


def matched_width(count: Callable[[int], int], grid: tuple[int, ...], target: float) -> tuple[int, int]:
    """ROTE matched-size rule: the grid value minimising |params - target|, the first on ties."""
    best = min(grid, key=lambda w: abs(count(w) - target))
    return best, count(best)


# ---- CogScale reference width rules (``cogscale-paper``) -------------------------------------------


def _quadratic_root(a: float, b: float, c: float) -> int | None:
    delta = b * b - 4 * a * c
    if delta < 0:
        return None
    return int((-b + math.sqrt(delta)) / (2 * a))


def _ref_rnn(a: int, b_of: Callable[[int, int], int]):
    def rule(i: int, o: int, budget: int, arch, count) -> int:
        h = _quadratic_root(a, b_of(i, o), o - budget)
        return 1 if h is None else max(1, h)

    return rule


def _ref_transformer(per_layer: int, b_of: Callable[[int, int], int]):
    def rule(i: int, o: int, budget: int, arch, count) -> int:
        nhead = arch["nhead"]
        d = _quadratic_root(per_layer * arch["num_layers"], b_of(i, o), -budget)
        d = nhead if d is None else d
        return max(nhead, d - d % nhead)

    return rule


def _ref_bisect(low: int, multiple: int, catch: bool):
    """The reference's binary search over [low, 2048]: the width is ``mid`` rounded down to
    ``multiple``, the closest count so far is kept (strictly better only), and (xLSTM) a failing
    instantiation shrinks the upper bound."""

    def rule(i: int, o: int, budget: int, arch, count) -> int:
        lo, hi, best, best_diff = low, 2048, (8 if multiple == 2 else 4), float("inf")
        while lo <= hi:
            mid = (lo + hi) // 2
            d = max(low, mid - mid % multiple)
            try:
                params = count(d)
            except Exception:  # noqa: BLE001 -- the reference's behaviour
                if not catch:
                    raise
                hi = mid - 1
                continue
            if abs(params - budget) < best_diff:
                best_diff, best = abs(params - budget), d
            if params < budget:
                lo = mid + 1
            else:
                hi = mid - 1
        return best

    return rule


#: name -> rule(input_size, output_size, budget, arch, count_fn) -> width, as in CogScale's models.py.
REFERENCE_WIDTH_RULES: dict[str, Callable[..., int]] = {
    "lstm": _ref_rnn(4, lambda i, o: 4 * i + 4 + o),
    "gru": _ref_rnn(3, lambda i, o: 3 * i + 6 + o),
    "transformer": _ref_transformer(12, lambda i, o: i + o),
    "transformer-ed": _ref_transformer(28, lambda i, o: 2 * i + o),
    "mamba": _ref_bisect(2, 2, catch=False),
    "xlstm": _ref_bisect(4, 4, catch=True),
    "esn": lambda i, o, budget, arch, count: max(1, budget // 10),
}
