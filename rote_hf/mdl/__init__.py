"""MDL difficulty of integer sequences: codes, the holonomic guesser, the revision spectrum,
the classical corpus, the controls and OEIS input.

``literal_cost(terms)``, ``fit(terms, max_order=6, max_degree=4, encoding="loose")`` and
``spectrum(terms, ...)`` are the entry points; ``classical_corpus()`` gives the 61 labelled
sequences. This package depends on nothing else in ``rote_hf``.
"""

from rote_hf.mdl.codes import elias_gamma_len, int_len, literal_cost, nat_len
from rote_hf.mdl.corpus import classical_corpus
from rote_hf.mdl.guess import Hypothesis, fit, guess, identifiability
from rote_hf.mdl.spectrum import Spectrum, spectrum

__all__ = [
    "Hypothesis",
    "Spectrum",
    "classical_corpus",
    "elias_gamma_len",
    "fit",
    "guess",
    "identifiability",
    "int_len",
    "literal_cost",
    "nat_len",
    "spectrum",
]
