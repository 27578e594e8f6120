"""The Gradio demo of a metric Space scored on forecast/target string pairs.

evaluate's own ``launch_gradio_widget`` does not work with gradio 6, so each metric repo's
``app.py`` builds its demo here: one string per line in each box, line i of both forms pair i.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path


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
