"""rote-hf: ROTE, CogScale and MDL sequence benchmarks as Hugging Face datasets, metrics and models.

Importing the package is cheap and has no side effects; heavy dependencies (torch, datasets,
gradio) are imported inside the functions that need them.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
