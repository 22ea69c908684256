"""Leaderboard selectors (reads): the board of a dataset, and one system's versions and scores."""

from .board import (
    ALPHA,
    CATEGORIES,
    LEVEL,
    METRICS,
    LeaderboardParamsError,
    LeaderboardRead,
    check_params,
    dataset_metrics,
    leaderboard_colours,
    leaderboard_documents,
    leaderboard_per_document,
    leaderboard_read,
    leaderboard_scores,
)
from .outputs import (
    output_document_view,
    output_score_table,
    output_version_get,
    output_version_list,
)

__all__ = [
    "ALPHA",
    "CATEGORIES",
    "LEVEL",
    "METRICS",
    "LeaderboardParamsError",
    "LeaderboardRead",
    "check_params",
    "dataset_metrics",
    "leaderboard_colours",
    "leaderboard_documents",
    "leaderboard_per_document",
    "leaderboard_read",
    "leaderboard_scores",
    "output_document_view",
    "output_score_table",
    "output_version_get",
    "output_version_list",
]
