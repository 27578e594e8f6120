"""What the three ROTE string-pair metric repos (dl_distance, jw_distance, exact_rollout) share:
their ``MetricInfo`` (input features, citation) and their Gradio demo.

evaluate's own ``launch_gradio_widget`` does not work with gradio 6, so each metric repo's
``app.py`` builds its demo here: one string per line in each box, line i of both forms pair i.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path


ROTE_CITATION = """
@misc{rote2026,
  title = {ROTE: Benchmarking Neural Memorization on Complexity-Controlled Symbolic Sequences},
  year  = {2026},
  note  = {Reference implementation: https://github.com/nla-group/rote}
}
"""


def rote_pair_info(description: str, inputs_description: str):
    """``evaluate.MetricInfo`` of a metric over (forecast, target) pairs: strings, or int token-id lists."""
    import datasets
    import evaluate

    return evaluate.MetricInfo(
        module_type="metric",
        description=description,
        citation=ROTE_CITATION,
        inputs_description=inputs_description,
        features=[
            datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            datasets.Features(
                {
                    "predictions": datasets.Sequence(datasets.Value("int64")),
                    "references": datasets.Sequence(datasets.Value("int64")),
                }
            ),
        ],
        reference_urls=["https://github.com/nla-group/rote"],
    )


def pair_demo(metric_dir: str | os.PathLike, blurb: str, predictions: str, references: str) -> tuple[Callable, object]:
    """``(score, demo)`` for the evaluate module in ``metric_dir`` (a ``rote/<name>`` folder).

    ``score(predictions, references)`` takes newline-separated strings and returns the metric's
    result dict, or ``{"error": message}`` for bad input; ``demo`` is the unlaunched
    ``gr.Blocks``. ``predictions``/``references`` are the example shown on load.
    """
    import evaluate
    import gradio as gr

    folder = Path(metric_dir)
    metric = evaluate.load(str(folder))
    title = f"rote/{folder.name}"

    def score(predictions: str, references: str) -> dict:
        try:
            return metric.compute(predictions=predictions.splitlines(), references=references.splitlines())
        except (ValueError, TypeError) as err:
            return {"error": str(err)}

    with gr.Blocks(title=title) as demo:
        gr.Markdown(f"# {title}\n{blurb} One string per line; line i of each box forms pair i.")
        with gr.Row():
            pred_box = gr.Textbox(label="predictions (forecasts)", lines=6, value=predictions)
            ref_box = gr.Textbox(label="references (targets)", lines=6, value=references)
        button = gr.Button("Compute")
        result = gr.JSON(label="result")
        button.click(score, inputs=[pred_box, ref_box], outputs=result, api_name="compute")
    return score, demo
