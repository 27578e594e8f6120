"""How exactly shipped CogScale runs come back at HEAD: alone with the recorded thread count, alone
with 2 threads, and as fleet members (issue 30, "exactness stated as measured").

    PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 5 python benchmarks/reproducibility.py   # runs or resumes, then writes the .md

Draws ``--n`` shipped ``cogscale_paper`` rows (small difficulty, GRU / LSTM / Transformer /
Transformer-ED at 1k and 10k, on the cheaper tasks so that the whole fits in about an hour of one
CPU core) with :func:`rote_hf.reports.verify.stratified_sample` stratified by (model, learning
rate), so every learning rate, 1e-2 included, has its share. Each drawn run is trained three
times with the full shipped protocol (no epoch is cut), and each fit is compared with the
shipped row by :func:`rote_hf.reports.verify.compare` (the ``rote-hf results --verify-sample``
verdicts: equal within 1e-6, within 1e-3 with the same stopping epoch, or different):

- ``alone``: the one-run executor with the row's recorded thread count (1: the small rows predate
  the field and were trained with one thread per process);
- ``alone-2t``: the same with 2 intra-op threads;
- ``fleet``: the drawn runs grouped as ``train.py`` groups fleets
  (:func:`rote_hf.train.fleet.plan_fleets`: same task, model entry, budget and protocol but the
  learning rate; data shapes split again) and trained together by
  :func:`rote_hf.train.fleet.run_fleet`, one thread. Also compared with ``alone``.

Resumable: every fit's result goes into ``reproducibility.json`` beside this file
(:func:`rote_hf.files.write_atomic`, after each fit), and a run again skips what is there.
``--report-only`` writes the Markdown from the cache without training. ``--experiment`` runs the
reduction-order experiment (a few seconds; cached in ``reproducibility_reduction.json``): member
and one-run forward and backward compared bit for bit, the fleet's batched products against a
per-member loop of the one-run products, with their speed.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's rote_hf first

CACHE = Path(__file__).with_name("reproducibility.json")
REDUCTION = Path(__file__).with_name("reproducibility_reduction.json")
ARMS = ("alone", "alone-2t", "fleet")
THREADS = {"alone": 1, "alone-2t": 2, "fleet": 1}
# tasks with a mean shipped fit under ~1.3 s for these models: the whole benchmark fits in about an hour
CHEAP_TASKS = ("adding_problem", "associative_recall", "bracket_matching", "chaotic_forecasting", "cross_situation",
               "induction_heads", "sinus_forecasting", "sorting_problem")


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "rote_hf"], cwd=ROOT,
                           capture_output=True, text=True).stdout
    return out.strip() + ("+dirty" if dirty.strip() else "")


def drawn_pool(n: int, seed: int, models, budgets, tasks, difficulty: str):
    """The shipped rows to re-run (metrics decoded), in draw order, and their specs by run id."""
    from rote_hf.reports.verify import specs_by_run_id, stratified_sample
    from rote_hf.results.aggregate import decode_metrics
    from rote_hf.results.shipped import shipped_frame

    rows = shipped_frame("cogscale_paper")
    rows = rows[(rows["status"] == "ok") & (rows["config"] == difficulty) & rows["budget"].isin(budgets)
                & rows["model"].isin(models) & rows["task"].isin(tasks)].sort_values("run_id")
    _, specs = specs_by_run_id(["cogscale_paper"])
    rows = decode_metrics(rows[rows["run_id"].isin(set(specs))]).reset_index(drop=True)
    picked = rows.iloc[stratified_sample(rows, n, seed, by=("model", "learning_rate"))].reset_index(drop=True)
    return picked, specs, len(rows)


def _entry(verified, new, seconds: float, commit: str, **extra) -> dict:
    return {"verdict": verified.verdict, "gap": verified.max_abs_diff, "score": verified.score_now,
            "epochs": verified.epochs_now, "status": new.status, "error": verified.error,
            "metrics": dict(new.metrics), "cpu_s": seconds, "threads": verified.threads, "commit": commit, **extra}


def _save(cache: dict, path: Path) -> None:
    from rote_hf.files import write_atomic

    write_atomic(path, (json.dumps(cache, indent=0, sort_keys=True, default=_plain) + "\n").encode())


def _plain(value):
    return value.item() if hasattr(value, "item") else str(value)  # numpy scalars


def run(args) -> dict:
    import torch
    from tqdm.auto import tqdm

    from rote_hf.protocols.device import environment
    from rote_hf.reports.verify import compare, rerun
    from rote_hf.train.fleet import plan_fleets, run_fleet

    torch.set_num_threads(1)
    cache = json.loads(args.cache.read_text()) if args.cache.is_file() else {}
    picked, specs, pool = drawn_pool(args.n, args.seed, args.models, args.budgets, args.tasks, args.difficulty)
    env = environment()
    cache.setdefault("runs", {})
    cache["draw"] = {"n": args.n, "seed": args.seed, "models": args.models, "budgets": args.budgets,
                     "tasks": args.tasks, "difficulty": args.difficulty, "pool": pool, "fleet": args.fleet,
                     "run_ids": list(picked["run_id"])}
    cache.setdefault("environments", [])
    here = {k: env[k] for k in ("cpu_capability", "torch", "torch_build")}
    if here not in cache["environments"]:
        cache["environments"].append(here)
    cache.setdefault("commands", [])
    command = "PYTHONPATH=. OMP_NUM_THREADS=1 nice -n 5 python " + shlex.join(["benchmarks/reproducibility.py",
                                                                            *sys.argv[1:]])
    if command not in cache["commands"]:
        cache["commands"].append(command)
    commit = _commit()
    rows = {r["run_id"]: r for _, r in picked.iterrows()}
    runs = cache["runs"]
    done = sum(len(runs.get(rid, {}).get("arms", {})) for rid in rows)
    bar = tqdm(total=3 * len(rows), initial=done, unit="fit", desc="reproducibility", file=sys.stderr,
               dynamic_ncols=True)
    fallbacks: list[str] = []

    class _Catch(logging.Handler):
        def emit(self, record):
            fallbacks.append(record.getMessage())

    logging.getLogger("rote_hf.train").addHandler(_Catch(level=logging.WARNING))
    units = plan_fleets([specs[rid] for rid in rows], args.fleet)
    for unit in units:
        for spec in unit:
            rec = runs.setdefault(spec.run_id, {"arms": {}})
            row = rows[spec.run_id]
            rec.update(model=row["model"], task=row["task"], budget=row["budget"],
                       learning_rate=float(row["learning_rate"]), seed=int(row["data_seed"]),
                       score_shipped=float(row["score"]), epochs_shipped=int(row["epochs"]),
                       commit_shipped=row["git_commit"][:7])
            for arm in ("alone", "alone-2t"):
                if arm in rec["arms"]:
                    continue
                t0 = time.process_time()
                new = rerun(spec, THREADS[arm])
                rec["arms"][arm] = _entry(compare(row, new, THREADS[arm]), new, time.process_time() - t0, commit)
                _save(cache, args.cache)
                bar.update()
        todo = [s for s in unit if "fleet" not in runs[s.run_id]["arms"]]
        if todo:
            # the whole unit again, so that each member trains in the fleet it was drawn into
            fallbacks.clear()
            t0 = time.process_time()
            new_rows = run_fleet(unit, "cpu")
            seconds = (time.process_time() - t0) / len(unit)
            for spec, new in zip(unit, new_rows):
                rec = runs[spec.run_id]
                if "fleet" in rec["arms"]:
                    continue
                rec["arms"]["fleet"] = _entry(compare(rows[spec.run_id], new, 1), new, seconds, commit,
                                              fleet_size=len(unit), fell_back=bool(fallbacks))
                bar.update()
            _save(cache, args.cache)
    bar.close()
    return cache


# ---------------------------------------------------------------------------------------------- report

def _verdict_vs(a: dict, b: dict) -> str:
    from rote_hf.reports.verify import metric_gap, verdict

    if a["status"] != "ok" or b["status"] != "ok":
        return "equal 1e-6" if a["status"] == b["status"] != "ok" else "different"
    return verdict(metric_gap(a["metrics"], b["metrics"]), a["epochs"] == b["epochs"])


def comparisons(cache: dict) -> list[dict]:
    """One record per drawn run with all three arms done: its verdict in each comparison."""
    out = []
    for rid in cache["draw"]["run_ids"]:
        rec = cache["runs"].get(rid)
        if not rec or set(rec["arms"]) != set(ARMS):
            continue
        arms = rec["arms"]
        out.append({"run_id": rid, **{k: rec[k] for k in ("model", "task", "budget", "learning_rate", "seed",
                                                           "score_shipped", "epochs_shipped")},
                    "alone": arms["alone"]["verdict"], "alone-2t": arms["alone-2t"]["verdict"],
                    "fleet": arms["fleet"]["verdict"],
                    "2t vs alone": _verdict_vs(arms["alone"], arms["alone-2t"]),
                    "fleet vs alone": _verdict_vs(arms["alone"], arms["fleet"]),
                    "fleet_size": arms["fleet"]["fleet_size"], "fell_back": arms["fleet"]["fell_back"],
                    "scores": {a: arms[a]["score"] for a in ARMS},
                    "epochs": {a: arms[a]["epochs"] for a in ARMS},
                    "cpu_s": {a: arms[a]["cpu_s"] for a in ARMS}})
    return out


COMPARISONS = (("alone", "(a) alone, 1 thread vs shipped"), ("alone-2t", "(b) alone, 2 threads vs shipped"),
               ("2t vs alone", "(b') alone, 2 threads vs alone, 1 thread"),
               ("fleet", "(c) fleet member vs shipped"), ("fleet vs alone", "(c') fleet member vs alone, 1 thread"))


def _fractions(records: list[dict], key: str) -> str:
    from rote_hf.reports.verify import VERDICTS

    n = len(records)
    if not n:
        return "–"
    parts = []
    for v in VERDICTS:
        c = sum(r[key] == v for r in records)
        parts.append(f"{c} ({100 * c / n:.1f} %)")
    return " / ".join(parts)


def _table(records: list[dict], by: str, label) -> list[str]:
    keys = sorted({r[by] for r in records}, key=lambda v: (-v if isinstance(v, float) else v))
    lines = [f"| {by.replace('_', ' ')} | runs | " + " | ".join(k for k, _ in COMPARISONS) + " |",
             "|---|---|" + "---|" * len(COMPARISONS)]
    for k in keys:
        rs = [r for r in records if r[by] == k]
        cells = []
        for key, _ in COMPARISONS:
            cells.append("/".join(str(sum(r[key] == v for r in rs)) for v in ("equal 1e-6", "equal 1e-3", "different")))
        lines.append(f"| {label(k)} | {len(rs)} | " + " | ".join(cells) + " |")
    return lines


def summary_sentence(records: list[dict]) -> str:
    """The measured fractions in one sentence (README and docs/train.md quote it)."""
    n = len(records)

    def pct(key, verdicts):
        c = sum(r[key] in verdicts for r in records)
        return f"{c}/{n} ({100 * c / n:.0f} %)"

    return (f"Re-running {n} shipped CogScale small runs at HEAD on the machine that trained them: alone with "
            f"the recorded thread count, {pct('alone', ('equal 1e-6',))} come back within 1e-6 and "
            f"{pct('alone', ('equal 1e-6', 'equal 1e-3'))} within 1e-3 with the same stopping epoch; with 2 "
            f"threads, {pct('alone-2t', ('equal 1e-6',))} and {pct('alone-2t', ('equal 1e-6', 'equal 1e-3'))}; "
            f"as fleet members, {pct('fleet', ('equal 1e-6',))} and {pct('fleet', ('equal 1e-6', 'equal 1e-3'))} "
            f"(against the one-run fit: {pct('fleet vs alone', ('equal 1e-6',))} and "
            f"{pct('fleet vs alone', ('equal 1e-6', 'equal 1e-3'))}).")


def report(cache: dict, reduction: dict | None) -> str:
    records = comparisons(cache)
    draw = cache["draw"]
    asked = len(draw["run_ids"])
    commits = sorted({a["commit"] for rec in cache["runs"].values() for a in rec["arms"].values()})
    shipped_commits = sorted({cache["runs"][r["run_id"]]["commit_shipped"] for r in records})
    envs = cache["environments"]
    lines = ["# Reproducibility of shipped runs at HEAD: threads and fleets (`benchmarks/reproducibility.py`)", ""]
    lines += ["```bash", *cache["commands"], "```", ""]
    lines += [f"- **Commit(s) of the re-runs:** {', '.join(commits)}; shipped rows trained at "
              f"{', '.join(shipped_commits)} (fleets of 25, one thread per process: "
              "`benchmarks/reproduction_sweep.sh`).",
              "- **CPU capability, torch:** " + "; ".join(f"{e['cpu_capability']}, torch {e['torch']} "
                                                          f"({e['torch_build']})" for e in envs)
              + ". The shipped small rows predate `settings[\"environment\"]`; they were trained on this machine "
                "(`cpu: AMD EPYC`), so the capability is the same.",
              f"- **Draw:** {asked} of the {draw['pool']} shipped `cogscale_paper` rows of {draw['difficulty']} "
              f"difficulty, models {', '.join(draw['models'])}, budgets {', '.join(draw['budgets'])}, tasks "
              f"{', '.join(draw['tasks'])}; stratified by (model, learning rate), seed {draw['seed']}. Every fit "
              "runs the full shipped protocol (patience 10, at most 200 epochs, batch 10).",
              f"- **Done:** {len(records)} of {asked} runs with all three arms."
              + ("" if len(records) == asked else " (The run was stopped before the end; the tables cover the "
                 "finished runs.)"), ""]
    if not records:
        return "\n".join(lines + ["Nothing finished yet."]) + "\n"
    fleets = [r for r in records if r["fleet_size"] > 1]
    singles = len(records) - len(fleets)
    fell = sum(r["fell_back"] for r in records)
    lines += ["## Summary", "", summary_sentence(records), "",
              "Verdicts as `rote-hf results --verify-sample`: equal within 1e-6 (every metric, same stopping "
              "epoch) / equal within 1e-3 (same stopping epoch) / different.", "",
              "| comparison | equal 1e-6 | equal 1e-3 | different |", "|---|---|---|---|"]
    for key, label in COMPARISONS:
        lines.append(f"| {label} | " + " | ".join(_fractions(records, key).split(" / ")) + " |")
    sizes = sorted({r["fleet_size"] for r in records})
    lines += ["", f"Fleets: the drawn runs formed fleets of {min(sizes)} to {max(sizes)} members "
              f"(train.py's grouping of the drawn runs); {singles} runs were alone in their group and ran "
              f"the one-run path; {fell} fleets fell back to the one-run path.", ""]
    if fleets and singles:
        lines += [f"Fleet members only (the {len(fleets)} runs in fleets of 2 or more): vs shipped "
                  f"{_fractions(fleets, 'fleet')}; vs alone {_fractions(fleets, 'fleet vs alone')}.", ""]
    lines += ["## Per model", "", "Cells: equal 1e-6 / equal 1e-3 / different.", ""]
    lines += _table(records, "model", str)
    lines += ["", "## Per learning rate", ""]
    lines += _table(records, "learning_rate", lambda v: f"{v:g}")
    lines += ["", "## Per budget", ""]
    lines += _table(records, "budget", str)
    diff = [r for r in records if any(r[k] != "equal 1e-6" for k, _ in COMPARISONS)]
    lines += ["", "## Runs not equal within 1e-6 somewhere", "",
              "| model | task | budget | lr | seed | shipped score (epochs) | alone | 2 threads | fleet (K) |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(diff, key=lambda r: (r["model"], r["task"], r["budget"], -r["learning_rate"], r["seed"])):
        s, e = r["scores"], r["epochs"]
        lines.append(f"| {r['model']} | {r['task']} | {r['budget']} | {r['learning_rate']:g} | {r['seed']} | "
                     f"{r['score_shipped']:.6g} ({r['epochs_shipped']}) | {s['alone']:.6g} ({e['alone']}) | "
                     f"{s['alone-2t']:.6g} ({e['alone-2t']}) | {s['fleet']:.6g} ({e['fleet']}, {r['fleet_size']}) |")
    cpu = {a: sum(r["cpu_s"][a] for r in records) for a in ARMS}
    lines += ["", "## CPU time", "",
              "Process CPU seconds (the machine was shared with two training sweeps; `alone-2t` counts both "
              "threads): " + ", ".join(f"{a} {cpu[a]:.0f} s" for a in ARMS) + ".", ""]
    lines += reduction_section(reduction)
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------- reduction experiment

def _loop_bmm(a, b):
    import torch

    return torch.stack([torch.mm(x, y) for x, y in zip(a, b)])


def _loop_baddbmm(c, a, b):
    import torch

    return torch.stack([torch.addmm(z.expand(x.shape[0], y.shape[1]) if z.shape[0] == 1 else z, x, y)
                        for z, x, y in zip(c, a, b)])


def _loop_matmul(a, b):
    import torch

    return torch.stack([torch.matmul(x, y) for x, y in zip(a, b)])


def reduction_experiment(k: int = 4, repeats: int = 5) -> dict:
    """For GRU, LSTM, Transformer and Transformer-ED (cogscale-paper preset, 1k and 10k), K members
    built from seeds 0..K-1: one-run forward and backward (sum of outputs) against the fleet forward
    with (1) the fleet's batched products and (2) the batched products replaced by a per-member loop of
    the one-run products (``torch.mm`` / ``addmm`` / ``matmul``); with (3) oneDNN off in the one-run
    path. Counts the members whose outputs and gradients are bit-identical, the largest difference,
    and the CPU seconds of a forward+backward of each."""
    import torch
    from unittest import mock

    from rote_hf.cogscale import build_task
    from rote_hf.protocols.cogscale import CogScaleData
    from rote_hf.protocols.fleet import flat_fleet
    from rote_hf.suites.execution import model_builder
    from rote_hf.zoo import fleet as zf

    torch.set_num_threads(1)
    data = CogScaleData.from_build(build_task("adding_problem", "small", seed=0))
    x = torch.as_tensor(data.X_train[:10], dtype=torch.float32) if hasattr(data, "X_train") else None
    out: dict = {"k": k, "task": "adding_problem small, batch 10", "models": {}}
    for model_name in ("gru", "lstm", "transformer", "transformer-ed"):
        for budget in (1000, 10000):
            build = model_builder({"name": model_name, "preset": "cogscale-paper", "budget": budget},
                                  data.input_size, data.output_size)
            members = []
            for s in range(k):
                torch.manual_seed(s)
                members.append(build().train())
            xb = x if x is not None else torch.randn(10, 12, data.input_size)
            forward = zf.fleet_forward(members[0])

            def one_run(mkldnn: bool = True):
                outs, grads = [], []
                with torch.backends.mkldnn.flags(enabled=mkldnn):
                    for s, m in enumerate(members):
                        torch.manual_seed(100 + s)  # dropout masks: the same draws in both paths
                        m.zero_grad()
                        y = m(xb)
                        y.sum().backward()
                        outs.append(y.detach())
                        grads.append(torch.cat([p.grad.reshape(-1) for p in m.parameters()]))
                return outs, grads

            def fleet(loop: bool):
                fl = flat_fleet(members)
                gens = []
                for s in range(k):
                    g = torch.Generator()
                    g.manual_seed(100 + s)
                    gens.append(g)
                patches = [mock.patch.object(zf.torch, "bmm", _loop_bmm),
                           mock.patch.object(zf.torch, "baddbmm", _loop_baddbmm),
                           mock.patch.object(zf.torch, "matmul", _loop_matmul)] if loop else []
                for p in patches:
                    p.start()
                try:
                    y = forward(fl.params(), xb.expand(k, *xb.shape), zf.MemberDropout(gens))
                    (g,) = torch.autograd.grad(y.sum(), fl.flat)
                finally:
                    for p in patches:
                        p.stop()
                grads = [g[fl.member == i] for i in range(k)]
                return list(y.detach()), grads

            def timed(fn, *a):
                fn(*a)
                t0 = time.process_time()
                for _ in range(repeats):
                    fn(*a)
                return (time.process_time() - t0) / repeats

            ref_out, ref_grad = one_run()
            cell = {}
            for name, (outs, grads) in {"fleet": fleet(False), "fleet, per-member loop": fleet(True),
                                        "one-run, oneDNN off": one_run(False)}.items():
                cell[name] = {
                    "outputs_equal": sum(bool(torch.equal(a, b)) for a, b in zip(ref_out, outs)),
                    "grads_equal": sum(bool(torch.equal(a, b)) for a, b in zip(ref_grad, grads)),
                    "max_out_diff": max(float((a - b).abs().max()) for a, b in zip(ref_out, outs)),
                    "max_grad_diff": max(float((a - b).abs().max()) for a, b in zip(ref_grad, grads))}
            cell["cpu_s"] = {"one-run x K": timed(one_run), "fleet": timed(fleet, False),
                             "fleet, per-member loop": timed(fleet, True)}
            out["models"][f"{model_name} {budget // 1000}k"] = cell
            print(model_name, budget, json.dumps(cell), flush=True)
    return out


def reduction_section(reduction: dict | None) -> list[str]:
    lines = ["## Can a fleet follow the one-run arithmetic exactly?", ""]
    if reduction is None:
        return lines + ["Not measured yet (`--experiment`).", ""]
    k = reduction["k"]
    lines += [f"One forward and backward (sum of the outputs) of {k} members built from seeds 0-{k - 1}, on one "
              f"batch of {reduction['task']}, one thread, dropout masks drawn from the same generators in "
              "both paths. Against the one-run module of each member (oneDNN on, as in training): members "
              f"(of {k}) whose outputs / parameter gradients are bit-identical, the largest difference, and "
              "CPU ms of one forward+backward of all members.", "",
              "| model | fleet (batched products) | fleet, per-member loop of the one-run products | "
              "one-run with oneDNN off | CPU ms: one-run x K / fleet / fleet loop |", "|---|---|---|---|---|"]
    for name, cell in reduction["models"].items():
        def fmt(c):
            return (f"{c['outputs_equal']}/{k} out, {c['grads_equal']}/{k} grad (max {c['max_out_diff']:.1g} / "
                    f"{c['max_grad_diff']:.1g})")
        t = cell["cpu_s"]
        lines.append(f"| {name} | {fmt(cell['fleet'])} | {fmt(cell['fleet, per-member loop'])} | "
                     f"{fmt(cell['one-run, oneDNN off'])} | {1e3 * t['one-run x K']:.1f} / {1e3 * t['fleet']:.1f} / "
                     f"{1e3 * t['fleet, per-member loop']:.1f} |")
    return lines + [""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300, help="shipped runs to draw")
    parser.add_argument("--seed", type=int, default=0, help="draw seed")
    parser.add_argument("--models", nargs="+", default=["gru", "lstm", "transformer", "transformer-ed"])
    parser.add_argument("--budgets", nargs="+", default=["1k", "10k"])
    parser.add_argument("--tasks", nargs="+", default=list(CHEAP_TASKS))
    parser.add_argument("--difficulty", default="small")
    parser.add_argument("--fleet", type=int, default=25, help="most members a fleet (train.py's --fleet)")
    parser.add_argument("--cache", type=Path, default=CACHE, help="per-fit results (JSON); the .md is written beside it")
    parser.add_argument("--report-only", action="store_true", help="write the .md from the cache, train nothing")
    parser.add_argument("--experiment", action="store_true", help="run the reduction-order experiment (cached)")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error(f"--n must be >= 1, got {args.n}")
    from rote_hf.files import write_atomic

    if args.experiment:
        reduction = reduction_experiment()
        write_atomic(REDUCTION, (json.dumps(reduction, indent=1) + "\n").encode())
    if not args.report_only and not args.experiment:
        run(args)
    if not args.cache.is_file():
        print(f"nothing measured yet ({args.cache} does not exist)", file=sys.stderr)
        return 1
    reduction = json.loads(REDUCTION.read_text()) if REDUCTION.is_file() else None
    text = report(json.loads(args.cache.read_text()), reduction)
    write_atomic(args.cache.with_suffix(".md"), text.encode())
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
