"""Moved to :mod:`rote_hf.protocols.cogscale` (the fit protocols sit below the suites; this room runs
sweeps). This path re-exports it for code written against the 0.1 documentation."""

from rote_hf.protocols.cogscale import *  # noqa: F401,F403
from rote_hf.protocols.cogscale import __all__  # noqa: F401
