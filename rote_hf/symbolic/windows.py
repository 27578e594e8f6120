"""ROTE finite-context windows (paper §3.3, eq. 5; docs/rote.md).

The seed is tiled (the raw seed, not its reduction) to a stream of N symbols; N *includes* the
k withheld symbols. Windows of length w come from the prefix ``stream[:N-k]`` only:
``X_i = prefix[i:i+w]``, ``y_i = prefix[i+w]`` for i = 0 .. M-1 with M = N - k - w, split
chronologically 80/10/10 exactly as the reference (2640/330/330 at N = 3500, w = k = 100).
The rollout starts from ``stream[N-k-w:N-k]`` and is scored against ``stream[N-k:]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rote_hf.symbolic.alphabet import check_int, check_symbols

PAPER_SEQUENCE_LENGTH = 3500
PAPER_WINDOW = 100
PAPER_HORIZON = 100
MIN_WINDOWS = 6  # the fewest windows for which train, validation and test are all non-empty


def periodic_extension(seed: str, length: int) -> str:
    """``seed`` repeated and cut to ``length`` symbols."""
    check_symbols(seed, "seed")
    if not seed:
        raise ValueError("seed must be a non-empty string")
    length = check_int(length, "length", low=0)
    return (seed * (-(-length // len(seed))))[:length]


def split_bounds(num_windows: int) -> tuple[int, int]:
    """``(train_end, valid_end)`` of the chronological split of ``num_windows`` windows.

    Train = [0, train_end), validation = [train_end, valid_end), test = [valid_end, M);
    ``train_end = max(1, int(0.8 M))``, ``valid_end = min(max(train_end + 1, int(0.9 M)), M - 1)``
    (the reference's float formulas, kept verbatim because they set the published splits).
    """
    m = check_int(num_windows, "num_windows", low=MIN_WINDOWS)
    train_end = max(1, int(0.8 * m))
    valid_end = min(max(train_end + 1, int(0.9 * m)), m - 1)
    return train_end, valid_end


@dataclass(frozen=True)
class RoteWindows:
    """The windows of one seed: symbol-index arrays, split bounds and the rollout pair.

    ``alphabet`` is ``sorted(set(seed))``; class index = position in it (ties in a greedy
    rollout go to the lowest index). ``prefix_ids`` holds the N - k observed symbols as int64
    indices; window i is ``prefix_ids[i:i+w]`` with target ``prefix_ids[i+w]``.
    """

    seed: str
    sequence_length: int
    window: int
    horizon: int
    alphabet: str
    prefix_ids: np.ndarray  # (N - k,) int64
    train_end: int
    valid_end: int
    context: str  # (w,) the observed symbols the rollout starts from
    target: str  # (k,) the withheld continuation

    @property
    def num_windows(self) -> int:
        return self.sequence_length - self.horizon - self.window

    def split_range(self, split: str) -> range:
        """Window indices of ``split`` in ``{"train", "validation", "test"}``."""
        bounds = {
            "train": (0, self.train_end),
            "validation": (self.train_end, self.valid_end),
            "test": (self.valid_end, self.num_windows),
        }
        if split not in bounds:
            raise ValueError(f"split must be one of {list(bounds)}, got {split!r}")
        return range(*bounds[split])

    def arrays(self, split: str) -> tuple[np.ndarray, np.ndarray]:
        """``(X, y)`` of ``split``: X (B, w) int64 symbol indices, y (B,) int64 next symbols."""
        idx = np.asarray(self.split_range(split), dtype=np.int64)
        X = self.prefix_ids[idx[:, None] + np.arange(self.window)]
        return X, self.prefix_ids[idx + self.window]


def make_windows(
    seed: str,
    sequence_length: int = PAPER_SEQUENCE_LENGTH,
    window: int = PAPER_WINDOW,
    horizon: int = PAPER_HORIZON,
) -> RoteWindows:
    """Windows, split and rollout pair of ``seed`` (all lengths in symbols).

    Requires ``sequence_length ≥ window + horizon + 6`` so that every split is non-empty (the
    reference accepts less and then fails on an empty split).
    """
    check_symbols(seed, "seed")
    if not seed:
        raise ValueError("seed must be a non-empty string")
    w = check_int(window, "window", low=1)
    k = check_int(horizon, "horizon", low=1)
    n = check_int(sequence_length, "sequence_length")
    if n < w + k + MIN_WINDOWS:
        raise ValueError(
            f"sequence_length must be at least window + horizon + {MIN_WINDOWS} = {w + k + MIN_WINDOWS} "
            f"(window={w}, horizon={k}), got {n}"
        )
    stream = periodic_extension(seed, n)
    alphabet = "".join(sorted(set(seed)))
    lookup = {a: i for i, a in enumerate(alphabet)}
    prefix_ids = np.fromiter((lookup[a] for a in stream[: n - k]), dtype=np.int64, count=n - k)
    train_end, valid_end = split_bounds(n - k - w)
    return RoteWindows(
        seed=seed,
        sequence_length=n,
        window=w,
        horizon=k,
        alphabet=alphabet,
        prefix_ids=prefix_ids,
        train_end=train_end,
        valid_end=valid_end,
        context=stream[n - k - w : n - k],
        target=stream[n - k :],
    )
