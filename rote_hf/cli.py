"""The ``rote-hf`` command line.

Sub-commands are contributed by small ``commands`` modules, one per area, each exposing
``register(subparsers)``; adding a command is adding one module name to ``COMMAND_MODULES``.
Handlers import heavy libraries lazily. Bad input (``ValueError``/``TypeError`` and missing
files) becomes one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMAND_MODULES: tuple[str, ...] = (
    "rote_hf.hub.commands",
    "rote_hf.symbolic.commands",
    "rote_hf.mdl.commands",
    "rote_hf.hub.publish_commands",
    "rote_hf.llm.commands",
    "rote_hf.results.commands",
)


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line plus a hint (no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    from rote_hf import __version__

    parser = _Parser(prog="rote-hf", description="ROTE, CogScale and MDL benchmarks on the Hugging Face stack.")
    parser.add_argument("--version", action="version", version=f"rote-hf {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, TypeError, FileNotFoundError, FileExistsError) as exc:
        print(f"rote-hf: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rote-hf: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
