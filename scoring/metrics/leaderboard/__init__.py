"""Leaderboards over plain data: per-output scores, means with CIs, paired tests, coverage."""

from .correlations import MetricCorrelation, correlate_with_human
from .documents import (
    FAR_MEASURES,
    ROUGE_KEYS,
    OutputScores,
    far_key,
    parse_far_key,
    score_output,
)
from .table import Cell, Comparison, Leaderboard, Row, build_leaderboard

__all__ = [
    "FAR_MEASURES",
    "ROUGE_KEYS",
    "Cell",
    "Comparison",
    "Leaderboard",
    "MetricCorrelation",
    "OutputScores",
    "Row",
    "build_leaderboard",
    "correlate_with_human",
    "far_key",
    "parse_far_key",
    "score_output",
]
