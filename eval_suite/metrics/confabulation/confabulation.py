"""
rote/confabulation: accuracy, abstention and confabulation of LLM next-term answers.

A thin evaluate wrapper over (a generated copy of) rote_hf.metrics.confabulation; see README.md (the metric card).
"""

import datasets
import evaluate
# evaluate copies only the sibling files that this script imports itself, so every
# generated sibling it needs is imported here (metric_*.py: generated from rote_hf.metrics;
# no comment may follow a relative import: evaluate would read it as a download URL).
from .metric_checks import as_rows
from .metric_confabulation import confabulation
from .metric_keys import renamed_keys

_DESCRIPTION = """
Scores language-model answers to "give the next terms of this integer sequence" as in the MDL
paper's LLM evaluation (§9): exact and partial accuracy, abstention rate (NO_FORMULA_FOUND),
confabulation rate (stated confidence >= 4 with a wrong continuation, the paper's definition)
and its variant over non-abstaining answers, mean confidence, recognition rate and accuracy
conditioned on recognition, each with a Wilson 95% interval. Rows whose reply failed to parse
are counted separately and never scored as wrong.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of lists of int or decimal str): predicted next terms ([] or None when
        the reply failed).
    references (list of lists of int or decimal str): true next terms.
    confidence (list of int in 1..5, or None): stated confidence.
    abstained (list of bool): the model answered NO_FORMULA_FOUND.
    recognized (list of bool or None): the model said it recognised the sequence.
    status (list of str): "ok", or the parser failure "no_json", "bad_json", "schema_error",
        "api_error".
    return_per_row (bool, default False): add per-row lists exact, partial, confabulated.
    legacy_keys (bool, default False): also return the deprecated keys accuracy,
        accuracy_ci_low, accuracy_ci_high (until 0.3).
Returns:
    answer_accuracy, partial_accuracy, abstention_rate, confabulation_rate,
    confabulation_rate_excluding_abstentions, mean_confidence, recognition_rate,
    accuracy_recognized, accuracy_unrecognized, contamination_share, hedges, counts
    (n_rows, n_scored, n_failed, n_failed_<status>, n_recognized, n_unrecognized),
    failure_rate and <rate>_ci_low / <rate>_ci_high (floats; NaN for an empty denominator).
Examples:
    >>> confab = evaluate.load("rote/confabulation")
    >>> r = confab.compute(predictions=[[5, 8, 13], [1, 2, 3]], references=[[5, 8, 13], [4, 5, 6]],
    ...                    confidence=[5, 4], abstained=[False, False], recognized=[True, False],
    ...                    status=["ok", "ok"])
    >>> r["answer_accuracy"], r["confabulation_rate"]
    (0.5, 0.5)
"""

_CITATION = """
@misc{ganeshan2026induction,
  title  = {Where Induction Runs Out: Description-Length Difficulty and the Memorisation Gap
            in Integer-Sequence Benchmarks},
  author = {Ganeshan, Sabilashan},
  year   = {2026},
  note   = {Code and data: https://github.com/sabilashang/where-induction-runs-out}
}
"""

_TERMS = datasets.Sequence(datasets.Value("string"))


def _as_text(rows):
    # Terms travel as decimal strings: OEIS terms overflow int64, strings hold any size.
    if rows is None:
        return None
    out = []
    for row in rows:
        if row is None or isinstance(row, str):
            out.append(row)
        else:
            out.append([t if isinstance(t, str) else str(t) for t in row])
    return out


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Confabulation(evaluate.Metric):
    """Accuracy, abstention and confabulation of LLM next-term answers."""

    def _info(self):
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": _TERMS,
                    "references": _TERMS,
                    "confidence": datasets.Value("int64"),
                    "abstained": datasets.Value("bool"),
                    "recognized": datasets.Value("bool"),
                    "status": datasets.Value("string"),
                }
            ),
            reference_urls=["https://github.com/sabilashang/where-induction-runs-out"],
            homepage="https://github.com/sabilashang/where-induction-runs-out",
            codebase_urls=["https://github.com/sabilashang/where-induction-runs-out", "https://github.com/rote-hf"],
            license="MIT",
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch; integer terms are written as decimal strings (exact for any size)."""
        super().add_batch(predictions=_as_text(predictions), references=_as_text(references), **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one row; integer terms are written as decimal strings (exact for any size)."""
        one = _as_text([prediction, reference])
        super().add(prediction=one[0], reference=one[1], **kwargs)

    def _compute(self, predictions, references, confidence, abstained, recognized, status, return_per_row=False,
                 legacy_keys=False):
        out = confabulation(
            predictions, references, confidence, abstained, recognized, status, return_per_row=return_per_row
        )
        # accuracy is answer_accuracy: evaluate's own accuracy combines with this module unrenamed
        return renamed_keys("confabulation", out, legacy_keys)
