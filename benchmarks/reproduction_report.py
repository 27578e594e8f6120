"""Regenerate the results parts of ``docs/reproduction.md`` and ``docs/reproduction.png`` from the
reproduction rows shipped with the package (``rote_hf/results/ours/cogscale_paper.*`` for
CogScale, ``rote_hf/results/ours/rote_paper.*`` for ROTE).

    rote-hf results --export-reproduction --results /work/repro/results   # ship the finished runs
    rote-hf results --export-reproduction --results /work/repro/rote_results --config eval_suite/configs/rote_paper.yaml
    python benchmarks/reproduction_report.py                              # tables + plot from them

Only the text between the ``BEGIN GENERATED`` and ``END GENERATED`` markers (CogScale) and between
``BEGIN GENERATED rote`` and ``END GENERATED rote`` (ROTE, fit by fit) of the markdown file is
replaced; the rest of the page is written by hand. A page without the ROTE markers gets the
CogScale part only. Reads nothing but the package.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's rote_hf first

BEGIN, END = "<!-- BEGIN GENERATED -->", "<!-- END GENERATED -->"
ROTE_BEGIN, ROTE_END = "<!-- BEGIN GENERATED rote -->", "<!-- END GENERATED rote -->"
COMMAND = "python benchmarks/reproduction_report.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--doc", default=str(ROOT / "docs" / "reproduction.md"), help="markdown page to update")
    parser.add_argument("--plot", default=str(ROOT / "docs" / "reproduction.png"), help="PNG to write")
    parser.add_argument("--worst", type=int, default=20, help="worst groups to list (default 20)")
    args = parser.parse_args(argv)

    from rote_hf.files import write_atomic
    from rote_hf.results.aggregate import reproduction_report
    from rote_hf.results.reproduction import cells, cost_table, markdown_report, paired_runs, write_plot
    from rote_hf.results import rote_reproduction as rote
    from rote_hf.results.shipped import shipped_frame, shipped_provenance, with_shipped_failures

    ours = shipped_frame("cogscale_paper")  # the CogScale reproduction's rows (not hf_zoo's nor ROTE's)
    report = reproduction_report(with_shipped_failures(ours))  # failures: the strict rule's diverged groups
    write_plot(report, args.plot)
    text = markdown_report(report, cells(ours), shipped_provenance(), plot=os.path.basename(args.plot), k=args.worst,
                           command=COMMAND, pairs=paired_runs(ours), cost=cost_table(ours))
    doc = Path(args.doc)
    page = doc.read_text()
    if BEGIN not in page or END not in page:
        raise SystemExit(f"{doc} has no {BEGIN} ... {END} markers")
    page = replace_block(page, BEGIN, END, text)
    pairs = rote.fit_pairs(shipped_frame(rote.ROTE_CONFIG))
    if ROTE_BEGIN in page and ROTE_END in page:
        page = replace_block(page, ROTE_BEGIN, ROTE_END, rote.markdown(
            pairs, rote.fit_summary(pairs), shipped_provenance(rote.ROTE_CONFIG), command=COMMAND))
    write_atomic(doc, page.encode(), mode=0o644)
    print(f"wrote {doc} and {args.plot}: {len(report)} CogScale groups, {len(pairs)} ROTE fits")
    return 0


def replace_block(page: str, begin: str, end: str, text: str) -> str:
    """``page`` with the text between markers ``begin`` and ``end`` replaced by ``text``."""
    head, rest = page.split(begin, 1)
    tail = rest.split(end, 1)[1]
    return f"{head}{begin}\n{text}{end}{tail}"


if __name__ == "__main__":
    sys.exit(main())
