"""Dev-time builder of the offline OEIS sample shipped with rote-hf (run once, output frozen).

No package ships the OEIS data. This script *generates* terms of real OEIS sequences with the
functions of the ``oeissequences`` package (Apache-2.0, by Chai Wah Wu) and writes them in the
OEIS ``stripped`` format, so that the MDL pipeline runs offline. The file is labelled as
generated: values come from code, not from the OEIS dump.

Usage (in an environment that has ``oeissequences`` installed; it is not a rote-hf dependency):

    python dataset_scripts/oeis_sample.py --out rote_hf/mdl/data/oeis_sample.stripped.gz \
        --candidates 3000 --seed 0 --timeout 1.0 --workers 2

Rules (documented in docs/mdl.md):
- candidates: a ``random.Random(seed)`` sample of the package's A-numbers;
- ``Axxxxxx_gen`` (carries the OEIS offset) is preferred; otherwise ``Axxxxxx(n)`` for n = 1, 2, ...
  (a leading n that raises is skipped; the OEIS offset of such sequences is not known);
- terms are collected until the data section ``,t1,...,tk,`` would exceed 260 characters, 100
  terms are reached, or the per-sequence wall-clock timeout kills the worker process
  (SIGALRM does not interrupt gmpy2/sympy C calls, so a separate process is required);
- sequences with fewer than ``min_terms`` (40) terms are dropped.
"""

from __future__ import annotations

import argparse
import gzip
import multiprocessing as mp
import queue
import random
import sys
import threading
import time
from itertools import islice
from pathlib import Path

MAX_CHARS = 260
MAX_TERMS = 100


def _worker(conn) -> None:  # pragma: no cover - runs in a child process
    sys.set_int_max_str_digits(0)
    import oeis_sequences.OEISsequences as oeis

    while True:
        anum = conn.recv()
        if anum is None:
            return
        try:
            gen = getattr(oeis, anum + "_gen", None)
            if gen is not None:
                it = gen()
            else:
                fn = getattr(oeis, anum)

                def values():
                    n, started = 1, False
                    while True:
                        try:
                            v = fn(n)
                        except Exception:
                            if started or n > 3:
                                return
                            n += 1
                            continue
                        started = True
                        yield v
                        n += 1

                it = values()
            chars = 1
            for v in islice(it, MAX_TERMS):
                v = int(v)
                chars += len(str(v)) + 1
                if chars > MAX_CHARS:
                    break
                conn.send(("term", v))
            conn.send(("done", "gen" if gen is not None else "a(n)"))
        except Exception as exc:  # noqa: BLE001 - any failure of third-party code ends this sequence
            conn.send(("error", type(exc).__name__))


def _drive(tasks: "queue.Queue[str]", results: dict, timeout: float) -> None:
    ctx = mp.get_context("spawn")

    def start():
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_worker, args=(child,), daemon=True)
        proc.start()
        return proc, parent

    proc, conn = start()
    while True:
        try:
            anum = tasks.get_nowait()
        except queue.Empty:
            conn.send(None)
            proc.join(5)
            return
        conn.send(anum)
        terms: list[int] = []
        kind = "timeout"
        deadline = time.monotonic() + timeout + (3.0 if not results else 0.0)  # first call imports
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not conn.poll(left):
                proc.kill()
                proc.join()
                proc, conn = start()
                break
            tag, value = conn.recv()
            if tag == "term":
                terms.append(value)
                continue
            kind = value if tag == "done" else f"error:{value}"
            break
        results[anum] = (kind, terms)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--candidates", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=1.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--min-terms", type=int, default=40)
    args = ap.parse_args(argv)
    sys.set_int_max_str_digits(0)

    import importlib.metadata as md

    import oeis_sequences.OEISsequences as oeis

    version = md.version("oeissequences")
    anums = sorted({n[:7] for n in dir(oeis) if n.startswith("A") and n[1:7].isdigit() and not n.endswith("_T")})
    anums = [a for a in anums if hasattr(oeis, a) or hasattr(oeis, a + "_gen")]
    chosen = sorted(random.Random(args.seed).sample(anums, min(args.candidates, len(anums))))
    tasks: queue.Queue[str] = queue.Queue()
    for a in chosen:
        tasks.put(a)
    results: dict = {}
    t0 = time.time()
    threads = [threading.Thread(target=_drive, args=(tasks, results, args.timeout)) for _ in range(args.workers)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        time.sleep(10)
        print(f"{len(results)}/{len(chosen)} done, {time.time() - t0:.0f}s", file=sys.stderr, flush=True)
    kept = [(a, results[a][1]) for a in chosen if len(results.get(a, ("", []))[1]) >= args.min_terms]
    header = [
        "# Generated OEIS sample in the stripped format (NOT the OEIS dump): terms computed by code.",
        f"# Generator: oeissequences {version} (Apache-2.0, Chai Wah Wu), via rote-hf dataset_scripts/oeis_sample.py",
        f"# Settings: candidates={len(chosen)} of {len(anums)} A-numbers, random.Random({args.seed}).sample, "
        f"timeout={args.timeout}s, <= {MAX_CHARS} chars, <= {MAX_TERMS} terms, >= {args.min_terms} terms kept",
        f"# Kept {len(kept)} sequences. Sequences from the OEIS, The On-Line Encyclopedia of Integer Sequences,",
        "# (c) The OEIS Foundation Inc., https://oeis.org, licensed CC BY-SA 4.0 (https://oeis.org/LICENSE).",
    ]
    body = [f"{a} ,{','.join(str(t) for t in terms)}," for a, terms in kept]
    data = ("\n".join(header + body) + "\n").encode()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # mtime=0 and no file name: the same content gives the same bytes
    with open(args.out, "wb") as fh, gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0) as gz:
        gz.write(data)
    kinds: dict[str, int] = {}
    for kind, _ in results.values():
        kinds[kind.split(":")[0]] = kinds.get(kind.split(":")[0], 0) + 1
    print(f"kept {len(kept)} of {len(chosen)}; outcomes {kinds}; {time.time() - t0:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
