"""Local mirror of the `rote` hub organisation: repo folders, cards and the build targets."""
