"""ROTE symbolic core: LZW complexity, seed generation, identifiability and windows.

Pure functions over strings of the 52-letter alphabet; depends on nothing else in rote_hf.
"""

from rote_hf.symbolic.alphabet import ALPHABET
from rote_hf.symbolic.generator import generate_seed, historical_seeds, seed_table
from rote_hf.symbolic.identifiability import ambiguity_rate, context_entropy, entropy_profile, predictive_order
from rote_hf.symbolic.lzw import IncrementalComplexity, complexity, lzw_complexity, reduce_period
from rote_hf.symbolic.paper_seeds import PaperSeed, paper_seed, paper_seeds
from rote_hf.symbolic.windows import RoteWindows, make_windows, periodic_extension, split_bounds

__all__ = [
    "ALPHABET",
    "IncrementalComplexity",
    "PaperSeed",
    "RoteWindows",
    "ambiguity_rate",
    "complexity",
    "context_entropy",
    "entropy_profile",
    "generate_seed",
    "historical_seeds",
    "lzw_complexity",
    "make_windows",
    "paper_seed",
    "paper_seeds",
    "periodic_extension",
    "predictive_order",
    "reduce_period",
    "seed_table",
    "split_bounds",
]
