"""Dataset-bias measures: extractive fragments, novel and repeated n-grams, fusion, position."""

# Per pair: fragment_stats (Grusky et al. 2018 coverage/density/compression, copy length),
# ngram_stats (novel and repeated n-grams, orders 1..4), sentence_support (fusion and position
# of the supporting content); item_bias bundles them. aggregate/aggregate_by take means.

from .aggregate import DEFAULT_POSITION_BINS, BiasMeans, aggregate, aggregate_by
from .errors import BiasError, InvalidOrderError, NoItemsError, TokensError
from .fragments import Fragment, FragmentStats, fragment_stats, greedy_fragments
from .item import ItemBias, PreparedDocument, item_bias, prepare_document, tokenize
from .ngrams import DEFAULT_MAX_ORDER, NgramStats, ngram_stats, ngrams
from .partial import BiasSums, bias_sums, sums_from_dict, sums_means, sums_merge
from .sentences import DEFAULT_MIN_FRAGMENT_LENGTH, SentenceSupport, sentence_support

__all__ = [
    "DEFAULT_MAX_ORDER",
    "DEFAULT_MIN_FRAGMENT_LENGTH",
    "DEFAULT_POSITION_BINS",
    "BiasError",
    "BiasMeans",
    "BiasSums",
    "Fragment",
    "FragmentStats",
    "InvalidOrderError",
    "ItemBias",
    "NgramStats",
    "NoItemsError",
    "PreparedDocument",
    "SentenceSupport",
    "TokensError",
    "aggregate",
    "aggregate_by",
    "bias_sums",
    "fragment_stats",
    "greedy_fragments",
    "item_bias",
    "ngram_stats",
    "ngrams",
    "prepare_document",
    "sentence_support",
    "sums_from_dict",
    "sums_means",
    "sums_merge",
    "tokenize",
]
