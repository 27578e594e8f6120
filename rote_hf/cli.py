"""The ``rote-hf`` command line.

Sub-commands are contributed by small ``commands`` modules, one per area, each exposing
``register(subparsers)``; :data:`COMMANDS` maps the area to that function (lazy
``"module:register"``), so adding an area's commands is one ``COMMANDS.register`` line.
Handlers import heavy libraries lazily.

When things go wrong, :func:`main` turns the error into one line on stderr, never a traceback:

* bad input (``ValueError``/``TypeError``, a missing or already existing file, a usage error):
  exit status 2;
* an environmental error (``OSError``: not a directory, permission denied, disk full, a path
  that exists as a file): exit status 1, the line names the path;
* the reader of stdout went away (``rote-hf mdl ... | head``): as the Python docs advise
  (``signal`` module, "Note on SIGPIPE"), stdout is pointed at ``/dev/null`` and the exit
  status is 1, with nothing on stderr;
* Ctrl-C: ``rote-hf: interrupted``, exit status 130.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from rote_hf.registry import Registry

COMMANDS: Registry[Callable[[argparse._SubParsersAction], None]] = Registry("command area")
for _area, _module in (("hub", "rote_hf.hub.commands"), ("symbolic", "rote_hf.symbolic.commands"),
                       ("mdl", "rote_hf.mdl.commands"), ("publish", "rote_hf.hub.publish_commands"),
                       ("llm", "rote_hf.llm.commands"), ("results", "rote_hf.results.commands")):
    COMMANDS.register(_area, f"{_module}:register")


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
    for area in COMMANDS:
        COMMANDS.get(area)(sub)
    return parser


def _one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (an ``OSError`` with its path: ``[Errno 20] Not a directory: 'x'``)."""
    if isinstance(exc, OSError) and exc.strerror and exc.filename is not None:
        text = f"{exc.strerror}: {exc.filename}" + (f" -> {exc.filename2}" if exc.filename2 else "")
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())


def _stdout_gone() -> int:
    """The reader of stdout went away: point stdout at /dev/null (so the flush at exit cannot fail
    again) and exit 1 quietly, as the Python docs advise for SIGPIPE."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout already closed or not a real file
        pass
    return 1


def run_command(func: Callable[[argparse.Namespace], int | None], args: argparse.Namespace,
                prog: str = "rote-hf") -> int:
    """``func(args)`` with the error handling described in the module docstring (the exit status)."""
    try:
        code = int(func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows up here, not at interpreter exit
        return code
    except BrokenPipeError:
        return _stdout_gone()
    except (ValueError, TypeError, FileNotFoundError, FileExistsError) as exc:
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:  # not a directory, permission denied, disk full, exists as a file, ...
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return run_command(args.func, args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
