"""rote_hf.reports: the applications over stored results, above the suites and the sweep runner.

:mod:`~rote_hf.reports.commands` is ``rote-hf results`` (a suite's table, the suite-agnostic
leaderboard, the CogScale reproduction report); :mod:`~rote_hf.reports.export` ships a sweep's
finished runs with the package.
"""
