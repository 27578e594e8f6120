"""The ``rote-hf`` command line.

Sub-commands are contributed by small ``commands`` modules, one per area, each exposing
``register(subparsers)``; :data:`COMMANDS` maps the area to that function (lazy
``"module:register"``), so adding an area's commands is one ``COMMANDS.register`` line.
Handlers import heavy libraries lazily.

When things go wrong, :func:`main` prints one line on stderr, never a traceback, with the exit
status of :func:`rote_hf.command.run_command` (2 for bad input, 1 for an environmental error).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from rote_hf import __version__
from rote_hf.command import run_command
from rote_hf.registry import Registry

COMMANDS: Registry[Callable[[argparse._SubParsersAction], None]] = Registry("command area")
for _area, _module in (("hub", "rote_hf.hub.commands"), ("symbolic", "rote_hf.symbolic.commands"),
                       ("mdl", "rote_hf.mdl.commands"), ("publish", "rote_hf.hub.publish_commands"),
                       ("llm", "rote_hf.llm.commands"), ("results", "rote_hf.reports.commands"),
                       ("backend", "rote_hf.leaderboard.commands")):
    COMMANDS.register(_area, f"{_module}:register")


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line plus a hint (no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rote-hf", description="ROTE, CogScale and MDL benchmarks on the Hugging Face stack.")
    parser.add_argument("--version", action="version", version=f"rote-hf {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for area in COMMANDS:
        COMMANDS.get(area)(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return run_command(args.func, args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
