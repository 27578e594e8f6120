"""rote_hf.leaderboard: the pure logic of the leaderboard Space (tables, filters, plot data, submissions).

Everything here takes and returns pandas DataFrames or plain values, so that it is testable
without a server; ``space/app.py`` only wires these functions to Gradio components.

- the ROTE, CogScale and OEIS-LLM boards with their filters and provenance columns, re-exported
  from :mod:`rote_hf.boards.tables` (pure table functions, which the suite units use too).
- :mod:`rote_hf.leaderboard.plots`: the data behind every plot (and the radar chart as SVG).
- :mod:`rote_hf.leaderboard.validate`: the full row schema every shown or submitted row meets.
- :mod:`rote_hf.leaderboard.submission`: validation and all-or-nothing storage of uploaded result files.
- :mod:`rote_hf.leaderboard.source`: where the rows come from (local store, hub results repo).
"""

from rote_hf.leaderboard.source import RESULTS_REPO_ENV, load_board_rows, load_rows
from rote_hf.leaderboard.submission import MAX_BYTES, MAX_ROWS, SubmissionError, parse_submission, store_submission
from rote_hf.boards.tables import ALL, cogscale_board, filter_choices, llm_board, rote_board, rote_frame

__all__ = [
    "ALL", "MAX_BYTES", "MAX_ROWS", "RESULTS_REPO_ENV", "SubmissionError", "cogscale_board", "filter_choices",
    "llm_board", "load_board_rows", "load_rows", "parse_submission", "rote_board", "rote_frame", "store_submission",
]
