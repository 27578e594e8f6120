"""
Gradio demo of rote/cogscale_score: paste predictions, targets and timesteps as JSON.

Run with `python app.py`: serves on $GRADIO_SERVER_NAME:$GRADIO_SERVER_PORT (the Hub sets
them), 127.0.0.1 and 7860 or the next free port otherwise. Our own small Blocks app, because
evaluate's launch_gradio_widget does not work with gradio 6.
"""

import json
from pathlib import Path

import evaluate
import gradio as gr

from serve import launch

METRIC = evaluate.load(str(Path(__file__).resolve().parent))


def score(predictions: str, references: str, timesteps: str, category: str, threshold: float) -> dict:
    """Score [B, L, O] JSON arrays at the given timesteps ([B, n] JSON, or null per row for the
    -100 mask); errors come back as text."""
    try:
        return METRIC.compute(
            predictions=json.loads(predictions),
            references=json.loads(references),
            prediction_timesteps=json.loads(timesteps),
            category=category,
            threshold=float(threshold),
        )
    except (ValueError, TypeError) as err:
        return {"error": str(err)}


with gr.Blocks(title="rote/cogscale_score") as demo:
    gr.Markdown(
        "# rote/cogscale_score\nCogScale's error rate (classification), label-wise error "
        "(multi_classification, sigmoid threshold) or MSE (regression) at the prediction timesteps."
    )
    with gr.Row():
        predictions = gr.Code(label="predictions [B, L, O]", language="json", value="[[[0.9, 0.1], [0.2, 0.8]]]")
        references = gr.Code(label="references [B, L, O]", language="json", value="[[[1, 0], [1, 0]]]")
        timesteps = gr.Code(label="prediction_timesteps [B, n]", language="json", value="[[0, 1]]")
    with gr.Row():
        category = gr.Dropdown(["classification", "multi_classification", "regression"], value="classification", label="category")
        threshold = gr.Slider(0.0, 1.0, value=0.5, step=0.01, label="threshold (multi_classification)")
    button = gr.Button("Compute")
    result = gr.JSON(label="result")
    button.click(score, inputs=[predictions, references, timesteps, category, threshold], outputs=result, api_name="compute")


if __name__ == "__main__":
    launch(demo)
