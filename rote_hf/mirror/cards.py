"""Card text every repo of the org shares: the citation of rote-hf itself, the sections a Hub
reader looks for (:func:`reader_sections`: example instance, supported tasks and leaderboards,
uses, limitations, language, build locally), and the statement that the data is not natural
language.

Cards speak to a Hub reader first (``load_dataset("rote/<repo>", config)``); building the local
mirror comes after, in its own "Build locally" section. The ids are written for the
default org ``rote``; ``rote-hf publish --org ORG`` renders them for ORG
(:mod:`rote_hf.hub.org`).
"""

from __future__ import annotations

REPOSITORY = "https://github.com/rote-hf"

ROTE_HF_BIBTEX = f"""@software{{rote_hf,
  title   = {{rote-hf: the ROTE, CogScale and MDL benchmarks on the Hugging Face Hub}},
  author  = {{{{rote-hf contributors}}}},
  year    = {{2026}},
  url     = {{{REPOSITORY}}}
}}"""
"""How to cite rote-hf (the builds, metrics and leaderboard), beside the papers' own entries."""

NON_LINGUISTIC = ("The data is not natural language: its strings are symbols of a synthetic alphabet or "
                  "decimal integers, so the card declares no `language`.")
"""The card's statement for datasets whose rows hold no natural language."""


def instance_block(row: dict, limit: int = 120) -> str:
    """One row as a JSON block for the "Example instance" section (long strings and lists cut)."""
    import json

    def cut(value):
        if isinstance(value, str) and len(value) > limit:
            return value[:limit] + "..."
        if isinstance(value, (list, tuple)) and len(value) > 8:
            return [cut(v) for v in value[:8]] + ["..."]
        if isinstance(value, (list, tuple)):
            return [cut(v) for v in value]
        return value

    fields = [f"  {json.dumps(k)}: {json.dumps(cut(v), ensure_ascii=False, default=str)}" for k, v in row.items()]
    return "```json\n{\n" + ",\n".join(fields) + "\n}\n```\n"


def reader_sections(*, target: str, instance: str, supported: str, uses: str, limitations: str,
                    non_linguistic: bool = True) -> str:
    """The sections a Hub reader looks for, after the card's own: an example instance, supported
    tasks and leaderboards, uses, limitations, building locally and how to cite rote-hf."""
    parts = [
        "## Example instance\n\n" + instance,
        "## Supported tasks and leaderboards\n\n" + supported.strip() + "\n",
        "## Uses\n\n" + uses.strip() + "\n",
        "## Limitations\n\n" + limitations.strip() + "\n",
        *(["## Language\n\n" + NON_LINGUISTIC + "\n"] if non_linguistic else []),
        "## Build locally\n\n"
        f"Every file of this repo is built by [rote-hf]({REPOSITORY}); two builds give byte-identical Parquet files:\n\n"
        f"```bash\nrote-hf build {target} --root .\n```\n\n"
        "The build writes the repo into the local mirror under `.` (a folder per org and repo, laid out as on "
        "the Hub) for the default org; `rote-hf publish --root . --org ORG --results DIR` lays out every repo "
        "with ORG's ids. The `load_dataset` calls above then work from `.` without a network.\n",
        "## Citing rote-hf\n\n```bibtex\n" + ROTE_HF_BIBTEX + "\n```\n",
    ]
    return "\n".join(parts)


def citation_block(*entries: str) -> str:
    """A ```bibtex block with ``entries`` (the papers') and rote-hf's own entry last."""
    body = "\n\n".join(e.strip() for e in (*entries, ROTE_HF_BIBTEX))
    return f"```bibtex\n{body}\n```\n"
