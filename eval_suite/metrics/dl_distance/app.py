"""
Gradio demo of rote/dl_distance: paste forecasts and targets, one string per line.

Run with `python app.py` (serves on 127.0.0.1).
"""

from pathlib import Path

from rote_hf.hub.metric_modules import pair_demo

score, demo = pair_demo(Path(__file__).resolve().parent, "normalised Damerau-Levenshtein (OSA) distance.", "ABBA\nABCD", "ABAB\nABCD")

if __name__ == "__main__":
    demo.launch(server_name="127.0.0.1")
