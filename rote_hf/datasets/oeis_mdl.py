"""Build the dataset repo ``rote/oeis-mdl`` (configs ``classical``, ``controls``, ``oeis``, ``llm-eval``).

Rows come from :mod:`rote_hf.mdl`; this module shapes them into ``datasets.Dataset`` objects
with declared features and hands them to the mirror writer. Integer terms can exceed 64 bits
(33! has 37 digits), so terms are stored as decimal strings.

The ``oeis`` config is swept from the generated offline sample shipped with the package
(:mod:`rote_hf.mdl.sample`) unless a real dump is given (``stripped=...`` or the environment
variable ``ROTE_HF_OEIS_STRIPPED``).
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import inspect
import json
import os
import random
from importlib import resources
from pathlib import Path

import rote_hf.mdl as mdl_package
from rote_hf.files import write_atomic
from rote_hf.mdl import classical_corpus, spectrum
from rote_hf.mdl.bigint import dumps_int_rows, dumps_json, format_int
from rote_hf.mdl.controls import deception_controls, growth_controls, phase_controls, true_period, unplanted_controls
from rote_hf.mdl.oeis_io import read_stripped, sample_records
from rote_hf.mdl.sample import sample_header, sample_path
from rote_hf.mdl.spectrum import Spectrum
from rote_hf.mdl.strata import LLM_K_NEXT, LLM_N_SHOWN, LLM_STRATA, format_summary, summarize_regimes
from rote_hf.mdl.strata import stratum as classify
from rote_hf.mdl.sweep import MdlSweepConfig, iter_sweep
from rote_hf.mirror.cards import instance_block, reader_sections
from rote_hf.mirror.repo import BuiltRepo, refuse_config, write_dataset_repo

REPO = "oeis-mdl"
ENV_STRIPPED = "ROTE_HF_OEIS_STRIPPED"
#: Set to 1 to sweep the shipped sample although its precomputed rows are current.
ENV_RECOMPUTE = "ROTE_HF_OEIS_RECOMPUTE"
PRECOMPUTED = "oeis_sample_sweep.json.gz"
LLM_PER_STRATUM = 20
LLM_SEED = 0


def _state(sig: object) -> str:
    if sig == "literal":
        return "literal"
    r, d, coeffs = sig  # type: ignore[misc]
    return dumps_json({"r": r, "d": d, "coeffs": [list(c) for c in coeffs]})


def _trajectory(sp: Spectrum) -> dict:
    h = sp.hypothesis
    return {
        "terms": [format_int(t) for t in sp.terms],
        "n_values": list(sp.n_values),
        "L": list(sp.L),
        "L_lit": list(sp.L_lit),
        "R": list(sp.R),
        "rho": list(sp.rho),
        "state": [_state(s) for s in sp.signatures],
        "regime": sp.regime,
        "discovery_point": sp.discovery_point,
        "stabilisation_point": sp.stabilisation_point,
        "n_revisions": sp.n_revisions,
        "n_struct_revisions": sp.n_struct_revisions,
        "n_id": sp.n_id,
        "n_x": sp.n_x,
        "order": None if h is None else h.order,
        "degree": None if h is None else h.degree,
        "L_H": None if h is None else h.cost,
        "operator": None if h is None else dumps_int_rows(h.coeffs),
        "recurrence": None if h is None else h.recurrence(),
        "compression_ratio": sp.compression_ratio,
    }


def _trajectory_features() -> dict:
    from datasets import List, Value

    return {
        "terms": List(Value("string")),
        "n_values": List(Value("int32")),
        "L": List(Value("int64")),
        "L_lit": List(Value("int64")),
        "R": List(Value("int64")),
        "rho": List(Value("float64")),
        "state": List(Value("string")),
        "regime": Value("string"),
        "discovery_point": Value("int32"),
        "stabilisation_point": Value("int32"),
        "n_revisions": Value("int32"),
        "n_struct_revisions": Value("int32"),
        "n_id": Value("int32"),
        "n_x": Value("int32"),
        "order": Value("int32"),
        "degree": Value("int32"),
        "L_H": Value("int64"),
        "operator": Value("string"),
        "recurrence": Value("string"),
        "compression_ratio": Value("float64"),
    }


def classical_rows() -> list[dict]:
    """The 61 corpus sequences x both encodings, with the full per-prefix trajectory."""
    rows = []
    for enc in ("loose", "strict"):
        for s in classical_corpus():
            rows.append({"anum": s.anum, "name": s.name, "class": s.cls, "encoding": enc, **_trajectory(spectrum(s.terms, encoding=enc))})
    return rows


def control_rows(unplanted_trials: int = 40) -> list[dict]:
    """Growth, phase and deceptive controls (loose) and unplanted deception (both encodings)."""
    cases = [(c, "loose") for c in growth_controls() + phase_controls() + deception_controls()]
    unplanted = unplanted_controls(trials=unplanted_trials)
    cases += [(c, enc) for enc in ("loose", "strict") for c in unplanted]
    rows = []
    for c, enc in cases:
        sp = spectrum(c.terms, max_order=c.max_order, max_degree=c.max_degree, encoding=enc)
        periodic = c.family in ("phase", "deceptive", "unplanted")
        rows.append(
            {
                "family": c.family,
                "name": c.name,
                "params": json.dumps(dict(c.params)),
                "encoding": enc,
                "max_order": c.max_order,
                "max_degree": c.max_degree,
                "true_period": true_period(c.terms) if periodic else None,
                "refutations": list(sp.refutations),
                "peak_abs_rho": max((abs(r) for r in sp.rho), default=0.0),
                **_trajectory(sp),
            }
        )
    return rows


def sweep_oeis(path: Path, *, limit: int | None = None, workers: int = 1, progress: bool = False,
               config: MdlSweepConfig = MdlSweepConfig()) -> tuple[list[dict], dict]:
    """Sweep the ``stripped`` file at ``path``: its rows (sorted by A-number) and facts for the card."""
    records, rep = read_stripped(path, min_terms=config.min_terms)
    chosen = sorted(sample_records(records, min_terms=config.min_terms, limit=limit, seed=0), key=lambda r: r.anum)
    terms = {r.anum: r.terms for r in chosen}
    it = iter_sweep(chosen, config, workers=workers)
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(it, total=len(chosen), desc="oeis-mdl: sweep", unit="seq")
    rows, errors = [], 0
    for row in it:
        if row["error"] is not None:
            errors += 1
            continue
        rows.append(
            {
                "anum": row["anum"],
                "n_available": row["n_available"],
                "terms": [format_int(t) for t in terms[row["anum"]]],
                "budget": config.budget,
                **{k: row[k] for k in (
                    "regime", "discovery_point", "stabilisation_point", "n_revisions", "n_struct_revisions",
                    "n_id", "n_x", "order", "degree", "L_H", "L_lit", "compression_ratio", "operator",
                    "recurrence", "audit_operator", "genuine_wilderness")},
            }
        )
    return rows, {"read": rep.summary(), "errors": errors}


def sweep_key(config: MdlSweepConfig = MdlSweepConfig()) -> str:
    """SHA-256 of everything the sweep of the shipped sample depends on: the sample's bytes, the
    learner settings, the source of :mod:`rote_hf.mdl` and of :func:`sweep_oeis`. The shipped
    precomputed rows are used only while their key is this one."""
    h = hashlib.sha256(sample_path().read_bytes())
    h.update(json.dumps(dataclasses.asdict(config), sort_keys=True).encode())
    for source in sorted(Path(mdl_package.__file__).parent.glob("*.py")):
        h.update(source.name.encode() + b"\0" + source.read_bytes())
    h.update(inspect.getsource(sweep_oeis).encode())
    return h.hexdigest()


def precomputed_path() -> Path:
    return Path(__file__).parent / "data" / PRECOMPUTED


def read_precomputed(config: MdlSweepConfig = MdlSweepConfig()) -> tuple[list[dict], dict] | None:
    """The shipped sweep of the shipped sample, or ``None`` when it is missing or its inputs changed."""
    try:
        with gzip.open(precomputed_path(), "rt", encoding="utf-8") as fh:
            saved = json.load(fh)
    except (OSError, ValueError):
        return None
    return (saved["rows"], saved["facts"]) if saved.get("key") == sweep_key(config) else None


def write_precomputed(*, workers: int = 1, progress: bool = True) -> Path:
    """Sweep the shipped sample and write its rows as the shipped precomputed file (byte-identical
    for identical inputs: sorted keys, a zero gzip timestamp); ``dataset_scripts/oeis_precomputed.py``."""
    rows, facts = sweep_oeis(sample_path(), workers=workers, progress=progress)
    text = json.dumps({"key": sweep_key(), "facts": facts, "rows": rows}, sort_keys=True, separators=(",", ":"))

    def write(tmp: str) -> None:
        with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as fh:
            fh.write(text.encode("utf-8"))

    return write_atomic(precomputed_path(), write)


def oeis_rows(stripped: str | os.PathLike | None = None, *, limit: int | None = None, workers: int = 1,
              progress: bool = False, recompute: bool = False,
              config: MdlSweepConfig = MdlSweepConfig()) -> tuple[list[dict], dict]:
    """Sweep rows of the OEIS input (sorted by A-number) and provenance facts for the card. The
    whole shipped sample is not swept again while its inputs are unchanged (:func:`sweep_key`):
    its rows ship precomputed; ``recompute`` sweeps it anyway."""
    path = Path(stripped) if stripped is not None else sample_path()
    found = None if (stripped is not None or limit is not None or recompute) else read_precomputed(config)
    if found is not None:
        rows, facts = found
        how = "precomputed"
    else:
        rows, facts = sweep_oeis(path, limit=limit, workers=workers, progress=progress, config=config)
        how = "swept"
    facts = {
        "source": "shipped generated sample" if stripped is None else f"user-supplied dump {path.name}",
        "header": sample_header() if stripped is None else [],
        **facts,
        "how": how,
    }
    return rows, facts


def llm_eval_rows(oeis: list[dict], *, per_stratum: int = LLM_PER_STRATUM, seed: int = LLM_SEED) -> list[dict]:
    """A frozen stratified sample: clean / revising / wilderness (genuine: no operator on all
    terms, >= 40 terms), first 20 terms shown and the next 3 as the answer."""
    need = LLM_N_SHOWN + LLM_K_NEXT
    strata = {s: [r for r in oeis if classify(r) == s] for s in LLM_STRATA}  # rote_hf.mdl.strata's meaning
    out = []
    for stratum in LLM_STRATA:
        pool = sorted((r for r in strata[stratum] if r["n_available"] >= need), key=lambda r: r["anum"])
        picked = random.Random(seed).sample(pool, min(per_stratum, len(pool)))
        for r in sorted(picked, key=lambda r: r["anum"]):
            out.append(
                {
                    "anum": r["anum"],
                    "stratum": stratum,
                    "shown": r["terms"][:LLM_N_SHOWN],
                    "answer": r["terms"][LLM_N_SHOWN:need],
                    "n_id": r["n_id"],
                    "L_H": r["L_H"],
                    "discovery_point": r["discovery_point"],
                    "n_struct_revisions": r["n_struct_revisions"],
                    "seed": seed,
                }
            )
    return out


def _datasets(classical: list[dict], controls: list[dict], oeis: list[dict], llm: list[dict]) -> dict:
    from datasets import Dataset, Features, List, Value

    traj = _trajectory_features()
    f_classical = Features({"anum": Value("string"), "name": Value("string"), "class": Value("string"),
                            "encoding": Value("string"), **traj})
    f_controls = Features({"family": Value("string"), "name": Value("string"), "params": Value("string"),
                           "encoding": Value("string"), "max_order": Value("int32"), "max_degree": Value("int32"),
                           "true_period": Value("int32"), "refutations": List(Value("int32")),
                           "peak_abs_rho": Value("float64"), **traj})
    f_oeis = Features({
        "anum": Value("string"), "n_available": Value("int32"), "terms": List(Value("string")),
        "budget": Value("int32"), "regime": Value("string"), "discovery_point": Value("int32"),
        "stabilisation_point": Value("int32"), "n_revisions": Value("int32"),
        "n_struct_revisions": Value("int32"), "n_id": Value("int32"), "n_x": Value("int32"),
        "order": Value("int32"), "degree": Value("int32"), "L_H": Value("int64"), "L_lit": Value("int64"),
        "compression_ratio": Value("float64"), "operator": Value("string"), "recurrence": Value("string"),
        "audit_operator": Value("string"), "genuine_wilderness": Value("bool"),
    })
    f_llm = Features({
        "anum": Value("string"), "stratum": Value("string"), "shown": List(Value("string")),
        "answer": List(Value("string")), "n_id": Value("int32"), "L_H": Value("int64"),
        "discovery_point": Value("int32"), "n_struct_revisions": Value("int32"), "seed": Value("int32"),
    })

    def ds(rows: list[dict], features: Features) -> Dataset:
        return Dataset.from_list(rows, features=features) if rows else Dataset.from_dict(
            {k: [] for k in features}, features=features)

    return {
        "classical": {"train": ds(classical, f_classical)},
        "controls": {"train": ds(controls, f_controls)},
        "oeis": {"train": ds(oeis, f_oeis)},
        "llm-eval": {"test": ds(llm, f_llm)},
    }


def _card(classical: list[dict], controls: list[dict], oeis: list[dict], llm: list[dict], facts: dict) -> str:
    template = resources.files("rote_hf.datasets").joinpath("oeis_mdl.md").read_text(encoding="utf-8")
    loose = [r for r in classical if r["encoding"] == "loose"]
    regimes = {k: sum(r["regime"] == k for r in oeis) for k in ("clean", "revising", "prefix-only", "no-fit")}
    strata = {k: sum(r["stratum"] == k for r in llm) for k in LLM_STRATA}
    unplanted = {enc: sum(r["n_struct_revisions"] > 0 for r in controls if r["family"] == "unplanted" and r["encoding"] == enc)
                 for enc in ("loose", "strict")}
    n_unplanted = sum(r["family"] == "unplanted" and r["encoding"] == "loose" for r in controls)
    prefix_only = [r for r in oeis if r["regime"] == "prefix-only"]
    facts_md = "\n".join(f"> {h}" for h in facts["header"]) or "> (user-supplied dump; see its own header)"
    return template.format(
        n_classical=len(loose),
        n_fitted=sum(r["discovery_point"] is not None for r in loose),
        n_controls=len(controls),
        unplanted_loose=unplanted["loose"],
        unplanted_strict=unplanted["strict"],
        n_unplanted=n_unplanted,
        oeis_source=facts["source"],
        oeis_read=facts["read"],
        oeis_errors=facts["errors"],
        n_oeis=len(oeis),
        regimes=", ".join(f"{k} {v}" for k, v in regimes.items()),
        n_genuine=sum(r["genuine_wilderness"] for r in oeis),
        n_prefix_only=len(prefix_only),
        n_llm=len(llm),
        strata=", ".join(f"{k} {v}" for k, v in strata.items()),
        provenance=facts_md,
        oeis_summary=format_summary(summarize_regimes(oeis)),
    )


def build(
    root: Path,
    *,
    progress: bool = True,
    stripped: str | os.PathLike | None = None,
    oeis_limit: int | None = None,
    unplanted_trials: int = 40,
    workers: int | None = None,
    config: str | None = None,
    recompute: bool | None = None,
) -> BuiltRepo:
    """Write ``<root>/rote/oeis-mdl/``. ``stripped`` (or ``$ROTE_HF_OEIS_STRIPPED``) replaces
    the shipped generated sample by a real ``stripped(.gz)`` dump; the sample's sweep ships
    precomputed and is swept again only when its inputs changed or ``recompute`` (or
    ``$ROTE_HF_OEIS_RECOMPUTE=1``) asks. The four configs are always built together (``config``
    must stay ``None``)."""
    refuse_config(REPO, config)
    stripped = stripped if stripped is not None else (os.environ.get(ENV_STRIPPED) or None)
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    classical = classical_rows()
    controls = control_rows(unplanted_trials)
    if recompute is None:
        recompute = os.environ.get(ENV_RECOMPUTE, "") == "1"
    oeis, facts = oeis_rows(stripped, limit=oeis_limit, workers=workers, progress=progress, recompute=recompute)
    llm = llm_eval_rows(oeis)
    return write_dataset_repo(
        root,
        REPO,
        _datasets(classical, controls, oeis, llm),
        _card(classical, controls, oeis, llm, facts) + "\n" + reader_sections(
            target=REPO, instance="One row of `llm-eval`:\n\n" + instance_block(llm[0]),
            supported="The OEIS-LLM evaluation of Ganeshan (2026): language models give the next terms of "
            "`llm-eval`'s sequences, scored by `rote/confabulation` per MDL stratum on the OEIS-LLM tab of the "
            "[rote-hf leaderboard](https://huggingface.co/spaces/rote/leaderboard) (rows `suite = mdl` of "
            "`rote/results`).",
            uses="Stratify integer-sequence benchmarks by description-length difficulty; study how an MDL "
            "learner's revisions track deceptive prefixes (`controls`); query an LLM on the frozen `llm-eval` "
            "sample and compare with the published rows.",
            limitations="Offline builds use a generated sample in the OEIS `stripped` format, not the OEIS "
            "itself (see the provenance section); the MDL learner is bounded (order <= 6, degree <= 4), so "
            "`no-fit` means no fit within those bounds, not that no recurrence exists.",
        ),
        default_config="classical",
        card_meta={
            "license": "cc-by-sa-4.0",
            "pretty_name": "OEIS MDL difficulty",
            "tags": ["integer-sequences", "mdl", "oeis", "holonomic", "non-linguistic"],
            "task_categories": ["text-generation"],
            "task_ids": ["language-modeling"],
            "source_datasets": ["extended"],
        },
    )
