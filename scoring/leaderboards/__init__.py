"""Leaderboards: per-dataset tables, plots, downloads and human-judgment correlations."""
