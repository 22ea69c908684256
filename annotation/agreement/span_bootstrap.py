"""Bootstrap intervals over items of span agreement figures: per-item terms, pooled statistics.

Each campaign- or system-level figure of span F1 (exact and partial), type kappa and alpha and
segment-score alpha is a function of sums over the items, so its interval comes from resampling
the items (:func:`scoring.metrics.stats.sums.bootstrap_sums_cis`): an item is the unit because
the items, not the spans, are what was sampled. Per item, the terms are:

- span F1: ``2 * matched`` and the spans of every annotator pair; F1 = the first sum over the
  second (undefined when no span was marked);
- type kappa (Light's): per annotator pair, its matched span pairs, those with equal types and
  each annotator's count of every type among them; each pair's Cohen kappa comes from the
  sums, and the figure is the mean of the defined pair kappas (as the core computes it);
- type alpha (nominal): the disagreeing coincidences of the item's span clusters and the
  count of every type among the pairable values;
- score alpha (interval): the number of scores, their sum and sum of squares (centred on the
  level's mean, which alpha does not depend on) and the within-item squared differences.

Matching and clustering are the core's (``match_spans``, ``span_clusters``, on the spans as
``load_spans`` sorts them), so the statistic of the whole sample is the core's figure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from scoring.metrics.agreement.corpus import Corpus
from scoring.metrics.agreement.spans import Span, SpanMatching, match_spans, span_clusters
from scoring.metrics.stats.sums import Statistic

CI_MEASURES = (
    "span_f1_exact",
    "span_f1_partial",
    "kappa_type",
    "alpha_type",
    "score_alpha_interval",
)


@dataclass
class _Columns:
    """Appends blocks of columns to the per-item term matrix."""

    rows: int
    blocks: list[np.ndarray] = field(default_factory=list)
    width: int = 0

    def add(self, block: np.ndarray) -> slice:
        self.blocks.append(block)
        start, self.width = self.width, self.width + block.shape[1]
        return slice(start, self.width)

    def matrix(self) -> np.ndarray:
        return np.hstack(self.blocks) if self.blocks else np.zeros((self.rows, 0))


def _ratio(columns: slice) -> Statistic:
    def statistic(sums: np.ndarray) -> np.ndarray:
        part = sums[:, columns]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(part[:, 1] > 0, part[:, 0] / part[:, 1], np.nan)

    return statistic


def _f1_terms(corpus: Corpus, matching: SpanMatching) -> np.ndarray:
    terms = np.zeros((len(corpus.documents), 2))
    for row, item in enumerate(corpus.documents):
        spans = corpus.data[item]
        for a, b in corpus.pairs(item):
            matched = len(match_spans(spans[a], spans[b], matching))
            terms[row] += (2 * matched, len(spans[a]) + len(spans[b]))
    return terms


def _categories(corpus: Corpus) -> dict[Hashable, int]:
    names = {
        span.subtype for item in corpus.documents for spans in corpus.data[item].values()
        for span in spans
    }  # fmt: skip
    return {name: i for i, name in enumerate(sorted(names, key=str))}


def _kappa_terms(corpus: Corpus, matching: SpanMatching, index: Mapping) -> np.ndarray:
    """Per item, per annotator pair: [matched, equal, A's counts per type, B's per type]."""
    pairs = list(combinations(corpus.annotators, 2))
    width = 2 + 2 * len(index)
    where = {pair: p * width for p, pair in enumerate(pairs)}
    terms = np.zeros((len(corpus.documents), len(pairs) * width))
    for row, item in enumerate(corpus.documents):
        spans = corpus.data[item]
        for a, b in corpus.pairs(item):
            base = where[(a, b)]
            for i, j, _ in match_spans(spans[a], spans[b], matching):
                first, second = spans[a][i].subtype, spans[b][j].subtype
                terms[row, base] += 1
                terms[row, base + 1] += first == second
                terms[row, base + 2 + index[first]] += 1
                terms[row, base + 2 + len(index) + index[second]] += 1
    return terms


def _light_kappa(columns: slice, pairs: int, categories: int) -> Statistic:
    def statistic(sums: np.ndarray) -> np.ndarray:
        part = sums[:, columns].reshape(sums.shape[0], pairs, 2 + 2 * categories)
        n, equal = part[:, :, 0], part[:, :, 1]
        shares_a = part[:, :, 2 : 2 + categories]
        shares_b = part[:, :, 2 + categories :]
        chance = (shares_a * shares_b).sum(axis=2)  # p_e * n^2, exact for integer counts
        defined = (n > 0) & (chance != n * n)
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = chance / (n * n)
            kappa = np.where(defined, (equal / n - expected) / (1 - expected), np.nan)
            counted = defined.sum(axis=1)
            return np.where(counted > 0, np.nansum(kappa, axis=1) / counted, np.nan)

    return statistic


def _alpha_terms(corpus: Corpus, matching: SpanMatching, index: Mapping) -> np.ndarray:
    """Per item: [disagreeing coincidences, count of each type among pairable values]."""
    terms = np.zeros((len(corpus.documents), 1 + len(index)))
    for row, item in enumerate(corpus.documents):
        spans = corpus.data[item]
        present = [a for a in corpus.annotators if a in spans]
        for cluster in span_clusters(spans, present, matching):
            m = len(cluster)
            if m < 2:
                continue
            counts = Counter(spans[a][i].subtype for a, i in cluster)
            same = sum(c * (c - 1) for c in counts.values())
            terms[row, 0] += (m * (m - 1) - same) / (m - 1)
            for name, count in counts.items():
                terms[row, 1 + index[name]] += count
    return terms


def _nominal_alpha(columns: slice) -> Statistic:
    def statistic(sums: np.ndarray) -> np.ndarray:
        part = sums[:, columns]
        disagree, counts = part[:, 0], part[:, 1:]
        n = counts.sum(axis=1)
        spread = n * n - (counts * counts).sum(axis=1)  # sum over c != k of n_c n_k
        defined = (n > 0) & ((counts > 0).sum(axis=1) >= 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(defined, 1 - (n - 1) * disagree / spread, np.nan)

    return statistic


def _score_terms(
    items: Sequence[Hashable], scores: Mapping[Hashable, Mapping[Hashable, float]]
) -> np.ndarray:
    """Per item: [scores, sum, sum of squares (centred), within-item squared differences]."""
    values = [v for item in items for v in scores.get(item, {}).values()]
    centre = float(np.mean(values)) if values else 0.0
    terms = np.zeros((len(items), 4))
    for row, item in enumerate(items):
        given = [v - centre for v in scores.get(item, {}).values()]
        m = len(given)
        if m < 2:
            continue
        within = sum((x - y) ** 2 for x in given for y in given) / (m - 1)
        terms[row] = (m, sum(given), sum(x * x for x in given), within)
    return terms


def _interval_alpha(columns: slice) -> Statistic:
    def statistic(sums: np.ndarray) -> np.ndarray:
        n, total, squares, within = (sums[:, columns][:, i] for i in range(4))
        spread = n * squares - total * total  # half the sum of (v - w)^2 over ordered pairs
        scale = np.maximum(n * squares, 1e-300)
        defined = (n > 0) & (spread > 1e-12 * scale)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(defined, 1 - (n - 1) * within / (2 * spread), np.nan)

    return statistic


@dataclass(frozen=True)
class ItemTerms:
    """Per-item terms of one level (all items, or one system's) and its statistics.

    Attributes:
        items: the item keys, one per row of ``terms``.
        terms: the ``(items, k)`` matrix of additive terms.
        statistics: measure name -> statistic of the summed terms.
    """

    items: tuple[Hashable, ...]
    terms: np.ndarray
    statistics: dict[str, Statistic]


def span_item_terms(
    corpus: Corpus[tuple[Span, ...]],
    *,
    exact: SpanMatching,
    partial: SpanMatching,
    scores: Mapping[Hashable, Mapping[Hashable, float]] | None = None,
) -> ItemTerms:
    """The per-item terms of the measures with an interval, for the items of one level.

    Args:
        corpus: the level's spans as ``load_spans`` returns them (its documents are the items,
            its annotators in the core's order, so clusters are the core's).
        exact: the exact matching (span F1 exact).
        partial: the partial matching (span F1 partial, type kappa and alpha).
        scores: item -> annotator -> segment score, for the items with scores (None: the
            scheme has no segment score, and score alpha gets no statistic).

    Returns:
        The :class:`ItemTerms`.

    Raises:
        KeyError: a span type missing from the level's categories (cannot happen for a corpus).
    """
    items = tuple(corpus.documents)
    columns = _Columns(rows=len(items))
    statistics: dict[str, Statistic] = {
        "span_f1_exact": _ratio(columns.add(_f1_terms(corpus, exact))),
        "span_f1_partial": _ratio(columns.add(_f1_terms(corpus, partial))),
    }
    index = _categories(corpus)
    pairs = len(corpus.annotators) * (len(corpus.annotators) - 1) // 2
    statistics["kappa_type"] = _light_kappa(
        columns.add(_kappa_terms(corpus, partial, index)), pairs, len(index)
    )
    statistics["alpha_type"] = _nominal_alpha(columns.add(_alpha_terms(corpus, partial, index)))
    if scores is not None:
        statistics["score_alpha_interval"] = _interval_alpha(
            columns.add(_score_terms(items, scores))
        )
    return ItemTerms(items=items, terms=columns.matrix(), statistics=statistics)
