"""Reading OEIS files: the ``stripped`` dump (plain or gzip), ``names`` and b-files, and sampling.

``stripped`` data lines look like ``A000045 ,0,1,1,2,3,5,...,`` (A-number, one space, terms
framed by commas); ``#`` lines are headers. The A-number width is not fixed (7 digits after
A999999). No offset is recorded. Dead entries have an empty list (``,``).

Malformed lines never stop a read: they are skipped and counted in :class:`ReadReport`. A
non-integer token is handled by ``on_bad``: ``"reject"`` (default) drops the whole line,
``"stop"`` keeps the terms before the token (the paper's code).
"""

from __future__ import annotations

import gzip
import io
import os
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rote_hf.mdl.bigint import parse_int

ON_BAD: tuple[str, ...] = ("reject", "stop")
_ANUM = re.compile(r"A\d{6,}\Z")
_INT = re.compile(r"[+-]?\d+\Z")


@dataclass(frozen=True)
class OeisRecord:
    """One OEIS entry: its A-number and the terms given (0-based list; offset unknown)."""

    anum: str
    terms: tuple[int, ...]


@dataclass
class ReadReport:
    """Line counts of one read: what was kept and what was skipped, and why."""

    lines: int = 0
    headers: int = 0
    blank: int = 0
    malformed: int = 0
    truncated: int = 0  # lines cut at a bad token under on_bad="stop"
    empty: int = 0
    short: int = 0  # fewer than min_terms
    kept: int = 0
    malformed_examples: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.kept} kept of {self.lines} lines ({self.headers} header, {self.blank} blank, "
            f"{self.malformed} malformed, {self.truncated} truncated, {self.empty} empty, {self.short} short)"
        )


def _open_text(path: str | os.PathLike) -> io.TextIOBase:
    """Open a plain or gzip file (detected by its magic bytes, not its name) as UTF-8 text."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"path does not exist or is not a file: {p}")
    with open(p, "rb") as fh:
        magic = fh.read(2)
    raw = gzip.open(p, "rb") if magic == b"\x1f\x8b" else open(p, "rb")
    return io.TextIOWrapper(raw, encoding="utf-8", newline=None)  # newline=None: CRLF -> LF


def parse_stripped_line(line: str, *, on_bad: str = "reject") -> tuple[OeisRecord | None, str]:
    """Parse one data line. Returns (record or None, status) with status in
    ``ok, header, blank, malformed, truncated, empty``."""
    if on_bad not in ON_BAD:
        raise ValueError(f"on_bad must be one of {list(ON_BAD)}, got {on_bad!r}")
    line = line.strip()
    if not line:
        return None, "blank"
    if line.startswith("#"):
        return None, "header"
    anum, sep, rest = line.partition(" ")
    if not sep or not _ANUM.match(anum):
        return None, "malformed"
    terms: list[int] = []
    status = "ok"
    for tok in rest.strip().strip(",").split(","):
        tok = tok.strip()
        if not tok:
            continue
        if not _INT.match(tok):
            if on_bad == "reject":
                return None, "malformed"
            status = "truncated"
            break
        terms.append(parse_int(tok))
    if not terms and status == "ok":
        return OeisRecord(anum, ()), "empty"
    return OeisRecord(anum, tuple(terms)), status


def iter_stripped(
    path: str | os.PathLike, *, min_terms: int = 0, on_bad: str = "reject", report: ReadReport | None = None
) -> Iterator[OeisRecord]:
    """Stream the records of a ``stripped`` file with at least ``min_terms`` terms.

    Huge terms parse without Python's 4300-digit limit. Skipped lines are counted in ``report``.
    """
    if on_bad not in ON_BAD:
        raise ValueError(f"on_bad must be one of {list(ON_BAD)}, got {on_bad!r}")
    if isinstance(min_terms, bool) or not isinstance(min_terms, int) or min_terms < 0:
        raise ValueError(f"min_terms must be an int >= 0, got {min_terms!r}")
    rep = report if report is not None else ReadReport()
    with _open_text(path) as fh:
        for line in fh:
            rep.lines += 1
            rec, status = parse_stripped_line(line, on_bad=on_bad)
            if status == "header":
                rep.headers += 1
                continue
            if status == "blank":
                rep.blank += 1
                continue
            if status == "malformed":
                rep.malformed += 1
                if len(rep.malformed_examples) < 5:
                    rep.malformed_examples.append(line.strip()[:80])
                continue
            if status == "empty":
                rep.empty += 1
            if status == "truncated":
                rep.truncated += 1
            assert rec is not None
            if len(rec.terms) < min_terms:
                rep.short += 1
                continue
            rep.kept += 1
            yield rec


def read_stripped(
    path: str | os.PathLike, *, min_terms: int = 0, on_bad: str = "reject"
) -> tuple[list[OeisRecord], ReadReport]:
    """All records of a ``stripped`` file (see :func:`iter_stripped`) and the read report."""
    rep = ReadReport()
    return list(iter_stripped(path, min_terms=min_terms, on_bad=on_bad, report=rep)), rep


def read_names(path: str | os.PathLike) -> dict[str, str]:
    """``names``/``names.gz``: A-number -> name (lines ``A000045 Fibonacci numbers: ...``)."""
    out: dict[str, str] = {}
    with _open_text(path) as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            anum, _, name = line.partition(" ")
            if _ANUM.match(anum):
                out[anum] = name.strip()
    return out


def read_bfile(path: str | os.PathLike) -> tuple[int, tuple[int, ...]]:
    """A b-file (lines ``n a(n)``, ``#`` comments, blank lines): (offset, terms).

    The index column must be consecutive; ``ValueError`` names the first bad line otherwise.
    """
    idx: list[int] = []
    vals: list[int] = []
    with _open_text(path) as fh:
        for k, line in enumerate(fh, start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split()
            if len(parts) != 2 or not all(_INT.match(p) for p in parts):
                raise ValueError(f"b-file line {k} must be 'n a(n)', got {line[:60]!r}")
            n, v = int(parts[0]), parse_int(parts[1])
            if idx and n != idx[-1] + 1:
                raise ValueError(f"b-file line {k}: index {n} does not follow {idx[-1]}")
            idx.append(n)
            vals.append(v)
    if not idx:
        raise ValueError(f"b-file {path} has no data lines")
    return idx[0], tuple(vals)


def sample_records(
    records: Iterable[OeisRecord], *, min_terms: int = 20, limit: int | None = 20_000, seed: int = 0
) -> list[OeisRecord]:
    """The authors' sampling: keep records with >= ``min_terms`` terms, shuffle with
    ``random.Random(seed)``, take the first ``limit`` (all when None). Terms are not truncated
    here (the sweep applies the term budget and keeps the rest for the truncation audit)."""
    eligible = [r for r in records if len(r.terms) >= min_terms]
    random.Random(seed).shuffle(eligible)
    return eligible if limit is None else eligible[:limit]


def format_stripped(records: Iterable[OeisRecord], header: Iterable[str] = ()) -> str:
    """Records back in the ``stripped`` format (header lines get a ``# `` prefix)."""
    lines = [f"# {h}" for h in header]
    lines += [f"{r.anum} ,{','.join(map(str, r.terms))}," for r in records]
    return "\n".join(lines) + "\n"
