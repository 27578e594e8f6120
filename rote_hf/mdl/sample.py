"""The offline OEIS sample shipped with rote-hf (generated, not the OEIS dump).

``data/oeis_sample.stripped.gz`` was produced once by ``dataset_scripts/oeis_sample.py`` from
the ``oeissequences`` package (Apache-2.0): real OEIS sequences whose terms were computed by
code. Its header lines record the generator, settings and the OEIS licence attribution
(CC BY-SA 4.0, The OEIS Foundation Inc., https://oeis.org).
"""

from __future__ import annotations

from pathlib import Path

SAMPLE_FILE = "oeis_sample.stripped.gz"


def sample_path() -> Path:
    """Path of the shipped generated sample (``FileNotFoundError`` if the package lacks it)."""
    p = Path(__file__).parent / "data" / SAMPLE_FILE
    if not p.is_file():
        raise FileNotFoundError(f"the shipped OEIS sample is missing: {p}")
    return p


def sample_header() -> list[str]:
    """The provenance header lines of the shipped sample (without the leading '# ')."""
    import gzip

    out = []
    with gzip.open(sample_path(), "rt", encoding="utf-8") as fh:
        for line in fh:
            if not line.startswith("#"):
                break
            out.append(line[1:].strip())
    return out
