"""rote_hf.boards: the leaderboard's tables as pure functions of a rows DataFrame.

:mod:`rote_hf.boards.tables` holds the ROTE, CogScale and OEIS-LLM boards with their filters and
provenance columns. The suite units' ``board()`` and the Space's logic (:mod:`rote_hf.leaderboard`)
both use them; they read no file and know no suite unit.
"""
