"""
Gradio demo of rote/jw_distance: paste forecasts and targets, one string per line.

Run with `python app.py`: serves on $GRADIO_SERVER_NAME:$GRADIO_SERVER_PORT (the Hub sets
them), 127.0.0.1 and 7860 or the next free port otherwise.
"""

from pathlib import Path

from rote_pair import pair_demo
from serve import launch

score, demo = pair_demo(Path(__file__).resolve().parent, "Jaro-Winkler distance (prefix bonus at every Jaro value).", "marhta\nDIXON", "martha\nDICKSONX")

if __name__ == "__main__":
    launch(demo)
