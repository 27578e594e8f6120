"""Aggregation of result rows into the papers' tables, with intervals over seeds.

Input: a DataFrame from :func:`rote_hf.results.load` (JSON columns decoded). Only rows with
``status == "ok"`` and ``source == "ours"`` are aggregated unless said otherwise; failed runs
are counted in a ``failed`` column so that they are never silently dropped.

- :func:`rote_summary`: ROTE per-model summary (the archive's ``summary_by_model`` figures plus
  the paper Table 2/3 exact-rollout rate), optionally per (n, c).
- :func:`cogscale_table`: CogScale mean ± std per task × difficulty × model × budget, with the
  learning rate chosen on **validation** (the paper's stated protocol, the default) or on
  **test** (how the published ``mean_std.md`` was made: test scores clipped at 1, per-LR means
  rounded to 2 dp, lowest mean test score, ties to the smaller LR). The column
  ``lr_selection`` labels which.
- :func:`leaderboard`: suite-agnostic: headline score mean ± std and a 95 % t-interval per
  (suite, task, config, model, budget).
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from rote_hf.registry import resolve_object
from rote_hf.results.shipped import shipped_frame
from rote_hf.results.store import rows_to_frame

LR_SELECTIONS = ("validation", "test")


def t_interval(values: Iterable[float], level: float = 0.95) -> tuple[float, float]:
    """Two-sided Student-t interval of the mean (``(nan, nan)`` for fewer than two finite values)."""
    import numpy as np

    x = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    if len(x) < 2:
        return (math.nan, math.nan)
    from scipy.stats import t

    half = t.ppf(0.5 + level / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
    return (float(x.mean() - half), float(x.mean() + half))


def _ours(df, suite: str | None = None, source: str = "ours"):
    if "source" in df:
        df = df[df["source"] == source]
    if suite is not None:
        df = df[df["suite"] == suite]
    return df


def _metric(df, name: str):
    import pandas as pd

    return pd.Series([m.get(name, math.nan) if isinstance(m, dict) else math.nan for m in df["metrics"]],
                     index=df.index, dtype=float)


#: Per-fit columns :func:`rote_stats` reads (a missing column counts as all-NaN).
ROTE_FIT_COLUMNS = ("DL", "JW", "exact", "test_loss", "test_accuracy", "param_count", "train_time_s",
                    "time_per_epoch_s", "epochs", "peak_cuda_mb", "peak_cpu_mb")


def rote_stats(ok) -> dict[str, float]:
    """The ROTE figures of a group of finished fits, one flat row per fit (columns
    :data:`ROTE_FIT_COLUMNS`): test loss median/mean, accuracy mean, DL mean/sd/95 % CI, JW mean,
    exact-rollout rate, medians of train time, time/epoch, epochs, peak CUDA/CPU MB and parameters.
    The one aggregation behind :func:`rote_summary` and the leaderboard's ROTE board."""
    import pandas as pd

    def col(name: str):
        return ok[name].astype(float) if name in ok else pd.Series(math.nan, index=ok.index, dtype=float)

    dl = col("DL")
    lo, hi = t_interval(dl)
    return {
        "test_loss_median": col("test_loss").median(), "test_loss_mean": col("test_loss").mean(),
        "test_accuracy_mean": col("test_accuracy").mean(),
        "DL_mean": dl.mean(), "DL_sd": dl.std(ddof=1), "DL_ci95_low": lo, "DL_ci95_high": hi,
        "JW_mean": col("JW").mean(), "exact_rate": col("exact").mean(),
        "train_time_median_s": col("train_time_s").median(), "time_per_epoch_median_s": col("time_per_epoch_s").median(),
        "epochs_median": col("epochs").median(), "peak_cuda_mb_median": col("peak_cuda_mb").median(),
        "peak_cpu_mb_median": col("peak_cpu_mb").median(), "params": col("param_count").median(),
    }


def rote_summary(df, *, suite: str = "rote", by: tuple[str, ...] = ("model",), source: str = "ours"):
    """ROTE figures per ``by`` (``"model"``, ``"n"``, ``"c"``): fits, failed and :func:`rote_stats`.
    Rows without a rollout metric (published table cells) are left out; ``source="paper"``
    aggregates the archived per-fit rows."""
    import pandas as pd

    df = _ours(df, suite, source).copy()
    df = df[[("exact" in m) or ("DL" in m) or s == "failed" for m, s in zip(df["metrics"], df["status"])]]
    df["n"] = [p.get("symbols") for p in df["task_params"]]
    df["c"] = [p.get("complexity") for p in df["task_params"]]
    keys = list(by)
    out = []
    for key, g in df.groupby(keys, sort=True):
        ok = g[g["status"] == "ok"]
        flat = pd.DataFrame({name: _metric(ok, name) for name in ("DL", "JW", "exact", "test_loss", "test_accuracy")})
        for name in ROTE_FIT_COLUMNS[5:]:
            flat[name] = ok[name]
        rec = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        rec.update({"fits": len(ok), "failed": int((g["status"] == "failed").sum()), **rote_stats(flat)})
        out.append(rec)
    return pd.DataFrame(out)


def cogscale_table(df, *, lr_selection: str = "validation", clip: bool | None = None, source: str = "ours"):
    """CogScale mean ± std over seeds at the selected learning rate (see the module docstring).

    ``clip`` (default: True for ``"test"``, False for ``"validation"``) clips test scores at 1
    before averaging, as the published table did. ESN rows (no LR) form a single configuration.
    ``source`` picks our runs (``"ours"``) or the published per-run rows (``"paper"``).
    """
    import numpy as np
    import pandas as pd

    if lr_selection not in LR_SELECTIONS:
        raise ValueError(f"lr_selection must be one of {LR_SELECTIONS}, got {lr_selection!r}")
    clip = (lr_selection == "test") if clip is None else clip
    df = _ours(df, "cogscale", source=source).copy()
    failed = df[df["status"] == "failed"].groupby(["task", "config", "model", "budget"]).size()
    df = df[df["status"] == "ok"].copy()
    df["test"] = _metric(df, "test_score")
    if clip:
        df["test"] = df["test"].clip(upper=1.0)
    df["val"] = _metric(df, "best_val_score")
    df["lr"] = df["learning_rate"].fillna(-1.0)  # ESN: one pseudo-LR
    out = []
    for (task, difficulty, model, budget), g in df.groupby(["task", "config", "model", "budget"], sort=True):
        per_lr = g.groupby("lr").agg(val=("val", "mean"), test=("test", "mean"))
        if lr_selection == "test":
            crit = per_lr["test"].round(2)
        else:
            crit = per_lr["val"] if per_lr["val"].notna().any() else per_lr["test"]
        # lowest criterion; ties -> smaller LR (index is sorted ascending)
        lr = float(crit.index[int(np.nanargmin(crit.to_numpy()))]) if crit.notna().any() else float(per_lr.index[0])
        scores = g.loc[g["lr"] == lr, "test"].dropna()
        lo, hi = t_interval(scores)
        out.append({
            "task": task, "difficulty": difficulty, "model": model, "budget": budget,
            "learning_rate": None if lr < 0 else lr, "lr_selection": lr_selection, "seeds": len(scores),
            "failed": int(failed.get((task, difficulty, model, budget), 0)),
            # the per-LR mean the selection saw (summation order matters at the 2-dp rounding of
            # the published table: 0.565 vs 0.5650000000000001)
            "mean": float(per_lr.loc[lr, "test"]), "std": scores.std(ddof=1), "ci95_low": lo, "ci95_high": hi,
        })
    return pd.DataFrame(out)


def leaderboard(df, *, include_paper: bool = False):
    """Headline score per (suite, task, config, model, budget): mean, std, 95 % CI, runs, failed."""
    import pandas as pd

    if not include_paper and "source" in df:
        df = df[df["source"] == "ours"]
    out = []
    keys = ["suite", "task", "config", "model", "budget", "source", "score_name"]
    for key, g in df.groupby(keys, sort=True, dropna=False):
        ok = g[g["status"] == "ok"]
        scores = ok["score"].astype(float)
        lo, hi = t_interval(scores)
        rec: dict[str, Any] = dict(zip(keys, key))
        rec.update({"runs": len(ok), "failed": int((g["status"] == "failed").sum()), "score_mean": scores.mean(),
                    "score_std": scores.std(ddof=1), "ci95_low": lo, "ci95_high": hi,
                    "lower_is_better": bool(g["lower_is_better"].iloc[0]),
                    "params": ok["param_count"].median(), "train_time_median_s": ok["train_time_s"].median()})
        out.append(rec)
    return pd.DataFrame(out)


def format_table(frame, columns: list[str] | None = None, digits: int = 4) -> str:
    """A plain-text table (no extra dependency) for consoles and logs."""
    if frame is None or len(frame) == 0:
        return "(no rows)"
    cols = columns or list(frame.columns)

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return "nan" if math.isnan(v) else f"{v:.{digits}g}"
        return str(v)

    rows = [[cell(v) for v in rec] for rec in frame[cols].itertuples(index=False)]
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    line = "  ".join(c.ljust(w) for c, w in zip(cols, widths))
    return "\n".join([line, "  ".join("-" * w for w in widths)] + ["  ".join(v.ljust(w) for v, w in zip(r, widths)) for r in rows])


# -- reproduction report (issue 13): our runs against the published per-run results ----------------

import functools as _functools  # noqa: E402 -- kept with the section it serves

from rote_hf.zoo.display import DISPLAY_NAMES, PUBLISHED_ALIASES, display_name  # noqa: E402 -- the one name table

#: Our zoo (registry) names and the papers' names that differ -> the one display name of
#: :mod:`rote_hf.zoo.display`, so that both sides of the reproduction meet on the name every other
#: tab shows (``transformer`` and CogScale's ``TransformerDecoder`` -> ``Transformer``).
REPRODUCTION_MODEL_NAMES = {**DISPLAY_NAMES, **{alias: display_name(alias) for alias in PUBLISHED_ALIASES}}
REPRODUCTION_KEYS = ("task", "difficulty", "budget", "model", "learning_rate")
AGREE_ATOL = 1e-6
"""Absolute slack of the agreement test: the same count ratio printed from float32 (the paper,
CUDA) and float64 (ours) differs by ~1e-8; it matters only where both stds are 0."""


def per_run_scores(df, *, source: str = "ours", config_name: str | None = None):
    """Result rows -> one frame of finite CogScale test scores: :data:`REPRODUCTION_KEYS` (published
    model names; ESN learning rate -1), ``seed`` and ``test``. Keeps ``source``, ``status == "ok"``
    and (unless ``None``) ``config_name``; ``metrics`` may be dicts or JSON text."""
    import pandas as pd

    df = _ours(df, "cogscale", source)
    df = decode_metrics(df[df["status"] == "ok"])
    if config_name is not None and "config_name" in df:
        df = df[df["config_name"] == config_name]
    out = pd.DataFrame({
        "task": df["task"].to_numpy(), "difficulty": df["config"].to_numpy(), "budget": df["budget"].to_numpy(),
        "model": [REPRODUCTION_MODEL_NAMES.get(m, m) for m in df["model"]],
        # ESN has no learning rate: -1 keeps it a group key (NaN keys do not join reliably)
        "learning_rate": pd.to_numeric(df["learning_rate"], errors="coerce").round(12).fillna(-1.0).to_numpy(),
        "seed": pd.to_numeric(df["data_seed"]).to_numpy(),
        "test": _metric(df, "test_score").to_numpy(),
    })
    return out[out["test"].notna()].reset_index(drop=True)


#: The rules of agreement a report carries, by the column that holds each (:func:`reproduction_report`).
AGREEMENT_RULES = {"ours": "agree", "strict": "agree_strict", "paired": "agree_paired"}
TWO_SE = 2.0
"""The threshold of every rule, in standard errors of the difference (``|diff| <= 2 se + AGREE_ATOL``)."""


def diverged_runs(df, *, source: str = "ours", config_name: str | None = None):
    """The CogScale runs of ``df`` that left no finite test score: failed rows whose error says the
    training loss was not finite (``diverged``), and ``ok`` rows whose test score is not finite (the
    published side's diverged runs). One row per run: :data:`REPRODUCTION_KEYS` (as
    :func:`per_run_scores` writes them) and ``seed``."""
    import numpy as np
    import pandas as pd

    df = _ours(df, "cogscale", source)
    if config_name is not None and "config_name" in df:
        df = df[df["config_name"] == config_name]
    df = decode_metrics(df)
    errors = (df["error"].fillna("").astype(str) if "error" in df else pd.Series("", index=df.index))
    test = _metric(df, "test_score").to_numpy()
    lost = (((df["status"] == "failed") & errors.str.contains("not finite|diverged", regex=True)).to_numpy()
            | ((df["status"] == "ok").to_numpy() & ~np.isfinite(test)))
    df = df[lost]
    return pd.DataFrame({
        "task": df["task"].to_numpy(), "difficulty": df["config"].to_numpy(), "budget": df["budget"].to_numpy(),
        "model": [REPRODUCTION_MODEL_NAMES.get(m, m) for m in df["model"]],
        "learning_rate": pd.to_numeric(df["learning_rate"], errors="coerce").round(12).fillna(-1.0).to_numpy(),
        "seed": pd.to_numeric(df["data_seed"]).to_numpy(),
    })


def seed_twins(ours, paper, *, config_name: str | None = "cogscale_paper"):
    """Each of our finite test scores beside its published twin: the same :data:`REPRODUCTION_KEYS`
    and ``seed`` (the seed drives the data and the initialisation on both sides), with
    ``test_ours``, ``test_paper`` and ``diff = test_ours - test_paper`` (score units)."""
    mine = per_run_scores(ours, source="ours", config_name=config_name).rename(columns={"test": "test_ours"})
    theirs = per_run_scores(paper, source="paper").rename(columns={"test": "test_paper"})
    out = mine.merge(theirs, on=[*REPRODUCTION_KEYS, "seed"], how="inner")
    out["diff"] = out["test_ours"] - out["test_paper"]
    return out


def welch_df(n_ours, n_paper):
    """Welch-Satterthwaite degrees of freedom of the difference of two means of ``n_ours`` and
    ``n_paper`` runs with equal variances (the null of the agreement test): ``2n - 2`` for n vs n."""
    import numpy as np

    a, b = 1.0 / np.asarray(n_ours, float), 1.0 / np.asarray(n_paper, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (a + b) ** 2 / (a ** 2 / (np.asarray(n_ours, float) - 1) + b ** 2 / (np.asarray(n_paper, float) - 1))


def null_agreement(dof: float, k: float = TWO_SE) -> float:
    """The chance that ``|diff| <= k se`` when nothing differs: ``P(|T| <= k)`` for Student's t with
    ``dof`` degrees of freedom (normal scores; 0.939 for Welch's 10 vs 10 runs, 0.923 for 10 pairs)."""
    from scipy.stats import t

    return float(2.0 * t.cdf(k, dof) - 1.0) if dof > 0 else math.nan


def reproduction_report(ours=None, paper=None, *, config_name: str | None = "cogscale_paper", clip: bool = False):
    """Our CogScale runs against the published per-run results, group by group, under three rules.

    ``ours``: result rows (a :func:`rote_hf.results.load` frame; default: the rows shipped with
    the package, :mod:`rote_hf.results.shipped`); only ``source == "ours"``, ``suite ==
    "cogscale"`` rows of config ``config_name`` (``None``: any) are used: ``ok`` rows for the
    scores, failed rows for :func:`diverged_runs`.
    ``paper``: the published rows (default: the 25,760 runs of
    :func:`rote_hf.results.published.cogscale_run_rows`). Model names are matched through
    :data:`REPRODUCTION_MODEL_NAMES` (the report uses the published names).

    One row per group (task, difficulty, budget, model, learning rate; ESN: NaN) with runs on
    both sides (finite scores, or runs that diverged): ``n_*`` finite test scores (diverged runs
    are not counted; a group whose runs all diverged on a side has ``n = 0``, NaN mean), their
    ``mean_*`` and ``std_*`` (ddof 1), ``diverged_*`` (runs of the group that left no finite
    score: :func:`diverged_runs`), ``diff = mean_ours - mean_paper``, and

    - **our rule** (``agree``): ``se = sqrt(s_o**2/n_o + s_p**2/n_p)`` (Welch's standard error of
      the difference; when one side has a single run, its variance is taken from the other side,
      i.e. equal variances are assumed; with a single run on both sides ``se`` is NaN),
      ``z = diff / se`` (0 when both are 0, ±inf when only ``se`` is 0), and
      ``agree = |diff| <= 2 se + AGREE_ATOL`` (nullable boolean, NA when ``se`` is NaN);
    - **the strict rule** (``agree_strict``, never NA): agrees only where our rule agrees with no
      borrowed variance (at least 2 finite runs on each side) and no diverged run on either side;
      a group with fewer than 2 surviving runs on a side, or with a diverged run, counts as
      disagreeing (its variance, or its full sample, is not there to test). So the strict
      figure is a lower bound of ours: same test, more groups counted against it;
    - **the paired rule** (``agree_paired``): our seed s and the published seed s share the data
      and the initialisation, so they are twins (:func:`seed_twins`): ``n_pairs``, the mean
      ``diff_paired`` and ``se_paired = sd(d) / sqrt(n_pairs)`` of the twin differences, and
      ``agree_paired = |diff_paired| <= 2 se_paired + AGREE_ATOL`` (NA with fewer than 2 pairs).

    ``clip`` clips test scores at 1 first (the published table did; off by default: the runs are
    compared as recorded). ``category`` and ``cause`` (a known, documented reason for a
    difference, or ``""``: :func:`rote_hf.results.reproduction.known_cause`) are added. Sorted by
    the group keys.
    """
    import numpy as np
    import pandas as pd

    # The causes and categories live in rote_hf.results.reproduction, which imports this module:
    # reached by reference at call time, so that the two modules form no import circle.
    known_cause = resolve_object("rote_hf.results.reproduction:known_cause")
    task_categories = resolve_object("rote_hf.results.reproduction:task_categories")
    if ours is None:
        ours = shipped_frame()
    if paper is None:
        paper = published_cogscale_runs()
    for name, frame in (("ours", ours), ("paper", paper)):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"{name} must be a pandas DataFrame of result rows, got {type(frame).__name__}")
    keys = list(REPRODUCTION_KEYS)
    sides = []
    for label, frame in (("ours", ours), ("paper", paper)):
        cfg = config_name if label == "ours" else None
        scores = per_run_scores(frame, source=label, config_name=cfg)
        if clip:
            scores["test"] = scores["test"].clip(upper=1.0)
        g = scores.groupby(keys, sort=True)["test"]
        lost = diverged_runs(frame, source=label, config_name=cfg).groupby(keys).size()
        side = pd.DataFrame({f"n_{label}": g.size(), f"mean_{label}": g.mean(), f"std_{label}": g.std(ddof=1)})
        side = side.join(lost.rename(f"diverged_{label}"), how="outer")  # a group may have diverged runs only
        sides.append(side.fillna({f"n_{label}": 0, f"diverged_{label}": 0}))
    table = sides[0].join(sides[1], how="inner").reset_index()
    n_o, n_p = table["n_ours"].to_numpy(float), table["n_paper"].to_numpy(float)
    v_o, v_p = table["std_ours"].to_numpy(float) ** 2, table["std_paper"].to_numpy(float) ** 2
    v_o = np.where(n_o < 2, v_p, v_o)  # a single run: borrow the other side's variance
    v_p = np.where(n_p < 2, v_o, v_p)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.where((n_o < 1) | (n_p < 1), np.nan, np.sqrt(v_o / n_o + v_p / n_p))
        diff = table["mean_ours"].to_numpy(float) - table["mean_paper"].to_numpy(float)
        z = np.where(diff == 0, 0.0, diff / se)
    table["diff"], table["se"], table["z"] = diff, se, z
    agree = pd.array(np.abs(diff) <= TWO_SE * se + AGREE_ATOL, dtype="boolean")
    agree[np.isnan(se)] = pd.NA
    table["agree"] = agree
    for col in ("diverged_ours", "diverged_paper"):
        table[col] = table[col].fillna(0).astype(int)
    table["agree_strict"] = (agree.fillna(False).to_numpy(bool) & (n_o >= 2) & (n_p >= 2)
                             & (table["diverged_ours"].to_numpy() == 0) & (table["diverged_paper"].to_numpy() == 0))
    # the paired rule over seed twins
    twins = seed_twins(ours, paper, config_name=config_name)
    if clip:
        twins["diff"] = twins["test_ours"].clip(upper=1.0) - twins["test_paper"].clip(upper=1.0)
    pg = twins.groupby(keys, sort=True)["diff"]
    paired = pd.DataFrame({"n_pairs": pg.size(), "diff_paired": pg.mean(), "sd_paired": pg.std(ddof=1)})
    table = table.merge(paired.reset_index(), on=keys, how="left")
    n_pairs = table["n_pairs"].fillna(0).to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        se_paired = table["sd_paired"].to_numpy(float) / np.sqrt(n_pairs)
    se_paired[n_pairs < 2] = np.nan
    table["n_pairs"] = n_pairs.astype(int)
    table["se_paired"] = se_paired
    agree_paired = pd.array(np.abs(table["diff_paired"].to_numpy(float)) <= TWO_SE * se_paired + AGREE_ATOL,
                            dtype="boolean")
    agree_paired[np.isnan(se_paired)] = pd.NA
    table["agree_paired"] = agree_paired
    table = table.drop(columns="sd_paired")
    table["learning_rate"] = table["learning_rate"].where(table["learning_rate"] >= 0)
    categories = task_categories()
    table.insert(5, "category", [categories.get(t, "") for t in table["task"]])
    table["cause"] = [known_cause(t, d, b, m) for t, d, b, m in
                      zip(table["task"], table["difficulty"], table["budget"], table["model"])]
    for col in ("n_ours", "n_paper"):
        table[col] = table[col].astype(int)
    return table


def decode_metrics(frame):
    """A frame whose ``metrics`` column holds dicts (decodes JSON text; leaves dicts as they are)."""
    import json

    if any(isinstance(v, str) for v in frame["metrics"]):
        frame = frame.copy()
        frame["metrics"] = [(json.loads(v) if v else {}) if isinstance(v, str) else v for v in frame["metrics"]]
    return frame


def published_cogscale_runs():
    """CogScale's 25,760 published runs as a frame (JSON columns as text); built once per process
    (the leaderboard asks on every request), a copy each call."""
    return _published_cogscale_runs().copy()


@_functools.lru_cache(maxsize=1)
def _published_cogscale_runs():
    from rote_hf.results.published import cogscale_run_rows  # lazy: imports numpy

    return rows_to_frame(cogscale_run_rows(), decode_json=False)
