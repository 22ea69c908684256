"""ROUGE-1, -2, -L and -AVG suggestion scorers (F, P or R) on the all-pairs ROUGE engine."""

from __future__ import annotations

from importlib.metadata import version as package_version

import numpy as np

from ..rouge import AllPairs, allpairs
from .base import Scorer, SuggestError

ROUGE_VARIANTS = ("rouge1", "rouge2", "rougeL", "rougeavg")
MEASURES = {"f": "fmeasure", "p": "precision", "r": "recall"}


def rouge_version(use_stemmer: bool = True) -> str:
    """The ROUGE scorers' cache version: our code's version and the package behind the scores.

    The tokens and the stems come from rouge-score-rs (rouge-score's tokenizer and a compiled
    port of NLTK's Porter stemmer, tested identical to both), so precomputed suggestions are
    keyed by its installed version (read from the package metadata, without importing it), and
    by the stemming when it is off. rouge-score itself is a test reference that production
    does not install: naming its version here failed every ROUGE suggestion job of a
    ``make run`` install (version 2 did).

    Args:
        use_stemmer: whether the words are stemmed.

    Returns:
        E.g. ``"3 (rouge-score-rs 0.2.1)"``, with ``", use_stemmer=False"`` added when
        unstemmed.
    """
    version = f"3 (rouge-score-rs {package_version('rouge-score-rs')})"
    return version if use_stemmer else f"{version}, use_stemmer=False"


class RougeScorer(Scorer):
    """Rank sentences by ROUGE between the facet (target) and the sentence (prediction).

    Scores come from :func:`scoring.metrics.rouge.allpairs` (rouge-score's tokenizer, with
    Porter stemming unless ``use_stemmer`` is False; identical to ``rouge_score.RougeScorer``).
    ROUGE-AVG is the FAR paper's mean of the ROUGE-1, -2 and -L values of the chosen measure.
    Precision is the share of the sentence's n-grams found in the facet; recall the share of
    the facet's n-grams found in the sentence.

    :attr:`version` holds the rouge-score-rs version (see :func:`rouge_version`), so a
    cache of precomputed suggestions keyed by it is not reused after it changes.
    """

    def __init__(self, variant: str = "rougeavg", measure: str = "f", use_stemmer: bool = True):
        """Choose the ROUGE type, the measure and the stemming.

        Args:
            variant: ``"rouge1"``, ``"rouge2"``, ``"rougeL"`` or ``"rougeavg"`` (any case).
            measure: ``"f"`` (F-measure, default), ``"p"`` (precision) or ``"r"`` (recall).
            use_stemmer: Porter-stem the words (rouge-score's ``use_stemmer``).

        Raises:
            SuggestError: an unknown variant or measure.
        """
        lookup = {v.lower(): v for v in ROUGE_VARIANTS}
        if not isinstance(variant, str) or variant.lower() not in lookup:
            raise SuggestError(f"unknown ROUGE variant {variant!r}; choose one of {ROUGE_VARIANTS}")
        if measure not in MEASURES:
            raise SuggestError(f"unknown measure {measure!r}; choose one of {tuple(MEASURES)}")
        self.variant = lookup[variant.lower()]
        self.measure = measure
        self.name = f"{self.variant.lower()}-{measure}"
        self.use_stemmer = bool(use_stemmer)
        self.version = rouge_version(self.use_stemmer)

    def _score(self, facets: tuple[str, ...], sentences: tuple[str, ...]) -> np.ndarray:
        return self.from_pairs(allpairs(facets, sentences, self.use_stemmer))

    def from_pairs(self, pairs: AllPairs) -> np.ndarray:
        """This scorer's matrix from all-pairs ROUGE already computed for the document.

        Every ROUGE scorer reads the same :func:`~scoring.metrics.rouge.allpairs` result, so
        several of them (AutoFAR's features, say) can share one computation per document;
        ``score`` gives the same values.

        Args:
            pairs: ``allpairs(facets, sentences, use_stemmer)`` of non-empty facets and
                sentences, with this scorer's stemming.

        Returns:
            The ``(facets, sentences)`` matrix of this variant and measure.
        """
        measure = MEASURES[self.measure]
        if self.variant != "rougeavg":
            return np.array(getattr(pairs, self.variant).measure(measure))
        if measure == "fmeasure":
            return pairs.avg_f()
        return (
            pairs.rouge1.measure(measure)
            + pairs.rouge2.measure(measure)
            + pairs.rougeL.measure(measure)
        ) / 3
