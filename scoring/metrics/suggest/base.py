"""The suggestion-scorer interface, and ranking of document sentences per facet.

**Zero evidence.** A score of 0 or below is *no evidence* that a sentence supports a facet:
ROUGE and TF-IDF give exactly 0 when the two share no n-gram or term (and TF-IDF gives 0
everywhere when the texts have no word of two or more characters), and a cosine of 0 or below
means unrelated. Ties among such scores are still broken in document order by
:func:`ranking`, which would make sentence 0 look like the best candidate of a facet with no
evidence at all. So:

* :func:`ranking` is a plain order of *all* sentences and says nothing about evidence;
* :func:`rank` and :func:`suggest` leave out sentences without evidence by default, so a facet
  may get fewer than ``k`` suggestions, or none (an empty tuple: "no suggestion", never a
  made-up one). With ``keep_no_evidence=True`` they are kept, after every sentence with
  evidence, and flagged by :attr:`Suggestion.has_evidence`;
* machine-made FAMs never make a support group from a score of 0 or below
  (:func:`~scoring.metrics.suggest.machine.machine_fam_from_scores`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import MetricsError


class SuggestError(MetricsError):
    """Bad input to a scorer or to the ranking helpers."""


class ScorerUnavailableError(RuntimeError):
    """A scorer needs an optional dependency that is not installed."""


class UnknownScorerError(SuggestError):
    """No scorer is registered under the requested name."""


@dataclass(frozen=True)
class Suggestion:
    """One suggested support sentence for one facet.

    Attributes:
        facet: index of the facet (reference sentence).
        sentence: index of the document sentence.
        score: the scorer's similarity of the two.
        rank: 1-based position in the facet's ranking (1 = best).
    """

    facet: int
    sentence: int
    score: float
    rank: int

    @property
    def has_evidence(self) -> bool:
        """Whether the score is above 0; a score of 0 or below is no evidence of support.

        Returns:
            ``score > 0``.
        """
        return has_evidence(self.score)


def has_evidence(score: float) -> bool:
    """Whether a suggestion score is evidence of support: strictly above 0.

    Args:
        score: a scorer's score.

    Returns:
        ``score > 0``. Zero (nothing shared, or an empty vocabulary) and negative cosines are
        no evidence.
    """
    return score > 0.0


def check_texts(texts: Sequence[str], what: str) -> tuple[str, ...]:
    """Return ``texts`` as a tuple after checking that it is a sequence of strings.

    Args:
        texts: facets or document sentences.
        what: ``"facets"`` or ``"sentences"``, for error messages.

    Returns:
        The texts as a tuple.

    Raises:
        SuggestError: ``texts`` is a single string or holds a non-string (the error names it).
    """
    if isinstance(texts, str | bytes):
        raise SuggestError(f"{what} must be a sequence of strings, not a single string")
    items = tuple(texts)
    for index, text in enumerate(items):
        if not isinstance(text, str):
            raise SuggestError(f"{what}[{index}] is {type(text).__name__}, not a string")
    return items


class Scorer(ABC):
    """Scores every (facet, document sentence) pair; higher means a likelier support sentence.

    Subclasses set :attr:`name` (the registry name) and :attr:`version` (changes whenever the
    scores could change by more than float rounding) and implement :meth:`_score`.
    """

    name: str = ""
    version: str = ""

    def score(self, facets: Sequence[str], sentences: Sequence[str]) -> np.ndarray:
        """Score every facet against every document sentence.

        Args:
            facets: the reference sentences.
            sentences: the document's sentences.

        Returns:
            A float64 array of shape ``(len(facets), len(sentences))``; every value is finite.
            With no facet or no sentence it has zero rows or columns, so it holds no value at
            all (nothing is scored, and nothing can be suggested). A score of 0 or below is no
            evidence of support (see the module docstring).

        Raises:
            SuggestError: the inputs are not sequences of strings.
            ScorerUnavailableError: an optional dependency is missing.
        """
        facet_texts = check_texts(facets, "facets")
        sentence_texts = check_texts(sentences, "sentences")
        shape = (len(facet_texts), len(sentence_texts))
        if 0 in shape:
            return np.zeros(shape)
        scores = np.asarray(self._score(facet_texts, sentence_texts), dtype=np.float64)
        if scores.shape != shape:
            raise RuntimeError(f"{self.name}: scores have shape {scores.shape}, not {shape}")
        if not np.all(np.isfinite(scores)):
            raise RuntimeError(f"{self.name}: the scores hold NaN or infinite values")
        return scores

    @abstractmethod
    def _score(self, facets: tuple[str, ...], sentences: tuple[str, ...]) -> np.ndarray:
        """Scores of non-empty, checked inputs, shape ``(len(facets), len(sentences))``."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} version {self.version}>"


def _check_scores(scores: np.ndarray) -> np.ndarray:
    """Return ``scores`` as a finite 2-D float array or raise :class:`SuggestError`."""
    array = np.asarray(scores, dtype=np.float64)
    if array.ndim != 2:
        raise SuggestError(f"scores must be a (facets, sentences) matrix, got shape {array.shape}")
    bad = np.argwhere(~np.isfinite(array))
    if bad.size:
        facet, sentence = (int(i) for i in bad[0])
        raise SuggestError(f"score of facet {facet}, sentence {sentence} is not finite")
    return array


def _check_k(k: int | None) -> None:
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise SuggestError(f"k must be a positive integer or None, got {k!r}")


def ranking(scores: np.ndarray, k: int | None = None) -> np.ndarray:
    """Sentence indices per facet, best first.

    Ties are broken by document order: of two sentences with the same score, the earlier one
    (lower index) ranks first, so the ranking is deterministic.

    This is an order of every sentence, not a list of suggestions: it includes sentences with
    no evidence (score 0 or below), and a facet whose scores are all equal (e.g. all 0) comes
    out in document order. Use :func:`rank` or :func:`suggest`, which leave those out, or
    check ``scores > 0`` before using a position as an answer.

    Args:
        scores: a ``(facets, sentences)`` matrix, e.g. from :meth:`Scorer.score`.
        k: keep the best ``k`` per facet (all sentences when ``k`` is ``None`` or exceeds them).

    Returns:
        An int array of shape ``(facets, min(k, sentences))``.

    Raises:
        SuggestError: ``scores`` is not a finite matrix, or ``k`` is not a positive integer.
    """
    _check_k(k)
    array = _check_scores(scores)
    # argsort of the negated scores with a stable sort keeps equal scores in index order.
    order = np.argsort(-array, axis=1, kind="stable")
    return order if k is None else order[:, :k]


def rank(
    scores: np.ndarray, k: int | None = None, *, keep_no_evidence: bool = False
) -> tuple[tuple[Suggestion, ...], ...]:
    """Rank the document sentences for every facet as :class:`Suggestion` records.

    Ranks are 1-based positions; tied scores get consecutive ranks in document order (see
    :func:`ranking`). Sentences without evidence (score 0 or below) come after every sentence
    with evidence, so leaving them out only shortens a facet's tuple.

    Args:
        scores: a ``(facets, sentences)`` matrix.
        k: keep the best ``k`` per facet (all when ``None``).
        keep_no_evidence: keep suggestions whose score is 0 or below (flagged by
            :attr:`Suggestion.has_evidence`). By default they are left out, so a facet has
            at most ``k`` suggestions, and none when no sentence has evidence.

    Returns:
        One tuple of suggestions per facet, best first; an empty tuple for a facet without any
        suggestion.

    Raises:
        SuggestError: ``scores`` is not a finite matrix, or ``k`` is not a positive integer.
    """
    order = ranking(scores, k)
    array = np.asarray(scores, dtype=np.float64)
    return tuple(
        tuple(
            Suggestion(facet, int(sentence), float(array[facet, sentence]), position + 1)
            for position, sentence in enumerate(row)
            if keep_no_evidence or has_evidence(array[facet, sentence])
        )
        for facet, row in enumerate(order)
    )


def suggest(
    scorer: Scorer,
    facets: Sequence[str],
    sentences: Sequence[str],
    k: int | None = 3,
    *,
    keep_no_evidence: bool = False,
) -> tuple[tuple[Suggestion, ...], ...]:
    """Score with ``scorer`` and return the top-``k`` suggestions per facet.

    Args:
        scorer: any :class:`Scorer`.
        facets: the reference sentences.
        sentences: the document's sentences.
        k: suggestions per facet (default 3; ``None`` for all).
        keep_no_evidence: keep sentences scoring 0 or below (see :func:`rank`); by default a
            facet gets only sentences with evidence, possibly none.

    Returns:
        One tuple of suggestions per facet, best first; empty for a facet with no sentence
        scoring above 0 (and for every facet of a document without sentences).

    Raises:
        SuggestError: bad texts or ``k``.
        ScorerUnavailableError: the scorer's optional dependency is missing.
    """
    _check_k(k)
    return rank(scorer.score(facets, sentences), k, keep_no_evidence=keep_no_evidence)
