"""ROUGE-1/2/L identical to rouge-score with stemming, for one pair or all pairs at once."""

# score_pair(target, prediction) mirrors RougeScorer(["rouge1", "rouge2", "rougeL"],
# use_stemmer=True).score; allpairs(facets, sentences) scores every facet against every
# document sentence in a few array operations; allpairs_dataset streams it over a dataset.
# Empty texts score 0.0, as in rouge-score; nothing returns NaN.

from .engine import allpairs, allpairs_dataset, score_pair
from .results import MEASURES, PRF, ROUGE_TYPES, AllPairs, PairScores, PRFMatrix
from .tokens import tokenize

__all__ = [
    "MEASURES",
    "PRF",
    "ROUGE_TYPES",
    "AllPairs",
    "PRFMatrix",
    "PairScores",
    "allpairs",
    "allpairs_dataset",
    "score_pair",
    "tokenize",
]
