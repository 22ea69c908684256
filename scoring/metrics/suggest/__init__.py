"""Suggestion scorers: rank document sentences per facet and build machine-made FAMs."""

from .base import (
    Scorer,
    ScorerUnavailableError,
    SuggestError,
    Suggestion,
    UnknownScorerError,
    has_evidence,
    rank,
    ranking,
    suggest,
)
from .combined import WeightedScorer
from .embedding import INSTALL_HINT, EmbeddingScorer, EmbeddingsUnavailableError
from .machine import machine_fam, machine_fam_from_scores
from .registry import ScorerInfo, get_scorer, scorer_infos, scorer_names
from .rouge import ROUGE_VARIANTS, RougeScorer
from .tfidf import TfidfScorer

__all__ = [
    "INSTALL_HINT",
    "ROUGE_VARIANTS",
    "EmbeddingScorer",
    "EmbeddingsUnavailableError",
    "RougeScorer",
    "Scorer",
    "ScorerInfo",
    "ScorerUnavailableError",
    "SuggestError",
    "Suggestion",
    "TfidfScorer",
    "UnknownScorerError",
    "WeightedScorer",
    "get_scorer",
    "has_evidence",
    "machine_fam",
    "machine_fam_from_scores",
    "rank",
    "ranking",
    "scorer_infos",
    "scorer_names",
    "suggest",
]
