"""Card text every repo of the org shares: the citation of rote-hf itself, the "build locally"
section, and the statement that the data is not natural language.

Cards speak to a Hub reader first (``load_dataset("rote/<repo>", config)``); building the local
mirror comes after, in its own section (:func:`build_locally`). The ids are written for the
default org ``rote``; ``rote-hf publish --org ORG`` renders them for ORG
(:mod:`rote_hf.hub.org`).
"""

from __future__ import annotations

from rote_hf import __version__

REPOSITORY = "https://github.com/rote-hf"

ROTE_HF_BIBTEX = f"""@software{{rote_hf,
  title   = {{rote-hf: the ROTE, CogScale and MDL benchmarks on the Hugging Face Hub}},
  author  = {{{{rote-hf contributors}}}},
  year    = {{2026}},
  version = {{{__version__}}},
  url     = {{{REPOSITORY}}}
}}"""
"""How to cite rote-hf (the builds, metrics and leaderboard), beside the papers' own entries."""

NON_LINGUISTIC = ("The data is not natural language: its strings are symbols of a synthetic alphabet or "
                  "decimal integers, so the card declares no `language`.")
"""The card's statement for datasets whose rows hold no natural language."""


def build_locally(target: str, config_hint: str = "") -> str:
    """The "Build locally" section of a card: the ``rote-hf build`` command and how the mirror's
    ids resolve (``config_hint``: an extra sentence, e.g. about configs)."""
    hint = f" {config_hint}" if config_hint else ""
    return (
        "## Build locally\n\n"
        f"Every file of this repo is built by [rote-hf]({REPOSITORY}); two builds give byte-identical Parquet files:\n\n"
        f"```bash\nrote-hf build {target} --root .\n```\n\n"
        "The build writes the local mirror `./rote/<repo>/`, laid out as on the Hub, so the same "
        f"`load_dataset` calls work from `.` without a network.{hint}\n"
    )


def citation_block(*entries: str) -> str:
    """A ```bibtex block with ``entries`` (the papers') and rote-hf's own entry last."""
    body = "\n\n".join(e.strip() for e in (*entries, ROTE_HF_BIBTEX))
    return f"```bibtex\n{body}\n```\n"
