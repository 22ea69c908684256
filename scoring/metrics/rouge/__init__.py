"""ROUGE-1/2/L identical to rouge-score with stemming, for one pair or all pairs at once."""

# score_pair(target, prediction) mirrors RougeScorer(["rouge1", "rouge2", "rougeL"],
# use_stemmer=True).score and score_pairs does it for many pairs at once; allpairs(facets,
# sentences) scores every facet against every document sentence, allpairs_many several
# documents at once, allpairs_dataset streams batches of documents. All in array operations
# across texts; empty texts score 0.0, as in rouge-score; nothing returns NaN.

from .batch import PairwiseScores, score_pairs
from .engine import allpairs, allpairs_dataset, allpairs_many, score_pair
from .results import MEASURES, PRF, ROUGE_TYPES, AllPairs, PairScores, PRFMatrix
from .tokens import tokenize

__all__ = [
    "MEASURES",
    "PRF",
    "ROUGE_TYPES",
    "AllPairs",
    "PRFMatrix",
    "PairScores",
    "PairwiseScores",
    "allpairs",
    "allpairs_dataset",
    "allpairs_many",
    "score_pair",
    "score_pairs",
    "tokenize",
]
