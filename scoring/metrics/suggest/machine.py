"""Machine-made FAMs: the top-N sentences per facet, each its own support group."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..fam import Fam, validate_fam
from .base import Scorer, SuggestError, ranking


def machine_fam_from_scores(
    scores: np.ndarray, *, top_n: int = 1, min_score: float | None = None
) -> Fam:
    """Build a FAM from a score matrix, as in the FAR paper (Mao et al., 2020, Sec. 4.2).

    Each facet gets its ``top_n`` best sentences (ties in document order, see
    :func:`~scoring.metrics.suggest.base.ranking`), each as a support group of its own, so the
    facet counts as covered when any one of them is extracted. A document with fewer than
    ``top_n`` sentences gives every sentence. With ``min_score``, sentences scoring below it
    are left out, and a facet with no sentence left gets no group (it is then unsupported).

    Args:
        scores: a ``(facets, sentences)`` matrix from a scorer.
        top_n: how many sentences per facet (default 1).
        min_score: optional lowest score a suggested sentence must reach.

    Returns:
        The validated :class:`~scoring.metrics.fam.Fam`.

    Raises:
        SuggestError: ``top_n`` is not a positive integer, or ``scores`` is not a finite matrix.
    """
    if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1:
        raise SuggestError(f"top_n must be a positive integer, got {top_n!r}")
    order = ranking(scores, top_n)
    array = np.asarray(scores, dtype=np.float64)
    mapping = {
        facet: [
            [int(sentence)]
            for sentence in row
            if min_score is None or array[facet, sentence] >= min_score
        ]
        for facet, row in enumerate(order)
    }
    return validate_fam(mapping, n_sentences=array.shape[1], n_facets=array.shape[0])


def machine_fam(
    scorer: Scorer,
    facets: Sequence[str],
    sentences: Sequence[str],
    *,
    top_n: int = 1,
    min_score: float | None = None,
) -> Fam:
    """Score one document with ``scorer`` and build its machine-made FAM.

    Args:
        scorer: any :class:`~scoring.metrics.suggest.base.Scorer`.
        facets: the reference sentences.
        sentences: the document's sentences.
        top_n: how many sentences per facet (default 1).
        min_score: optional lowest score a suggested sentence must reach.

    Returns:
        The validated :class:`~scoring.metrics.fam.Fam` (see :func:`machine_fam_from_scores`).

    Raises:
        SuggestError: bad texts, ``top_n`` or scores.
        ScorerUnavailableError: the scorer's optional dependency is missing.
    """
    return machine_fam_from_scores(
        scorer.score(facets, sentences), top_n=top_n, min_score=min_score
    )
