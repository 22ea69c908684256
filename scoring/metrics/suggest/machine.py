"""Machine-made FAMs: the top-N sentences per facet, each its own support group.

Only sentences scoring above 0 become groups: a score of 0 or below is no evidence.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..fam import FacetAwareMapping, validate_fam
from .base import Scorer, SuggestError, has_evidence, ranking


def _check_min_score(min_score: float | None) -> None:
    if min_score is None:
        return
    if (
        isinstance(min_score, bool)
        or not isinstance(min_score, int | float | np.floating | np.integer)
        or not np.isfinite(min_score)
        or min_score <= 0
    ):
        raise SuggestError(
            f"min_score must be a finite number above 0 (a score of 0 or below is no evidence "
            f"of support), got {min_score!r}"
        )


def machine_fam_from_scores(
    scores: np.ndarray, *, top_n: int = 1, min_score: float | None = None
) -> FacetAwareMapping:
    """Build a FAM from a score matrix, as in the FAR paper (Mao et al., 2020, Sec. 4.2).

    Each facet gets its ``top_n`` best sentences (ties in document order, see
    :func:`~scoring.metrics.suggest.base.ranking`), each as a support group of its own, so the
    facet counts as covered when any one of them is extracted. A document with fewer than
    ``top_n`` sentences gives every sentence.

    A support group is never made from a score of 0 or below: that is no evidence (nothing
    shared, an empty TF-IDF vocabulary, an unrelated embedding), and the tie-break in document
    order would otherwise turn it into a group ``{0}``. So by default (``min_score=None``)
    only sentences scoring strictly above 0 are kept; an explicit ``min_score`` must itself be
    above 0. A facet with no sentence left gets no group: it is then unsupported, which FAR
    leaves out of its denominator by default. A document whose facets all lack evidence gives
    a FAM without any group (FAR then refuses it with ``NoSupportError``, as for any
    unscorable document).

    Args:
        scores: a ``(facets, sentences)`` matrix from a scorer.
        top_n: how many sentences per facet at most (default 1).
        min_score: lowest score a suggested sentence must reach, above 0; ``None`` (default)
            keeps every score strictly above 0.

    Returns:
        The validated :class:`~scoring.metrics.fam.FacetAwareMapping`.

    Raises:
        SuggestError: ``top_n`` is not a positive integer, ``min_score`` is not a finite number
            above 0, or ``scores`` is not a finite matrix.
    """
    if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1:
        raise SuggestError(f"top_n must be a positive integer, got {top_n!r}")
    _check_min_score(min_score)
    order = ranking(scores, top_n)
    array = np.asarray(scores, dtype=np.float64)
    mapping = {
        facet: [
            [int(sentence)]
            for sentence in row
            if has_evidence(array[facet, sentence])
            and (min_score is None or array[facet, sentence] >= min_score)
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
) -> FacetAwareMapping:
    """Score one document with ``scorer`` and build its machine-made FAM.

    Args:
        scorer: any :class:`~scoring.metrics.suggest.base.Scorer`.
        facets: the reference sentences.
        sentences: the document's sentences.
        top_n: how many sentences per facet at most (default 1).
        min_score: lowest score a suggested sentence must reach, above 0; ``None`` (default)
            keeps every score strictly above 0. A score of 0 or below never makes a group.

    Returns:
        The validated :class:`~scoring.metrics.fam.FacetAwareMapping` (see
        :func:`machine_fam_from_scores`).

    Raises:
        SuggestError: bad texts, ``top_n``, ``min_score`` or scores.
        ScorerUnavailableError: the scorer's optional dependency is missing.
    """
    return machine_fam_from_scores(
        scorer.score(facets, sentences), top_n=top_n, min_score=min_score
    )
