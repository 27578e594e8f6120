"""How every command of the package ends: the handler's exit status, or one line on stderr and
never a traceback:

* bad input (``ValueError``/``TypeError``, a missing or already existing file, a usage error):
  exit status 2;
* an environmental error (``OSError``: not a directory, permission denied, disk full, a path
  that exists as a file): exit status 1, the line names the path;
* the reader of stdout went away (``rote-hf mdl ... | head``): as the Python docs advise
  (``signal`` module, "Note on SIGPIPE"), stdout is pointed at ``/dev/null`` and the exit
  status is 1, with nothing on stderr;
* Ctrl-C: ``rote-hf: interrupted``, exit status 130.

A leaf module (it imports nothing of the package), so that ``rote-hf`` (:mod:`rote_hf.cli`) and
the scripts of ``eval_suite/`` share this one error handling.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable


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


__all__ = ["run_command"]
