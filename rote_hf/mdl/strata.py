"""MDL strata of swept sequences and the OEIS-scale statistics with explicit denominators.

A sweep row (see :func:`rote_hf.mdl.sweep.analyse`) carries ``regime`` (clean, revising,
prefix-only, no-fit at the term budget) and ``genuine_wilderness`` (prefix-only, still no
operator on all available terms, >= 40 terms). The LLM evaluation samples the strata clean,
revising and wilderness (genuine); n_id bins are an optional finer split.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

STRATA: tuple[str, ...] = ("clean", "revising", "wilderness", "prefix-only-other", "no-fit")
N_ID_BINS: tuple[str, ...] = ("<=7", "8-10", ">=11")

#: The strata the LLM evaluation samples, in the paper's order (tables list them so).
LLM_STRATA: tuple[str, ...] = ("clean", "revising", "wilderness")
#: The paper's LLM protocol (MDL paper §9; docs/llm.md): the first 20 terms are shown, the next 3 are asked for.
LLM_N_SHOWN = 20
LLM_K_NEXT = 3


def stratum(row: Mapping) -> str:
    """clean / revising / wilderness (genuine) / prefix-only-other (truncation or < 40 terms) / no-fit."""
    regime = row["regime"]
    if regime == "prefix-only":
        return "wilderness" if row.get("genuine_wilderness") else "prefix-only-other"
    if regime not in ("clean", "revising", "no-fit"):
        raise ValueError(f"row['regime'] must be one of clean, revising, prefix-only, no-fit, got {regime!r}")
    return regime


def llm_stratum(row: Mapping) -> str:
    """The stratum of a row handed to the LLM evaluation.

    A row of the frozen ``llm-eval`` sample carries its ``stratum`` (one of :data:`LLM_STRATA`,
    drawn with :func:`stratum`'s meaning); a sweep row (``regime``, ``genuine_wilderness``) is
    classified by :func:`stratum`, with two differences kept from the query runner's own rule
    (they name strata outside the sampled three, which the paper never reports): a prefix-only
    row that is not genuine wilderness is ``"prefix-only"`` (its regime) where :func:`stratum`
    says ``"prefix-only-other"``, and a regime outside the sweep's four (a user's own label) is
    used as it is instead of refused. A row with neither column raises ``ValueError``.
    """
    if row.get("stratum"):
        return str(row["stratum"])
    if row.get("genuine_wilderness"):
        return "wilderness"
    if "regime" in row:
        if row["regime"] in ("clean", "revising", "no-fit"):
            return stratum(row)
        return str(row["regime"])
    raise ValueError("rows must have a 'stratum' (llm-eval config) or a 'regime' (oeis config) column")


def n_id_bin(n_id: int | None) -> str | None:
    """The n_id bin: <=7, 8-10, >=11 (None without a full-length operator)."""
    if n_id is None:
        return None
    return "<=7" if n_id <= 7 else "8-10" if n_id <= 10 else ">=11"


def _share(num: int, den: int) -> dict:
    return {"num": num, "den": den, "share": (num / den) if den else None}


def summarize_regimes(rows: Iterable[Mapping]) -> dict:
    """Regime counts and the paper's statistics, each as {num, den, share}.

    - ``revision_rate``: revising / holonomic (the paper's denominator, 315/2780 = 11.3 %);
    - ``revision_rate_inflated``: (revising + prefix-only) / (holonomic + prefix-only), the
      misleading variant that counts prefix-only sequences (each has lost its operator, a
      structural revision) as holonomic revisers ("roughly fivefold" in the paper);
    - ``wilderness_genuine_share``: genuine wilderness / prefix-only (the paper's "89.98 %" =
      1698/1887 reading);
    - ``no_full_operator_share``: prefix-only / (holonomic + prefix-only), the literal reading
      of the paper's sentence (1887/4667 = 40.4 % in the released data);
    - ``nid_exact_nonrevisers``: n_d == n_id among clean sequences (91.9 % in the paper).
    """
    rows = list(rows)
    count = {k: sum(r["regime"] == k for r in rows) for k in ("clean", "revising", "prefix-only", "no-fit")}
    holonomic = count["clean"] + count["revising"]
    genuine = sum(bool(r.get("genuine_wilderness")) for r in rows)
    clean = [r for r in rows if r["regime"] == "clean"]
    exact = sum(r["discovery_point"] == r["n_id"] for r in clean)
    return {
        "n": len(rows),
        "regimes": count,
        "holonomic": holonomic,
        "revision_rate": _share(count["revising"], holonomic),
        "revision_rate_inflated": _share(count["revising"] + count["prefix-only"], holonomic + count["prefix-only"]),
        "wilderness_genuine_share": _share(genuine, count["prefix-only"]),
        "no_full_operator_share": _share(count["prefix-only"], holonomic + count["prefix-only"]),
        "nid_exact_nonrevisers": _share(exact, len(clean)),
    }


def format_summary(summary: Mapping) -> str:
    """One Markdown bullet per statistic, e.g. ``- revision_rate: 7/60 = 11.7 %``."""
    lines = [f"- sequences: {summary['n']}; regimes: " + ", ".join(f"{k} {v}" for k, v in summary["regimes"].items())]
    for key in ("revision_rate", "revision_rate_inflated", "wilderness_genuine_share", "no_full_operator_share",
                "nid_exact_nonrevisers"):
        s = summary[key]
        pct = "n/a" if s["share"] is None else f"{100 * s['share']:.1f} %"
        lines.append(f"- {key}: {s['num']}/{s['den']} = {pct}")
    return "\n".join(lines)
