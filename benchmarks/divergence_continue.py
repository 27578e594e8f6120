"""The reproduction's diverged runs again, under the reference's handling of divergence.

    PYTHONPATH=. OMP_NUM_THREADS=1 python benchmarks/divergence_continue.py   # runs or resumes, then writes the .md

Our CogScale protocol records a fit whose training loss is not finite as failed
(``on_divergence: fail``). The reference's ``run.py`` never checks the loss: training goes on with
the non-finite weights and early stopping restores the best weights from before
(``on_divergence: continue``, :mod:`rote_hf.protocols.cogscale`). This script takes every run of
``cogscale_paper`` shipped as failed (Mamba's and xLSTM's), trains each again with
``on_divergence: continue`` (config name ``cogscale_paper_continue``; same task, model, seed and
learning rate) into a results store beside this file (resumable: finished runs are kept), and
writes ``divergence_continue.md``: a summary per model, then per model each run and each affected
group compared with the published runs with the failed runs left out (as shipped) and with these
rows in their place. Every count, model, budget and learning rate in the text comes from the rows.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's rote_hf first

CONFIG_NAME = "cogscale_paper_continue"
GROUP = ["task", "difficulty", "budget", "model", "learning_rate"]


def continue_specs() -> list:
    """Every run of ``cogscale_paper`` shipped as failed, as a spec with ``on_divergence: continue``."""
    from rote_hf.results.shipped import shipped_provenance
    from rote_hf.train.config import SweepConfig, expand

    failed = {f["run_id"] for f in shipped_provenance()["failed"]}
    specs = [s for s in expand(SweepConfig.from_yaml(ROOT / "eval_suite" / "configs" / "cogscale_paper.yaml"))
             if s.run_id in failed]
    if len(specs) != len(failed):
        raise RuntimeError(f"{len(failed) - len(specs)} failed run ids are not in cogscale_paper.yaml")
    return [dataclasses.replace(s, config_name=CONFIG_NAME, protocol={**s.protocol, "on_divergence": "continue"},
                                settings=dataclasses.replace(s.settings, on_divergence="continue")) for s in specs]


# the implementation behind each model's rows, beside the published runs' (a sentence, not a number)
IMPLEMENTATIONS = {
    "Mamba": "ours is Mamba in pure torch on the CPU, the published runs used mamba_ssm's CUDA kernels",
    "xLSTM": "ours is xlstm 2.0.6 on the CPU through the `twin` sLSTM step in float32, the published runs "
             "used the library's 1.0.8 CUDA kernels in bfloat16",
}
# columns of the run and group tables beside the task, with the text that names their value
SETTINGS = {"config": ("difficulty", str), "budget": ("budget", str),
            "learning_rate": ("learning rate", lambda v: f"learning rate {v:g}")}


def words(items: list[str]) -> str:
    """``["a", "b", "c"]`` -> ``"a, b and c"``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def shared(rows) -> tuple[list[str], list[str]]:
    """The settings (difficulty, budget, learning rate) of ``rows``: the words for those every row
    shares, and the columns of those that vary (shown in the tables instead)."""
    same, varying = [], []
    for col, (_, name) in SETTINGS.items():
        values = rows[col].unique()
        (same.append(name(values[0])) if len(values) == 1 else varying.append(col))
    return same, varying


def report(store: Path) -> str:
    import pandas as pd

    from rote_hf.results import load
    from rote_hf.results.aggregate import REPRODUCTION_MODEL_NAMES, reproduction_report
    from rote_hf.results.reproduction import paired_runs
    from rote_hf.results.shipped import shipped_frame

    rows = load(store)
    rows = rows[rows.config_name == CONFIG_NAME].copy()
    rows["name"] = [REPRODUCTION_MODEL_NAMES.get(m, m) for m in rows.model]  # the report's (published) names
    rows = rows.sort_values(["name", "config", "budget", "learning_rate", "task", "run"])
    shipped = shipped_frame()
    # the groups of the diverged runs: as shipped (failed runs left out), and with these rows beside the shipped ones
    keys = rows[["task", "config", "budget", "name", "learning_rate"]].drop_duplicates()
    keys.columns = GROUP
    as_shipped = reproduction_report(shipped).merge(keys, on=GROUP)
    both = reproduction_report(pd.concat([shipped, rows.drop(columns="name")], ignore_index=True),
                               config_name=None).merge(keys, on=GROUP)
    twins = paired_runs(rows.drop(columns="name"), config_name=CONFIG_NAME).set_index(["model", "task", "seed"])["test_paper"]
    kept = paired_runs(shipped).merge(keys, on=GROUP)
    models = list(dict.fromkeys(rows.name))
    counts = rows.name.value_counts()
    same, _ = shared(rows)
    ok = rows[rows.status == "ok"]

    def twin(r) -> float:
        return twins.get((r["name"], r.task, r.run), float("nan"))

    out = [
        "# The diverged reproduction runs under the reference's divergence handling",
        "",
        "Produced by `PYTHONPATH=. OMP_NUM_THREADS=1 python benchmarks/divergence_continue.py` (store: "
        "`benchmarks/divergence_continue/`; rows `config_name=\"cogscale_paper_continue\"`, commits "
        f"{', '.join(sorted(set(rows.git_commit.str[:12])))}; config hashes in the rows).",
        "",
        f"{len(rows)} runs of `cogscale_paper` are shipped as failed: their training loss stopped being finite "
        f"({words([f'{counts[m]} {m}' for m in models])}"
        f"{', all ' + ', '.join(same) if same else ''}). "
        "The reference's `run.py` never checks the loss: it trains on with the non-finite weights, a NaN "
        "validation score never counts as an improvement (for a classifier, NaN logits argmax to the "
        "first class, which is scored), and early stopping restores the best weights. Here each run is "
        "trained again that way (`protocol: {on_divergence: continue}`).",
        "",
        "The published twin is the published run of the same group and seed (the seed drives data and "
        "initialisation on both sides). A group agrees when its mean is within 2 standard errors of the "
        "published mean (the report's rule, `reproduction_report`).",
        "",
        "| model | runs | finished ok | test score equal to its twin's (1e-6) | groups | agree as shipped | agree with these rows |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in models:
        mine, s, b = rows[rows.name == m], as_shipped[as_shipped.model == m], both[both.model == m]
        equal = sum(abs(r.score - twin(r)) <= 1e-6 for _, r in mine.iterrows())
        out.append(f"| {m} | {len(mine)} | {int((mine.status == 'ok').sum())} | {equal} | {len(b)} | "
                   f"{int(s.agree.sum())} | {int(b.agree.sum())} |")
    out += ["", f"{len(ok)} of {len(rows)} runs finish with a finite test score. Agreeing groups: "
            f"{int(as_shipped.agree.sum())} of {len(as_shipped)} as shipped, {int(both.agree.sum())} of "
            f"{len(both)} with these rows."]

    def side(frame, key) -> str:
        frame = frame.set_index(GROUP)
        if key not in frame.index:  # every run of the group failed: no row on our side
            return "0 | – | – | –"
        g = frame.loc[key]
        verdict = "–" if pd.isna(g.agree) else "yes" if g.agree else "no"
        return f"{g.n_ours} | {g.mean_ours:.4f} ± {g.std_ours:.4f} | {g.z:+.2f} | {verdict}"

    for m in models:
        mine = rows[rows.name == m]
        same, varying = shared(mine)
        heads = ["task", *[SETTINGS[c][0] for c in varying]]
        first = lambda r: " | ".join(str(r[c]) for c in ["task", *varying])  # noqa: E731
        out += ["", f"## {m}", "", f"{len(mine)} runs ({', '.join(same)})." if same else f"{len(mine)} runs.", "",
                f"| {' | '.join(heads)} | seed | status | first non-finite epoch | best epoch | epochs | test score | published twin |",
                "|" + "---|" * (len(heads) + 7)]
        for _, r in mine.iterrows():
            metrics, t = r.metrics or {}, twin(r)
            out.append(f"| {first(r)} | {r.run} | {r.status} | "
                       f"{int(metrics['diverged_epoch']) if 'diverged_epoch' in metrics else '–'} | "
                       f"{r.settings.get('best_epoch', '–') if r.status == 'ok' else '–'} | "
                       f"{int(r.epochs) if r.status == 'ok' else '–'} | "
                       f"{f'{r.score:.4f}' if r.status == 'ok' else r.error.splitlines()[0]} | "
                       f"{'–' if t != t else f'{t:.4f}'} |")
        equal = sum(abs(r.score - twin(r)) <= 1e-6 for _, r in mine.iterrows())
        k = kept[kept.model == m]
        note = f" ({IMPLEMENTATIONS[m]})" if m in IMPLEMENTATIONS else ""
        out += ["", f"{equal} of {len(mine)} test scores equal their published twin's within 1e-6; for comparison, "
                f"{int((k['diff'].abs() <= 1e-6).sum())} of the {len(k)} shipped runs of the same groups do{note}."]
        s, b = as_shipped[as_shipped.model == m], both[both.model == m]
        published = set(b.n_paper)
        against = f"the {published.pop()} published runs" if len(published) == 1 else "the published runs"
        settings = f" ({', '.join(same)})" if same else ""
        out += ["", f"Each {m} group{settings} against {against}: as shipped "
                "(failed runs left out) and with the rows above in their place.", "",
                f"| {' | '.join(heads)} | published mean ± std | shipped: n | mean ± std | z | agree | "
                "with these rows: n | mean ± std | z | agree |",
                "|" + "---|" * (len(heads) + 9)]
        for _, g in b.sort_values(GROUP).iterrows():
            key = tuple(g[c] for c in GROUP)
            label = " | ".join(str(g[c]) for c in ["task", *[{"config": "difficulty"}.get(v, v) for v in varying]])
            out.append(f"| {label} | {g.mean_paper:.4f} ± {g.std_paper:.4f} | {side(s, key)} | {side(b, key)} |")
        single = s[s.n_ours < 2].task.tolist()  # one run left: its variance is borrowed from the published side
        out += ["", f"Agreeing {m} groups: {int(s.agree.sum())} of {len(s)} as shipped, "
                f"{int(b.agree.sum())} of {len(b)} with these rows."
                + (f" As shipped, {words(single)} {'keeps' if len(single) == 1 else 'keep'} a single run, whose "
                   "variance is borrowed from the published side (the strict rule counts such a group as "
                   "disagreeing)." if single else "")]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=str(Path(__file__).with_suffix("")), help="results store (resumable)")
    parser.add_argument("--out", default=str(Path(__file__).with_suffix(".md")), help="markdown file to write")
    args = parser.parse_args(argv)

    from rote_hf.train.loop import run_specs

    run_specs(continue_specs(), args.results, retry_failed=False, fleet=1)
    Path(args.out).write_text(report(Path(args.results)))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
