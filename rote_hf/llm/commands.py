"""``rote-hf llm-query`` (= ``python eval_suite/llm_query.py``) and ``rote-hf llm-serve``."""

from __future__ import annotations

import argparse
import math
import re
import signal
import sys
from pathlib import Path

from rote_hf.argtypes import PLAIN_INT, int_in
from rote_hf.command import run_command
from rote_hf.llm import (
    NetworkPolicy, PromptConfig, RetryPolicy, evaluate_llm, format_table, items_from_rows, load_sample_rows, make_responder,
    make_server, per_stratum,
)
from rote_hf.llm.runner import format_failures
from rote_hf.mdl.strata import LLM_K_NEXT, LLM_N_SHOWN

_FLOAT = re.compile(r"[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|\.[0-9]+([eE][-+]?[0-9]+)?")


def _seconds(text: str) -> float:
    """argparse type of ``--timeout``: a plain decimal number of seconds in (0, 3600]."""
    value = float(text) if _FLOAT.fullmatch(text) else math.nan
    if not 0 < value <= 3600:  # NaN fails too
        raise argparse.ArgumentTypeError(f"must be a number of seconds in (0, 3600], got {text[:40]!r}")
    return value

QUERY_HELP = "ask an LLM to continue MDL-stratified integer sequences; print metrics per stratum; store rows"


def _seed(text: str) -> int | None:
    if text.lower() == "none":
        return None
    if not PLAIN_INT.fullmatch(text) or not 0 <= int(text) <= 2**63 - 1:
        raise argparse.ArgumentTypeError(f"must be an integer in 0..2**63-1 or 'none', got {text[:40]!r}")
    return int(text)


def add_query_arguments(p: argparse.ArgumentParser) -> None:
    """The options of the query command (shared by ``rote-hf llm-query`` and eval_suite/llm_query.py)."""
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--base-url", help="OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1")
    src.add_argument("--local", metavar="PATH", help="a local transformers model folder (text-generation)")
    p.add_argument("--model", help="model name sent to the server (required with --base-url; "
                                   "with --local: the name used in results, default local:<folder>)")
    p.add_argument("--per-stratum", type=int_in(1, 1_000_000), default=None, metavar="K",
                   help="first K sequences of each stratum (1..1000000)")
    p.add_argument("--results", default="results", metavar="DIR", help="results folder (default: ./results)")
    p.add_argument("--dataset", default="rote/oeis-mdl",
                   help="dataset path or repo id, or a .json/.jsonl file of rows (default: rote/oeis-mdl)")
    p.add_argument("--dataset-config", default="llm-eval", help="dataset config (default: llm-eval; 'oeis' for all)")
    p.add_argument("--split", default=None, help="dataset split (default: the only one)")
    p.add_argument("--n-shown", type=int_in(1, 1000), default=LLM_N_SHOWN,
                   help=f"terms shown, 1..1000 (paper: {LLM_N_SHOWN})")
    p.add_argument("--k-next", type=int_in(1, 50), default=LLM_K_NEXT, help=f"terms to predict, 1..50 (paper: {LLM_K_NEXT})")
    p.add_argument("--max-tokens", type=int_in(1, 1_000_000), default=1024,
                   help="reply budget in tokens, 1..1000000 (paper: 400, see docs/llm.md)")
    p.add_argument("--seed", type=_seed, default=0, help="sampling seed sent to the server, or 'none' (default: 0)")
    p.add_argument("--timeout", type=_seconds, default=60.0,
                   help="seconds for each whole request: connect, headers and full reply, (0, 3600] (default: 60)")
    p.add_argument("--deadline", type=_seconds, default=None, metavar="SECONDS",
                   help="seconds for the whole query, every call and retry together, (0, 3600] "
                        "(default: none; sequences not answered by then are api_error)")
    p.add_argument("--public-only", action="store_true",
                   help="refuse loopback, private, link-local and other non-public addresses, as the Space "
                        "does (hosts in $ROTE_LLM_ALLOWED_HOSTS excepted); default: every address")
    p.add_argument("--retries", type=int_in(0, 10), default=3,
                   help="retries on 5xx/408/429/timeouts/answers without content, 0..10 (default: 3)")
    p.add_argument("--concurrency", type=int_in(1, 64), default=4, help="requests in flight, 1..64 (default: 4)")
    p.add_argument("--json-mode", action="store_true", help='send response_format={"type": "json_object"}')
    p.add_argument("--cache", default=None, metavar="DIR", help="reply cache folder (default: <results>/llm_cache)")
    p.add_argument("--compare-paper", action="store_true", help="also print the paper's published rows")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _check_folder(path: str | None, flag: str) -> None:
    """Refuse a folder option that names a file, or lies under one, before any request is made."""
    if path is None:
        return
    p = Path(path)
    for q in (p, *p.parents):
        if q.exists():
            if not q.is_dir():
                raise NotADirectoryError(f"{flag} {path}: {q} is a file, not a folder")
            return


def run_query(args: argparse.Namespace) -> int:
    """Run the query command; errors propagate (the caller prints them in one line)."""
    _check_folder(args.results, "--results")
    _check_folder(args.cache, "--cache")

    prompt = PromptConfig(n_shown=args.n_shown, k_next=args.k_next)
    if args.base_url is not None:
        if not args.model:
            raise ValueError("--model is required with --base-url")
        responder = make_responder("openai", base_url=args.base_url, model=args.model, max_tokens=args.max_tokens,
                                   seed=args.seed, timeout_s=args.timeout, retry=RetryPolicy(max_retries=args.retries),
                                   json_mode=args.json_mode,
                                   network=NetworkPolicy.public_only() if args.public_only else NetworkPolicy.any_address())
        responder.check_address()  # a refused address: one line, before anything is read or stored
    else:
        responder = make_responder("local", path=args.local, max_new_tokens=args.max_tokens, model_id=args.model)
    rows = load_sample_rows(args.dataset, config=args.dataset_config, split=args.split)
    items = per_stratum(items_from_rows(rows, prompt), args.per_stratum)
    seeds = {r.get("seed") for r in rows}
    data_seed = next(iter(seeds)) if len(seeds) == 1 and None not in seeds else None
    is_file = str(args.dataset).endswith((".json", ".jsonl"))
    report = evaluate_llm(items, responder, results=args.results, cache_dir=args.cache, prompt=prompt,
                          concurrency=args.concurrency, progress=not args.no_progress, data_seed=data_seed,
                          sample_name=Path(args.dataset).name if is_file else args.dataset_config,
                          deadline_s=args.deadline)

    print(format_table(report.summary, responder.model_id))
    print(f"\n{len(report.records)} sequences: {report.n_asked} asked, {report.n_cached} from the cache; "
          f"{len(report.appended)} result rows appended to {args.results}"
          + (f", {len(report.already_stored)} already stored" if report.already_stored else ""))
    incomplete = [r.task for r in report.rows if r.status == "failed"]
    if incomplete:
        print(f"incomplete (calls failed, stored as failed): {', '.join(incomplete)}; run the same command "
              "again to retry only those calls")
    print(format_failures(report.records))
    if report.log_path:
        print(f"per-sample log: {report.log_path}")
    if args.compare_paper:
        from rote_hf.results.published import mdl_llm_rows  # lazy: imports numpy

        by_model: dict[str, dict] = {}
        for row in mdl_llm_rows():
            by_model.setdefault(row.model, {})[row.task] = row.metrics
        print("\npublished (MDL paper, 20 terms shown, max_tokens 400):")
        for model, summary in by_model.items():
            print(format_table(summary, model) + "\n")
    if all(r.parsed.status == "api_error" for r in report.records):
        # nothing came back: a wrong URL, a closed port, a bad token -- not a result to be pleased with
        print(f"error: every call failed ({len(report.records)} of {len(report.records)}: api_error); "
              "see the failures line above", file=sys.stderr)
        return 1
    return 0


def _serve(args: argparse.Namespace) -> int:
    responder = (make_responder("local", path=args.local, max_new_tokens=args.max_new_tokens) if args.local
                 else make_responder("difference"))
    server = make_server(responder, args.host, args.port)
    host, port = server.server_address[:2]
    # "Ctrl-C to stop" holds even when started from a process that ignores SIGINT (a background job
    # of a script, some test runners): the child would inherit SIG_IGN and never stop on SIGINT
    signal.signal(signal.SIGINT, signal.default_int_handler)
    print(f"serving {responder.model_id} at http://{host}:{port}/v1 (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    q = sub.add_parser("llm-query", help=QUERY_HELP, description=QUERY_HELP + " (see docs/llm.md)")
    add_query_arguments(q)
    q.set_defaults(func=run_query)
    s = sub.add_parser("llm-serve", help="serve the finite-difference baseline (or --local MODEL) as an "
                                         "OpenAI-compatible API on 127.0.0.1",
                       description="An OpenAI-compatible chat-completions server over a responder.")
    s.add_argument("--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1)")
    s.add_argument("--port", type=int_in(0, 65535), default=8000, help="port (default: 8000; 0 = any free port)")
    s.add_argument("--local", metavar="PATH", help="serve a local transformers model instead of the baseline")
    s.add_argument("--max-new-tokens", type=int_in(1, 32768), default=256,
                   help="generation budget of --local, 1..32768 (default: 256)")
    s.set_defaults(func=_serve)


def main(argv: list[str] | None = None, prog: str = "llm_query.py") -> int:
    """Entry point of eval_suite/llm_query.py: the llm-query command with its own parser."""
    p = argparse.ArgumentParser(prog=prog, description=QUERY_HELP + ".")
    add_query_arguments(p)
    args = p.parse_args(argv)

    return run_command(run_query, args, prog)
