"""Train a sweep config under its paper protocol and append one result row per run.

    accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no \
        --dynamo_backend no eval_suite/train.py --config eval_suite/configs/rote_smoke.yaml --processes 2
    python eval_suite/train.py --config eval_suite/configs/rote_smoke.yaml      # one process
    accelerate launch eval_suite/train.py                                       # the default: cogscale_smoke

``--config`` takes a path to a sweep YAML or the bare name of a shipped config (``rote_smoke``,
``cogscale_paper``, ...: the files of ``eval_suite/configs/``); given several times, the sweeps
run in one launch (``make demo`` trains both smoke sweeps so, paying the workers' start once).
Without it the CogScale smoke sweep runs, the quickest shipped sweep.

Runs (configurations) are dealt to processes through run claims (a free process takes the next
unclaimed run; several launches sharing one --results folder split the work); each fit runs alone
in its process, on ``cuda:{local_rank % gpus}`` when CUDA is present (docs/gpu.md). On CPU,
``accelerate launch --cpu --num_processes 2`` silently starts ONE process: use ``--multi_gpu`` as
above (the script uses ``Accelerator(cpu=True)`` when no GPU is present) and pass ``--processes``
so that a wrong launch is refused. Re-running the same command resumes: finished runs are
skipped, failed runs are kept as failed unless ``--retry-failed``; the runs of a config whose
rows ship with the package (``cogscale_paper``) count as finished unless ``--rerun-shipped``, and
those it ships as failed stay failed unless ``--retry-failed``.
``--only difficulty=small`` (repeatable; fields task, model, budget, difficulty, run) trains a
part of a sweep, with the same run ids. ``--mixed_precision`` other than ``no`` is refused:
every fit runs in float32.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
# what `accelerate launch eval_suite/train.py` runs: the quickest shipped sweep (measured side by side on
# this 2-core machine: cogscale_smoke 76 s vs rote_smoke 106 s on 2 processes, 220 s vs 288 s on one)
DEFAULT_CONFIG = "cogscale_smoke"
DEFAULT_LABEL = "the CogScale smoke sweep"


def shipped_configs() -> list[str]:
    """Names of the sweep configs shipped in ``eval_suite/configs/`` (file stems, sorted)."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))


def resolve_config(value: str | None) -> Path:
    """The sweep YAML for ``--config``: an existing file path, or the bare name of a shipped config
    (``rote_smoke`` or ``rote_smoke.yaml``); ``None`` gives the default, ``cogscale_smoke``.

    Raises ``ValueError`` naming ``--config`` and listing the shipped configs otherwise.
    """
    value = DEFAULT_CONFIG if value is None else value
    path = Path(value).expanduser()
    if path.is_file():
        return path
    shipped = CONFIG_DIR / (value if value.endswith((".yaml", ".yml")) else f"{value}.yaml")
    if "/" not in value and shipped.is_file():
        return shipped
    raise ValueError(f"--config: no such file or shipped config {value!r}; shipped configs: "
                     f"{', '.join(shipped_configs())} (or a path to a sweep YAML)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="eval_suite/train.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", action="append", default=None,
                        help=f"sweep YAML path or shipped config name ({', '.join(shipped_configs())}); "
                             f"repeatable: several sweeps in one launch; default: {DEFAULT_CONFIG}, {DEFAULT_LABEL}")
    parser.add_argument("--results", default="results", help="results folder (default: ./results)")
    parser.add_argument("--processes", type=int, default=None,
                        help="expected number of processes; the run stops if the launch gave another "
                             "(default: $WORLD_SIZE when set)")
    parser.add_argument("--retry-failed", action="store_true", help="re-run runs stored as failed")
    parser.add_argument("--fleet", default=None, metavar="K",
                        help="most runs trained together as one fleet (same architecture and shapes; a "
                             "member agrees with its one-run fit to float rounding, not bit for bit: "
                             "docs/train.md); 1 = one run at a time (default: 25)")
    parser.add_argument("--only", action="append", default=[], metavar="FIELD=VALUE[,VALUE]",
                        help="train only the runs with these values (repeatable; FIELD: task, model, budget, "
                             "difficulty, run, lr, seed), e.g. --only difficulty=small; run ids are unchanged")
    parser.add_argument("--rerun-shipped", action="store_true",
                        help="also train the runs whose rows ship with the package (rote_hf/results/ours/; "
                             "by default a shipped config's shipped runs count as finished)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.add_argument("--no-table", action="store_true", help="do not print the summary table at the end")
    parser.add_argument("--collective-timeout", type=float, default=None, metavar="SECONDS",
                        help="timeout of the processes' gloo collectives (default: one week; the sweep itself "
                             "never waits in a collective at the end, so this only bounds the start-up barrier)")
    parser.add_argument("--allow-mixed-devices", action="store_true",
                        help="resume even if the results folder holds rows of this sweep trained on another "
                             "device kind (CPU vs CUDA)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    from rote_hf.command import run_command

    # the same error handling as `rote-hf`: bad input -> one line, exit 2; an environmental error
    # (a read-only results folder, --results under a file) -> one line naming the path, exit 1
    return run_command(train, args, prog="train.py")


def train(args: argparse.Namespace) -> int:
    """Train the sweep of ``args`` (parsed by :func:`main`); the exit status."""
    from rote_hf.results import load
    from rote_hf.train import SweepConfig, expand, make_accelerator, run_specs
    from rote_hf.train.config import select
    from rote_hf.train.fleet import DEFAULT_FLEET_SIZE

    fleet = DEFAULT_FLEET_SIZE if args.fleet is None else _fleet_size(args.fleet)
    if fleet is None:
        print(f"train.py: error: --fleet must be an integer >= 1 (1 = one run at a time), got {args.fleet!r}",
              file=sys.stderr)
        return 2

    # a bad config (unknown key, model or task, YAML syntax error with its line and column) raises
    # ValueError before any work: run_command prints it as the last line of this script (under
    # `accelerate launch` only the launcher's own report of the exit status follows it)
    configs, specs = [], []
    for value in args.config or [None]:  # each config is checked before any run starts
        path = resolve_config(value)
        config = SweepConfig.from_yaml(path)
        selected = select(expand(config), args.only)
        if value is None and os.environ.get("RANK", "0") == "0":
            print(f"train.py: no --config given: running the default, {DEFAULT_LABEL} ({path})", flush=True)
        configs.append(config)
        specs += selected if args.rerun_shipped else skip_shipped(selected, config.name, retry_failed=args.retry_failed)
    requested = args.processes or (int(os.environ["WORLD_SIZE"]) if "WORLD_SIZE" in os.environ else None)
    accelerator = make_accelerator(collective_timeout=args.collective_timeout)  # ValueError: exit 2
    make_results_folder(args.results)  # after every check of the input: bad input writes nothing
    if accelerator.num_processes == 1 and os.environ.get("ACCELERATE_USE_CPU", "").lower() == "true" and requested is None:
        logging.warning("accelerate launch --cpu runs a single process; use --multi_gpu with --processes N on CPU")
    try:
        report = run_specs(specs, args.results, accelerator=accelerator, requested_processes=requested,
                           retry_failed=args.retry_failed, progress=not args.no_progress,
                           allow_mixed_devices=args.allow_mixed_devices, fleet=fleet)
    except (RuntimeError, ValueError) as exc:
        print(f"train.py: error: {exc}", file=sys.stderr)
        return 2
    if report.stopped:
        print(f"train.py: error: rank {report.rank}: {report.stopped}", file=sys.stderr)
        return 3
    logging.info("rank %d/%d: %d ok, %d failed, %d skipped as already stored", report.rank, report.world,
                 len(report.ok), len(report.failed), report.skipped)
    if accelerator.is_main_process and not args.no_table:
        frame = load(args.results)
        for suite in dict.fromkeys(c.suite for c in configs):
            print(summary_table(frame, suite))
    return 0


def skip_shipped(specs: list, config_name: str, *, retry_failed: bool = False) -> list:
    """``specs`` less the runs that ship with the package for config ``config_name``
    (:mod:`rote_hf.results.shipped`): its rows, and the runs its JSON lists as failed unless
    ``retry_failed`` (as for runs stored as failed). On a new machine a resumed reproduction sweep
    trains only what is missing, and ``rote-hf results --export-reproduction`` adds the new rows to
    the shipped ones."""
    from rote_hf.results.shipped import SHIPPED_CONFIGS, SHIPPED_DIR, shipped_failed_run_ids, shipped_run_ids

    if config_name not in SHIPPED_CONFIGS:
        return specs
    failed = set() if retry_failed else shipped_failed_run_ids(config_name)
    shipped = shipped_run_ids(config_name) | failed
    todo = [s for s in specs if s.run_id not in shipped]
    if len(todo) < len(specs) and os.environ.get("RANK", "0") == "0":
        n_failed = sum(s.run_id in failed for s in specs)
        print(f"train.py: {len(specs) - len(todo)} of these {len(specs)} runs ship with the package "
              f"({SHIPPED_DIR / config_name}.parquet) and count as finished, {n_failed} of them as failed "
              "(--retry-failed trains the failed ones again, --rerun-shipped all of them)", flush=True)
    return todo


def make_results_folder(value: str) -> Path:
    """The ``--results`` folder, created now (parents too), so that a read-only place or a path
    under a regular file stops the sweep before any work with an ``OSError`` naming the path
    (one line, exit 1) instead of in the middle of the first run."""
    path = Path(value)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a regular file (or a link to one) is in the way
        raise NotADirectoryError(errno.ENOTDIR, "--results is not a directory", value) from None
    return path


def _fleet_size(text: str) -> int | None:
    """``--fleet`` as an integer >= 1, or None when it is not one."""
    try:
        value = int(text)
    except ValueError:
        return None
    return value if value >= 1 else None


def summary_table(frame, suite: str) -> str:
    """The suite's one summary table (the same that ``rote-hf results --view <suite>`` prints)."""
    from rote_hf.suites import get_suite

    return get_suite(suite).summary_table(frame)


if __name__ == "__main__":
    sys.exit(main())
