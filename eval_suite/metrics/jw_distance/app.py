"""
Gradio demo of rote/jw_distance: paste forecasts and targets, one string per line.

Run with `python app.py` (serves on 127.0.0.1). Our own small Blocks app, because
evaluate's launch_gradio_widget does not work with gradio 6.
"""

from pathlib import Path

import evaluate
import gradio as gr

METRIC = evaluate.load(str(Path(__file__).resolve().parent))


def score(predictions: str, references: str) -> dict:
    """Compute the metric on one forecast/target pair per line; errors come back as text."""
    try:
        return METRIC.compute(predictions=predictions.splitlines(), references=references.splitlines())
    except (ValueError, TypeError) as err:
        return {"error": str(err)}


with gr.Blocks(title="rote/jw_distance") as demo:
    gr.Markdown("# rote/jw_distance\nJaro-Winkler distance (prefix bonus at every Jaro value). One string per line; line i of each box forms pair i.")
    with gr.Row():
        predictions = gr.Textbox(label="predictions (forecasts)", lines=6, value="marhta\nDIXON")
        references = gr.Textbox(label="references (targets)", lines=6, value="martha\nDICKSONX")
    button = gr.Button("Compute")
    result = gr.JSON(label="result")
    button.click(score, inputs=[predictions, references], outputs=result, api_name="compute")


if __name__ == "__main__":
    demo.launch(server_name="127.0.0.1")
