"""
Gradio demo of rote/confabulation: paste LLM answers as JSON rows and score them.

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

FIELDS = ("predictions", "references", "confidence", "abstained", "recognized", "status")
EXAMPLE = json.dumps(
    [
        {"prediction": [5, 8, 13], "reference": [5, 8, 13], "confidence": 5, "abstained": False, "recognized": True, "status": "ok"},
        {"prediction": [1, 2, 3], "reference": [4, 5, 6], "confidence": 4, "abstained": False, "recognized": False, "status": "ok"},
        {"prediction": [], "reference": [7, 7, 7], "confidence": None, "abstained": False, "recognized": None, "status": "no_json"},
    ],
    indent=1,
)


def score(rows_json: str) -> dict:
    """Score a JSON list of rows with keys prediction, reference, confidence, abstained,
    recognized and status; errors come back as text."""
    try:
        rows = json.loads(rows_json)
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ValueError("rows must be a JSON list of objects")
        singular = {"predictions": "prediction", "references": "reference"}
        columns = {f: [r.get(singular.get(f, f)) for r in rows] for f in FIELDS}
        return METRIC.compute(**columns)
    except (ValueError, TypeError) as err:
        return {"error": str(err)}


with gr.Blocks(title="rote/confabulation") as demo:
    gr.Markdown(
        "# rote/confabulation\nAccuracy, abstention and confabulation (confidence >= 4 and wrong) "
        "of LLM next-term answers. Failed parses are counted, never scored as wrong."
    )
    rows = gr.Code(label="rows (JSON)", language="json", value=EXAMPLE)
    button = gr.Button("Compute")
    result = gr.JSON(label="result")
    button.click(score, inputs=rows, outputs=result, api_name="compute")


if __name__ == "__main__":
    launch(demo)
