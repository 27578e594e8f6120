"""What the three ROTE string-pair metric repos (dl_distance, jw_distance, exact_rollout) share:
their ``MetricInfo`` (input features, citation, links) and their Gradio demo.

``rote-hf build metrics`` copies this file into each of the three repos, beside the module, so
a repo needs nothing of rote-hf. evaluate's own ``launch_gradio_widget`` does not work with
gradio 6, so each repo's ``app.py`` builds its demo with :func:`pair_demo`: one string per line
in each box, line i of both boxes forms pair i.
"""

import os
from collections.abc import Callable
from pathlib import Path

HOMEPAGE = "https://github.com/nla-group/rote"
CODEBASE_URLS = ["https://github.com/nla-group/rote", "https://github.com/rote-hf"]
LICENSE = "MIT"

ROTE_CITATION = """
@inproceedings{cahuantzi2023comparison,
  title     = {A Comparison of {LSTM} and {GRU} Networks for Learning Symbolic Sequences},
  author    = {Cahuantzi, Roberto and Chen, Xinye and G{\"u}ttel, Stefan},
  booktitle = {Intelligent Computing (SAI 2023)},
  series    = {Lecture Notes in Networks and Systems},
  volume    = {739},
  publisher = {Springer},
  year      = {2023},
  doi       = {10.1007/978-3-031-37963-5_53}
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
        homepage=HOMEPAGE,
        codebase_urls=CODEBASE_URLS,
        reference_urls=[HOMEPAGE],
        license=LICENSE,
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
