"""
Gradio demo of rote/exact_rollout: paste forecasts and targets, one string per line.

Run with `python app.py` (serves on 127.0.0.1).
"""

from pathlib import Path

from rote_hf.hub.metric_modules import pair_demo

score, demo = pair_demo(Path(__file__).resolve().parent, "closed-loop rollout scores.", "ABCDABCD\nABCDABDC", "ABCDABCD\nABCDABCD")

if __name__ == "__main__":
    demo.launch(server_name="127.0.0.1")
