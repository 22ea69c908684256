"""ROUGE identical to rouge-score, with any of its options, for one pair or all pairs at once."""

# score_pair(target, prediction, config) mirrors RougeScorer(rouge_types, use_stemmer,
# split_summaries).score for any of rouge-score's types (rouge1..rouge9, rougeL, rougeLsum;
# RougeConfig, Loupe's default stemmed ROUGE-1/2/L/Lsum), and score_pairs does it for many
# pairs at once; allpairs(facets, sentences) scores every facet against every document
# sentence with ROUGE-1/2/L, allpairs_many several documents at once, allpairs_dataset streams
# batches of documents. All in array operations across texts; empty texts score 0.0, as in
# rouge-score; nothing returns NaN.

from .batch import PairwiseScores, score_pairs
from .config import (
    ALL_ROUGE_KEYS,
    DEFAULT_ROUGE,
    ROUGE_ALL_TYPES,
    RougeConfig,
    RougeConfigError,
    RougeKey,
    parse_rouge_key,
)
from .engine import allpairs, allpairs_dataset, allpairs_many, score_pair
from .results import MEASURES, PRF, ROUGE_TYPES, AllPairs, PairScores, PRFMatrix
from .tokens import tokenize

__all__ = [
    "ALL_ROUGE_KEYS",
    "DEFAULT_ROUGE",
    "MEASURES",
    "PRF",
    "ROUGE_ALL_TYPES",
    "ROUGE_TYPES",
    "AllPairs",
    "PRFMatrix",
    "PairScores",
    "PairwiseScores",
    "RougeConfig",
    "RougeConfigError",
    "RougeKey",
    "allpairs",
    "allpairs_dataset",
    "allpairs_many",
    "parse_rouge_key",
    "score_pair",
    "score_pairs",
    "tokenize",
]
