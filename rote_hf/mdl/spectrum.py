"""The revision spectrum: the MDL learner run on every prefix, and its landmarks.

For each prefix length n = n_min..N (n_min = 6),

    L(n)   = min(L(H*_n), L_lit(n))        (a hypothesis wins only if strictly cheaper)
    R(n)   = L(n+1) - L(n)
    rho(n) = R(n) / (L_lit(n+1) - L_lit(n))   (the denominator includes the length-code change)

rho = 1: the new term was stored at full cost (nothing learned); rho = 0: it came free.
Every live (r, d) pair is re-solved at every prefix; only pairs with a *trivial* nullspace are
skipped afterwards (the dead-pair memo), which is exact. Keeping the incumbent while it still
fits is *not* exact and is not offered.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from rote_hf.mdl.codes import check_terms, literal_costs
from rote_hf.mdl.guess import CANDIDATES, SLACK, Hypothesis, IncrementalGuesser, WindowRows, guess, validate_settings

N_MIN = 6
LITERAL = "literal"
REGIMES: tuple[str, ...] = ("clean", "revising", "prefix-only", "no-fit")
SOLVERS: tuple[str, ...] = ("incremental", "resolve")


@dataclass(frozen=True)
class Spectrum:
    """One sequence's trajectory. Lists indexed by prefix; ``n_values[k]`` is its length.

    ``L``, ``L_lit``, ``signatures`` and ``hypotheses`` have one entry per prefix; ``R`` and
    ``rho`` have one fewer (they compare prefix n with n+1). ``hypothesis`` is the full-length
    selected H* (None when verbatim wins at full length).
    """

    terms: tuple[int, ...]
    n_values: tuple[int, ...]
    L: tuple[int, ...]
    L_lit: tuple[int, ...]
    signatures: tuple[object, ...]
    hypotheses: tuple[Hypothesis | None, ...] = field(repr=False)
    slack: int = SLACK

    @property
    def N(self) -> int:
        return self.n_values[-1] if self.n_values else len(self.terms)

    @property
    def R(self) -> tuple[int, ...]:
        return tuple(b - a for a, b in zip(self.L, self.L[1:]))

    @property
    def rho(self) -> tuple[float, ...]:
        dlit = [b - a for a, b in zip(self.L_lit, self.L_lit[1:])]
        return tuple(r / d for r, d in zip(self.R, dlit))

    @property
    def hypothesis(self) -> Hypothesis | None:
        return self.hypotheses[-1] if self.hypotheses else None

    @property
    def discovery_point(self) -> int | None:
        """n_d: the first prefix length whose state is not literal."""
        return next((n for n, s in zip(self.n_values, self.signatures) if s != LITERAL), None)

    @property
    def stabilisation_point(self) -> int | None:
        """First n after which the signature never changes (n_min when it never changes at all)."""
        if not self.signatures:
            return None
        k = len(self.signatures) - 1
        while k > 0 and self.signatures[k - 1] == self.signatures[-1]:
            k -= 1
        return self.n_values[k]

    @property
    def n_revisions(self) -> int:
        """All signature changes between consecutive prefixes."""
        s = self.signatures
        return sum(a != b for a, b in zip(s, s[1:]))

    @property
    def n_struct_revisions(self) -> int:
        """Signature changes at or after n_d (a refutation and a re-discovery each count)."""
        nd = self.discovery_point
        if nd is None:
            return 0
        s = self.signatures[self.n_values.index(nd) :]
        return sum(a != b for a, b in zip(s, s[1:]))

    @property
    def refutations(self) -> tuple[int, ...]:
        """Prefix lengths at which a held operator fell back to literal."""
        s, ns = self.signatures, self.n_values
        return tuple(ns[k + 1] for k in range(len(s) - 1) if s[k] != LITERAL and s[k + 1] == LITERAL)

    @property
    def n_id(self) -> int | None:
        """Identifiability threshold of the full-length H*."""
        h = self.hypothesis
        return None if h is None else (h.order + 1) * (h.degree + 1) + self.slack + h.order

    @property
    def n_x(self) -> int | None:
        """Profitability threshold: first n with L_lit(s_1..n) > L(H*) for the full-length H*."""
        h = self.hypothesis
        if h is None:
            return None
        costs = literal_costs(self.terms)
        return next((n for n in range(1, len(self.terms) + 1) if costs[n] > h.cost), None)

    @property
    def predicted_discovery(self) -> int | None:
        """max(n_id, n_x)."""
        if self.n_id is None or self.n_x is None:
            return None
        return max(self.n_id, self.n_x)

    @property
    def limit(self) -> str | None:
        """'identification' when n_id >= n_x, 'compression' otherwise; None without H*."""
        if self.n_id is None:
            return None
        return "identification" if self.n_x is not None and self.n_id >= self.n_x else "compression"

    @property
    def compression_ratio(self) -> float:
        """lambda = L(N) / L_lit(N)."""
        return self.L[-1] / self.L_lit[-1] if self.L else 1.0

    @property
    def regime(self) -> str:
        """clean / revising (operator at full length, 0 or >=1 structural revisions),
        prefix-only (a prefix fit but no full-length operator: the wilderness), or no-fit."""
        if self.hypothesis is not None:
            return "revising" if self.n_struct_revisions else "clean"
        return "prefix-only" if self.discovery_point is not None else "no-fit"

    def summary(self) -> dict:
        """The per-sequence landmarks as a flat dict (JSON-friendly)."""
        h = self.hypothesis
        return {
            "n_terms": len(self.terms),
            "regime": self.regime,
            "discovery_point": self.discovery_point,
            "stabilisation_point": self.stabilisation_point,
            "n_revisions": self.n_revisions,
            "n_struct_revisions": self.n_struct_revisions,
            "n_id": self.n_id,
            "n_x": self.n_x,
            "order": None if h is None else h.order,
            "degree": None if h is None else h.degree,
            "L_H": None if h is None else h.cost,
            "L_lit": self.L_lit[-1] if self.L_lit else None,
            "compression_ratio": self.compression_ratio,
        }


def spectrum(
    terms: Iterable[int],
    *,
    max_order: int = 6,
    max_degree: int = 4,
    encoding: str = "loose",
    slack: int = SLACK,
    n_min: int = N_MIN,
    backend: str = "flint",
    bound: str = "none",
    memo: bool = True,
    solver: str = "incremental",
    candidates: str = "rref",
) -> Spectrum:
    """Run the learner on every prefix n_min..len(terms) of ``terms``.

    ``solver="incremental"`` (default) solves each (r, d) once and carries its canonical basis
    to longer prefixes exactly (:class:`~rote_hf.mdl.guess.IncrementalGuesser`);
    ``solver="resolve"`` re-solves every live pair at every prefix with ``backend``. ``memo``
    enables the sound dead-pair skip (``memo=False`` implies a plain re-solve). The output is
    identical in every combination. ``candidates="lll"`` (optional, changes the numbers) uses
    LLL-reduced nullspace bases and always re-solves.
    """
    if candidates not in CANDIDATES:
        raise ValueError(f"candidates must be one of {list(CANDIDATES)}, got {candidates!r}")
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {list(SOLVERS)}, got {solver!r}")
    seq = check_terms(terms, min_terms=1)
    validate_settings(max_order, max_degree, slack, encoding, bound)
    if isinstance(n_min, bool) or not isinstance(n_min, int) or n_min < 1:
        raise ValueError(f"n_min must be an int >= 1, got {n_min!r}")
    if len(seq) < n_min:
        raise ValueError(f"terms must have at least n_min={n_min} terms, got {len(seq)}")
    lit = literal_costs(seq)
    settings = dict(max_order=max_order, max_degree=max_degree, slack=slack, encoding=encoding, backend=backend, bound=bound)
    incremental = IncrementalGuesser(seq, **settings) if memo and solver == "incremental" and candidates == "rref" else None
    dead: set[tuple[int, int]] | None = set() if memo else None
    rows_cache = WindowRows(seq)
    ns, Ls, sigs, hyps = [], [], [], []
    for n in range(n_min, len(seq) + 1):
        if incremental is not None:
            h = incremental.guess(n, lit[n])
        else:
            h = guess(seq[:n], **settings, best_bits=lit[n], dead=dead, rows_cache=rows_cache, candidates=candidates, _checked=True)
        ns.append(n)
        Ls.append(lit[n] if h is None else h.cost)
        sigs.append(LITERAL if h is None else h.signature)
        hyps.append(h)
    return Spectrum(
        terms=tuple(seq),
        n_values=tuple(ns),
        L=tuple(Ls),
        L_lit=tuple(lit[n] for n in ns),
        signatures=tuple(sigs),
        hypotheses=tuple(hyps),
        slack=slack,
    )
