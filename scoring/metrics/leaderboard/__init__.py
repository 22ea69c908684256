"""Leaderboards over plain data: per-output scores, means with CIs, paired tests, coverage,
PolyTope's pooled scores with ratio CIs, and the meta-evaluation of metrics against a human study
(and a release's own scores against Loupe's)."""

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
from .meta_evaluation import (
    DEFAULT_TOP_K,
    MetaEvaluation,
    SubsetCorrelation,
    meta_evaluate,
    top_k_subset,
)
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
from .released import (
    RELEASED_LOUPE_KEYS,
    ReleasedComparison,
    compare_released,
    released_metric,
)
from .table import Cell, Comparison, Leaderboard, Row, build_leaderboard, interval_cells

__all__ = [
    "DEFAULT_TOP_K",
    "FAITHFULNESS",
    "FAR_MEASURES",
    "HUMAN_METRICS",
    "POLYTOPE",
    "POLYTOPE_COUNTS",
    "POLYTOPE_METRICS",
    "RELEASED_LOUPE_KEYS",
    "ROUGE_KEYS",
    "Cell",
    "ColumnDocuments",
    "Comparison",
    "HumanScoreCorrelation",
    "Leaderboard",
    "MetaEvaluation",
    "MetricCorrelation",
    "OutputScores",
    "PolytopeCell",
    "PolytopeDocument",
    "ReleasedComparison",
    "Row",
    "ScoreColumn",
    "StoredCell",
    "SubsetCorrelation",
    "breakdown_dict",
    "breakdown_sum",
    "build_leaderboard",
    "compare_released",
    "correlate_human_scores",
    "correlate_with_human",
    "far_key",
    "interval_cells",
    "meta_evaluate",
    "parse_far_key",
    "polytope_cell",
    "polytope_document",
    "rank_by_polytope",
    "released_metric",
    "scope_key",
    "outputs_rouge",
    "score_output",
    "segment_from_values",
    "severity_by_label",
    "top_k_subset",
]
