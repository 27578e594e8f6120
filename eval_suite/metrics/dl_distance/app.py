"""
Gradio demo of rote/dl_distance: paste forecasts and targets, one string per line.

Run with `python app.py`: serves on $GRADIO_SERVER_NAME:$GRADIO_SERVER_PORT (the Hub sets
them), 127.0.0.1 and 7860 or the next free port otherwise.
"""

from pathlib import Path

from rote_pair import pair_demo
from serve import launch

score, demo = pair_demo(Path(__file__).resolve().parent, "normalised Damerau-Levenshtein (OSA) distance.", "ABBA\nABCD", "ABAB\nABCD")

if __name__ == "__main__":
    launch(demo)
