"""
rote/cogscale_score: CogScale's task score (error rate, label-wise error or MSE).

A thin evaluate wrapper over (a generated copy of) rote_hf.metrics.cogscale_score; see README.md (the metric card).
"""

import datasets
import evaluate
# evaluate copies only the sibling files that this script imports itself, so every
# generated sibling it needs is imported here (metric_*.py: generated from rote_hf.metrics;
# no comment may follow a relative import: evaluate would read it as a download URL).
from .metric_checks import as_rows
from .metric_cogscale_score import cogscale_score
from .metric_keys import renamed_keys

_DESCRIPTION = """
CogScale's compute_score (paper §3.1): predictions and targets of shape [L, O] per sample are
scored at the prediction timesteps only. classification: error rate of argmax; multi_classification:
sigmoid(logits) >= threshold compared label-wise (Hamming error); regression: mean squared error.
Lower is better. Values equal CogScale's own compute_score bit for bit (float32 arithmetic).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of [L, O] float arrays): model outputs per sample (logits for
        multi_classification; logits or probabilities for classification).
    references (list of [L, O] float arrays): targets per sample (one-hot / multi-hot / values).
    prediction_timesteps (list of lists of int, or None per row): the scored steps T of each
        sample (CogScale <= 0.1.x); None selects the steps whose target is not all -100
        (CogScale 0.2.0 masking).
    category (str, required): "classification", "multi_classification" or "regression".
    threshold (float, default 0.5): probability threshold for multi_classification.
    return_per_row (bool, default False): add per-sample scores.
    legacy_keys (bool, default False): also return the deprecated key score (until 0.3).
Returns:
    cogscale_score (float): error rate, label-wise error or MSE.
Examples:
    >>> cog = evaluate.load("rote/cogscale_score")
    >>> cog.compute(predictions=[[[0.9, 0.1], [0.2, 0.8]]], references=[[[1, 0], [1, 0]]],
    ...             prediction_timesteps=[[0, 1]], category="classification")
    {'cogscale_score': 0.5}
"""

_CITATION = """
@misc{bendiouis2026cogscale,
  title         = {CogScale: Scalable Benchmark for Sequence Processing},
  author        = {Bendi-Ouis, Yannis and de Coudenhove, Romain and Hinaut, Xavier},
  year          = {2026},
  eprint        = {2605.19758},
  archivePrefix = {arXiv}
}
"""

_STEPS = datasets.Sequence(datasets.Sequence(datasets.Value("float32")))


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CogscaleScore(evaluate.Metric):  # evaluate names it cogscale_score, like the repo
    """CogScale's error rate / label-wise error / MSE at the prediction timesteps."""

    def _info(self):
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": _STEPS,
                    "references": _STEPS,
                    "prediction_timesteps": datasets.Sequence(datasets.Value("int64")),
                }
            ),
            reference_urls=["https://github.com/Naowak/CogScale"],
            homepage="https://github.com/Naowak/CogScale",
            codebase_urls=["https://github.com/Naowak/CogScale", "https://github.com/rote-hf"],
            license="MIT",
        )

    def _compute(self, predictions, references, prediction_timesteps, category=None, threshold=0.5, return_per_row=False,
                 legacy_keys=False):
        if category is None:
            raise ValueError("category must be given: one of 'classification', 'multi_classification', 'regression'")
        out = cogscale_score(
            predictions,
            references,
            category=category,
            prediction_timesteps=prediction_timesteps,
            threshold=threshold,
            return_per_row=return_per_row,
        )
        # score is cogscale_score: sacrebleu's and chrf's own score combine with it unrenamed
        return renamed_keys("cogscale_score", out, legacy_keys)
