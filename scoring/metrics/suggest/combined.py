"""A weighted mix of several suggestion scorers."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .base import Scorer, SuggestError


class WeightedScorer(Scorer):
    """Score = the weighted sum of other scorers' scores, ``sum(w_i * s_i)``.

    The parts' raw scores are mixed as they are (no per-facet normalisation): ROUGE and TF-IDF
    lie in [0, 1] and the embedding cosine in [-1, 1], so the weights are directly comparable.
    """

    def __init__(self, parts: Sequence[tuple[Scorer, float]], name: str | None = None):
        """Set the parts and their weights.

        Args:
            parts: ``(scorer, weight)`` pairs; weights must be finite and not all zero.
            name: the scorer's name; by default built from the parts, e.g.
                ``"0.6*rougeavg-f+0.4*embedding"``.

        Raises:
            SuggestError: no parts, a non-finite weight, or only zero weights.
        """
        items = tuple((scorer, float(weight)) for scorer, weight in parts)
        if not items:
            raise SuggestError("a weighted scorer needs at least one part")
        for scorer, weight in items:
            if not np.isfinite(weight):
                raise SuggestError(f"weight of {scorer.name!r} is not finite: {weight!r}")
        if all(weight == 0.0 for _, weight in items):
            raise SuggestError("a weighted scorer needs a non-zero weight")
        self.parts = items
        self.name = name or "+".join(f"{w:g}*{s.name}" for s, w in items)
        self.version = "1 [" + ", ".join(f"{s.name} {s.version}" for s, _ in items) + "]"

    def _score(self, facets: tuple[str, ...], sentences: tuple[str, ...]) -> np.ndarray:
        total = np.zeros((len(facets), len(sentences)))
        for scorer, weight in self.parts:
            if weight != 0.0:
                total += weight * scorer.score(facets, sentences)
        return total
