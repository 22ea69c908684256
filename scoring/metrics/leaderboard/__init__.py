"""Leaderboards over plain data: per-output scores, means with CIs, paired tests, coverage, and
PolyTope's pooled scores with ratio CIs."""

from .columns import ColumnDocuments, ScoreColumn, StoredCell, scope_key
from .correlations import MetricCorrelation, correlate_with_human
from .documents import (
    FAR_MEASURES,
    ROUGE_KEYS,
    OutputScores,
    far_key,
    outputs_rouge,
    parse_far_key,
    score_output,
)
from .instance import FAITHFULNESS, HUMAN_METRICS, HumanScoreCorrelation, correlate_human_scores
from .polytope import (
    POLYTOPE,
    POLYTOPE_COUNTS,
    POLYTOPE_METRICS,
    PolytopeCell,
    PolytopeDocument,
    breakdown_dict,
    breakdown_sum,
    polytope_cell,
    polytope_document,
    rank_by_polytope,
    segment_from_values,
    severity_by_label,
)
from .table import Cell, Comparison, Leaderboard, Row, build_leaderboard, interval_cells

__all__ = [
    "FAITHFULNESS",
    "FAR_MEASURES",
    "HUMAN_METRICS",
    "POLYTOPE",
    "POLYTOPE_COUNTS",
    "POLYTOPE_METRICS",
    "ROUGE_KEYS",
    "Cell",
    "ColumnDocuments",
    "Comparison",
    "HumanScoreCorrelation",
    "Leaderboard",
    "MetricCorrelation",
    "OutputScores",
    "PolytopeCell",
    "PolytopeDocument",
    "Row",
    "ScoreColumn",
    "StoredCell",
    "breakdown_dict",
    "breakdown_sum",
    "build_leaderboard",
    "correlate_human_scores",
    "correlate_with_human",
    "far_key",
    "interval_cells",
    "parse_far_key",
    "polytope_cell",
    "polytope_document",
    "rank_by_polytope",
    "scope_key",
    "outputs_rouge",
    "score_output",
    "segment_from_values",
    "severity_by_label",
]
