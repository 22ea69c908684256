"""TF-IDF cosine suggestion scorer (scikit-learn), fitted per document."""

from __future__ import annotations

import numpy as np

from ..lazy import sklearn_version, tfidf_vectorizer
from .base import Scorer, SuggestError

FIT_DOCUMENT_AND_FACETS = "document+facets"
FIT_DOCUMENT = "document"
FIT_CHOICES = (FIT_DOCUMENT_AND_FACETS, FIT_DOCUMENT)


class TfidfScorer(Scorer):
    """Rank sentences by the cosine of TF-IDF vectors.

    One ``TfidfVectorizer`` (scikit-learn defaults: lower-cased, words of two or more
    characters, smoothed idf ``ln((1 + N) / (1 + df)) + 1``, raw term counts, L2-normalised
    rows) is fitted per document. By default it is fitted on the document's sentences *and* the
    facets, each a separate text (``N = sentences + facets``): a facet word missing from the
    document then still counts in the facet's norm, and words shared by the facets weigh a
    little less. ``fit_on="document"`` fits on the sentences only, as the FAR release's
    notebook does when it maps extracted sentences; the facets' unseen words are then ignored.
    A facet or sentence with no word in the vocabulary scores 0 against everything.
    """

    name = "tfidf"

    def __init__(self, fit_on: str = FIT_DOCUMENT_AND_FACETS):
        """Choose what the vectoriser is fitted on.

        Args:
            fit_on: ``"document+facets"`` (default) or ``"document"``.

        Raises:
            SuggestError: another value.
        """
        if fit_on not in FIT_CHOICES:
            raise SuggestError(f"fit_on must be one of {FIT_CHOICES}, got {fit_on!r}")
        self.fit_on = fit_on
        if fit_on != FIT_DOCUMENT_AND_FACETS:
            self.name = f"tfidf-{fit_on}"
        self.version = f"1 (scikit-learn {sklearn_version()})"

    def _score(self, facets: tuple[str, ...], sentences: tuple[str, ...]) -> np.ndarray:
        vectorizer = tfidf_vectorizer()
        corpus = sentences + facets if self.fit_on == FIT_DOCUMENT_AND_FACETS else sentences
        try:
            vectorizer.fit(corpus)
        except ValueError:  # empty vocabulary: no word of two or more characters anywhere
            return np.zeros((len(facets), len(sentences)))
        cosine = (vectorizer.transform(facets) @ vectorizer.transform(sentences).T).toarray()
        return np.clip(cosine, 0.0, 1.0)
