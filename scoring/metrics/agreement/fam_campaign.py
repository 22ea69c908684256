"""Every FAM agreement measure of a campaign in one pass: per document, per pair, overall, CIs.

:func:`fam_campaign_agreement` gives the eight figures a FAM campaign reports (the package
README defines each, with worked examples):

- on the **union** of each facet's support groups (the support sentences): ``jaccard_union``
  (the FAR paper's pairwise Jaccard; the same as :func:`.fams.fam_jaccard`), ``f1_union`` (Dice
  of the two sentence sets) and ``alpha_masi_union`` (the same as :func:`.fams.fam_alpha_masi`);
- on the **groups** themselves (each group one element): ``jaccard_groups`` (Jaccard of the two
  sets of groups), ``f1_groups`` (best-match F1, the same as :func:`.fams.fam_best_match_f1`)
  and ``alpha_masi_groups`` (alpha with the MASI distance between sets of groups);
- on the annotators' **document categories**: ``category_kappa`` (Light's kappa: the mean of
  the pairs' Cohen kappas) and ``category_alpha`` (Krippendorff's alpha, nominal).

It is built for whole campaigns (11,490 documents x 3 annotators in a few seconds): MASI
distances are computed once per pair of distinct values, and the expected disagreement over
thousands of distinct values is one sparse quadratic form (SciPy) instead of a double loop.
The campaign figures come with a percentile bootstrap interval over documents
(:mod:`scoring.metrics.stats.clusters`), all measures on the same resamples.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from types import MappingProxyType
from typing import Any

import numpy as np
from scipy import sparse

from ..stats.bootstrap import DEFAULT_LEVEL, DEFAULT_SEED
from ..stats.clusters import (
    DEFAULT_CLUSTER_RESAMPLES,
    ClusterInterval,
    ClusterStatistic,
    cluster_bootstrap,
    ratio_statistic,
)
from .coefficients import cohen_kappa, krippendorff_alpha
from .corpus import Corpus
from .errors import InvalidAnnotationError, InvalidOptionError, UnknownDocumentError
from .fam_input import FamAnnotation, RawFam, load_fams
from .levels import mean_of_scores
from .result import Pair, Score
from .sets import best_match_f1, dice, nominal_distance

MEAN_MEASURES = ("jaccard_union", "jaccard_groups", "f1_union", "f1_groups")
ALPHA_MEASURES = ("alpha_masi_union", "alpha_masi_groups")
CATEGORY_MEASURES = ("category_kappa", "category_alpha")
FAM_CAMPAIGN_MEASURES = (
    "jaccard_union",
    "jaccard_groups",
    "f1_union",
    "f1_groups",
    "alpha_masi_union",
    "alpha_masi_groups",
    "category_kappa",
    "category_alpha",
)

_NO_UNIT = "no facet has support from either annotator (every facet was skipped)"
_NO_CATEGORIES = "no document categories were given"
_NO_DOCUMENT = "no document in this subset"


def _masi(a: frozenset, b: frozenset) -> float:
    """:func:`.sets.masi_distance`, bit for bit, without fractions (one correctly rounded division).

    ``1 - J M`` is ``(3u - 2c) / 3u`` for a proper subset and ``(3u - c) / 3u`` for an overlap
    (``c`` shared, ``u`` in the union), and Python's ``int / int`` is correctly rounded, as
    ``float(Fraction)`` is.
    """
    if a == b:
        return 0.0
    common = len(a & b)
    if common == 0:
        return 1.0
    union = len(a) + len(b) - common
    shared = 2 * common if common == min(len(a), len(b)) else common
    return (3 * union - shared) / (3 * union)


class _Values:
    """Distinct values (frozensets) under small integer ids, with cached MASI distances."""

    def __init__(self) -> None:
        self.ids: dict[frozenset, int] = {}
        self.sets: list[frozenset] = []
        self.cache: dict[tuple[int, int], float] = {}  # (i, j), i < j -> MASI distance

    def id(self, value: frozenset) -> int:
        found = self.ids.get(value)
        if found is None:
            found = self.ids[value] = len(self.sets)
            self.sets.append(value)
        return found

    def distance(self, i: int, j: int) -> float:
        if i == j:
            return 0.0
        key = (i, j) if i < j else (j, i)
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = _masi(self.sets[i], self.sets[j])
        return found

    def overlaps(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every pair ``i < j`` of distinct values that share an element, with ``1 - d(i, j)``.

        Two values share an element exactly when their rows of the incidence matrix do, so
        ``A @ A.T`` lists every overlapping pair with its intersection size. Any other pair of
        distinct values (disjoint, or an empty set against a non-empty one) is at distance 1.

        Returns:
            ``(i, j, similarity)`` arrays.
        """
        elements: dict[Hashable, int] = {}
        rows, cols = [], []
        for i, value in enumerate(self.sets):
            for element in value:
                rows.append(i)
                cols.append(elements.setdefault(element, len(elements)))
        size = len(self.sets)
        incidence = sparse.csr_matrix(
            (np.ones(len(rows), dtype=np.int64), (rows, cols)), shape=(size, max(1, len(elements)))
        )
        shared = sparse.triu(incidence @ incidence.T, k=1, format="coo")
        i, j, inter = shared.row, shared.col, shared.data.astype(np.float64)
        sizes = np.asarray(incidence.sum(axis=1), dtype=np.float64).ravel()
        union = sizes[i] + sizes[j] - inter
        # MASI's monotonicity: 2/3 when one set is inside the other, 1/3 when they only overlap.
        monotonicity = np.where(inter == np.minimum(sizes[i], sizes[j]), 2.0 / 3.0, 1.0 / 3.0)
        return i, j, inter / union * monotonicity


def _expected_numerator(counts: np.ndarray, overlaps) -> float:
    """``sum over c != k of n_c n_k d(c, k)``, as ``n^2 - sum n_c^2 - 2 sum_{c<k} n_c n_k s_ck``.

    ``s = 1 - d`` is non-zero only for the overlapping pairs ``overlaps`` lists.
    """
    i, j, similarity = overlaps
    n = counts.sum()
    return float(n * n - np.dot(counts, counts) - 2.0 * np.dot(counts[i] * counts[j], similarity))


def _alpha(observed: float, n: int, expected: float, distinct: Sequence[frozenset]) -> Score:
    """Alpha from its sums: ``observed`` = sum o_ck d_ck, ``expected`` = sum n_c n_k d_ck.

    ``distinct`` lists the distinct pairable values (their number decides the undefined case).
    """
    if n == 0:
        return Score.undefined("no unit has values from two annotators")
    if len(distinct) == 1:
        (only,) = distinct
        return Score.undefined(
            f"every pairable value is {only!r}: expected disagreement is 0, alpha is 0/0", n=n
        )
    if expected <= 0:
        return Score.undefined(
            "every pairable value is the same: expected disagreement is 0, alpha is 0/0", n=n
        )
    return Score(1.0 - (observed / n) / (expected / (n * (n - 1))), n=n)


@dataclass(frozen=True)
class FamCampaignAgreement:
    """The eight campaign measures at every level, with bootstrap intervals.

    Attributes:
        annotators: every annotator, in the order of first appearance.
        documents: the documents compared (each with at least two annotators), in input order.
        overall: measure -> the figure over every document and annotator.
        intervals: measure -> its bootstrap interval over documents.
        per_pair: measure -> ``(a, b)`` -> the figure of that pair over the documents both
            annotated.
        per_document: measure -> document -> the figure over its annotators (the category
            measures have none: one document is one unit).
        categories: document -> annotator -> category (empty without categories).
        options: the conventions used.
        parts: per mean measure, ``(n_documents, 2)`` sums and unit counts per document (for
            :meth:`subset`).
    """

    annotators: tuple[Hashable, ...]
    documents: tuple[Hashable, ...]
    overall: Mapping[str, Score]
    intervals: Mapping[str, ClusterInterval]
    per_pair: Mapping[str, Mapping[Pair, Score]]
    per_document: Mapping[str, Mapping[Hashable, Score]]
    categories: Mapping[Hashable, Mapping[Hashable, str]]
    options: Mapping[str, Any]
    parts: Mapping[str, np.ndarray] = field(repr=False, default_factory=dict)

    def subset(self, documents: Sequence[Hashable]) -> dict[str, tuple[Score, ClusterInterval]]:
        """The mean measures over some of the documents, with their bootstrap intervals.

        Alpha and kappa are not given for a subset: their expected agreement belongs to the
        whole campaign.

        Args:
            documents: documents of this result.

        Returns:
            measure -> ``(score, interval)`` for each of ``MEAN_MEASURES``, resampled with the
            result's own seed, level and resamples; an empty subset's scores are undefined
            with the reason "no document in this subset".

        Raises:
            UnknownDocumentError: a document that is not in the result.
        """
        rank = {doc: i for i, doc in enumerate(self.documents)}
        rows = []
        for doc in documents:
            if doc not in rank:
                raise UnknownDocumentError("not in this result", document=doc)
            rows.append(rank[doc])
        chosen = {name: self.parts[name][rows] for name in MEAN_MEASURES}
        intervals = cluster_bootstrap(
            {name: ClusterStatistic(part[:, :2], ratio_statistic) for name, part in chosen.items()},
            len(rows),
            level=self.options["level"],
            resamples=self.options["resamples"],
            seed=self.options["seed"],
        )
        out = {}
        for name, parts in chosen.items():
            total, n = float(parts[:, 0].sum()), int(parts[:, 1].sum())
            excluded = int(parts[:, 2].sum())
            if n:
                score = Score(total / n, n=n, excluded=excluded)
            else:
                score = Score.undefined(_NO_UNIT if rows else _NO_DOCUMENT, excluded=excluded)
            out[name] = (score, intervals[name])
        return out


_PLAIN_GROUP = (list, tuple, set, frozenset)


def _plain_fam(raw) -> tuple[tuple[frozenset, ...], ...] | None:
    """A FAM given as lists of lists of plain non-negative ints, normalised; else None."""
    if not isinstance(raw, list | tuple):
        return None
    facets = []
    for groups in raw:
        if not isinstance(groups, list | tuple):
            return None
        unique: dict[frozenset, None] = {}
        for group in groups:
            if not isinstance(group, _PLAIN_GROUP):
                return None
            members = frozenset(group)
            if not members or not all(type(x) is int for x in members) or min(members) < 0:
                return None
            unique[members] = None
        facets.append(tuple(unique))
    return tuple(facets)


def _plain_corpus(documents, n_facets) -> Corpus[FamAnnotation] | None:
    """The corpus :func:`.fam_input.load_fams` would give, read faster from plain lists.

    Only input made of lists (or tuples, sets) of plain non-negative ints, every document with
    two annotators or more whose FAMs have the same facet count, is read here; anything else
    (a :class:`~scoring.metrics.fam.FacetAwareMapping`, an error to report) returns None, and
    the caller uses ``load_fams``, which names the problem.
    """
    if not isinstance(documents, Mapping) or not documents:
        return None
    annotators: dict[Hashable, None] = {}
    data: dict[Hashable, Mapping[Hashable, FamAnnotation]] = {}
    for document, by_annotator in documents.items():
        if not isinstance(by_annotator, Mapping) or len(by_annotator) < 2:
            return None
        row = {}
        for annotator, raw in by_annotator.items():
            facets = _plain_fam(raw)
            if facets is None:
                return None
            row[annotator] = FamAnnotation(facets)
        counts = {len(fam.groups) for fam in row.values()}
        if len(counts) != 1 or (n_facets is not None and counts != {n_facets.get(document)}):
            return None
        for annotator in row:
            annotators.setdefault(annotator)
        data[document] = MappingProxyType(row)
    return Corpus(tuple(data), tuple(annotators), MappingProxyType(data))


def _check_categories(corpus: Corpus[FamAnnotation], categories) -> dict:
    checked: dict[Hashable, dict[Hashable, str]] = {}
    for doc in corpus.documents:
        given = categories.get(doc)
        if given is None:
            raise UnknownDocumentError("has FAMs but no categories", document=doc)
        row = {}
        for annotator in corpus.data[doc]:
            category = given.get(annotator)
            if not isinstance(category, str) or not category:
                raise InvalidAnnotationError(
                    f"needs a category (a non-empty string), got {category!r}",
                    document=doc,
                    annotator=annotator,
                )
            row[annotator] = category
        checked[doc] = row
    return checked


class _Engine:
    """One pass over the corpus filling every level of every measure."""

    def __init__(self, corpus: Corpus[FamAnnotation], both_empty: str):
        self.corpus = corpus
        self.both_empty = both_empty
        self.rank = {annotator: i for i, annotator in enumerate(corpus.annotators)}
        self.values = {"union": _Values(), "groups": _Values()}
        n_docs = len(corpus.documents)
        # Per document: sum, units, excluded for each mean measure; observed disagreement and
        # pairable values for each alpha.
        self.mean_parts = {name: np.zeros((n_docs, 3)) for name in MEAN_MEASURES}
        self.alpha_parts = {name: np.zeros((n_docs, 2)) for name in ALPHA_MEASURES}
        self.per_document: dict[str, dict[Hashable, Score]] = {
            name: {} for name in MEAN_MEASURES + ALPHA_MEASURES
        }
        # Per pair: the four means' sums, units, excluded; alpha's observed sums and the
        # group-set ids of its values.
        self.pair_sums: dict[Pair, list] = {}
        self.pair_alpha: dict[Pair, list] = {}
        self.group_ids: list[int] = []  # every value given, as group-set ids
        self.union_of: list[int] = []  # group-set id -> support id
        self.groups_of: list[tuple] = []  # group-set id -> the groups, as the FAM lists them
        self.units: dict[tuple[int, int], tuple] = {}

    def run(self) -> None:
        for row, doc in enumerate(self.corpus.documents):
            self._document(row, doc)

    def _ids(self, fam: FamAnnotation, facet: int) -> int:
        """The id of a facet's set of groups (its support's id is ``self.union_of[id]``)."""
        groups = self.values["groups"]
        found = groups.id(frozenset(fam.groups[facet]))
        if found == len(self.union_of):
            self.union_of.append(self.values["union"].id(fam.support(facet)))
            self.groups_of.append(fam.groups[facet])
        return found

    def _unit(self, i: int, j: int) -> tuple:
        """Every per-unit figure of two facets given as group-set ids (symmetric, so cached).

        Returns:
            ``(jaccard_union, jaccard_groups, f1_union, f1_groups)`` (``None`` when neither
            has support), then the MASI distances of the supports and of the group sets.
        """
        key = (i, j) if i <= j else (j, i)
        found = self.units.get(key)
        if found is not None:
            return found
        union, groups = self.values["union"], self.values["groups"]
        u, v = self.union_of[i], self.union_of[j]
        support_a, support_b = union.sets[u], union.sets[v]
        distances = (union.distance(u, v), groups.distance(i, j))
        if not support_a and not support_b:
            means = (1.0,) * 4 if self.both_empty == "agree" else None
        else:
            set_a, set_b = groups.sets[i], groups.sets[j]
            common = len(support_a & support_b)
            means = (
                common / len(support_a | support_b),
                len(set_a & set_b) / len(set_a | set_b),
                2 * common / (len(support_a) + len(support_b)),
                best_match_f1(self.groups_of[i], self.groups_of[j], dice),
            )
        found = self.units[key] = (means, distances)
        return found

    def _document(self, row: int, doc: Hashable) -> None:
        fams = self.corpus.data[doc]
        people = [a for a in self.corpus.annotators if a in fams]
        n_facets = len(fams[people[0]].groups)
        ids = {person: [self._ids(fams[person], f) for f in range(n_facets)] for person in people}
        document_sums = [0.0, 0.0, 0.0, 0.0]
        document_n = document_excluded = 0
        observed = [0.0, 0.0]
        weight = 2.0 / (len(people) - 1)
        for a, b in combinations(people, 2):
            pair = (a, b)
            sums = self.pair_sums.get(pair)
            if sums is None:
                sums = self.pair_sums[pair] = [0.0, 0.0, 0.0, 0.0, 0, 0]
                self.pair_alpha[pair] = [0.0, 0.0, []]
            alpha = self.pair_alpha[pair]
            for i, j in zip(ids[a], ids[b], strict=True):
                means, (d_union, d_groups) = self._unit(i, j)
                if means is None:
                    sums[5] += 1
                    document_excluded += 1
                else:
                    for k in range(4):
                        sums[k] += means[k]
                        document_sums[k] += means[k]
                    sums[4] += 1
                    document_n += 1
                alpha[0] += 2.0 * d_union
                alpha[1] += 2.0 * d_groups
                alpha[2].append((i, j))
                observed[0] += weight * d_union
                observed[1] += weight * d_groups
        for k, name in enumerate(MEAN_MEASURES):
            self.mean_parts[name][row] = (document_sums[k], document_n, document_excluded)
            self.per_document[name][doc] = (
                Score(document_sums[k] / document_n, n=document_n, excluded=document_excluded)
                if document_n
                else Score.undefined(_NO_UNIT, excluded=document_excluded)
            )
        n_values = len(people) * n_facets
        all_ids = [value for person in people for value in ids[person]]
        self.group_ids.extend(all_ids)
        group_counts: dict[int, int] = {}
        for value in all_ids:
            group_counts[value] = group_counts.get(value, 0) + 1
        union_counts: dict[int, int] = {}
        for value, count in group_counts.items():
            support = self.union_of[value]
            union_counts[support] = union_counts.get(support, 0) + count
        for k, (kind, name, counts) in enumerate(
            (
                ("union", "alpha_masi_union", union_counts),
                ("groups", "alpha_masi_groups", group_counts),
            )
        ):
            values = self.values[kind]
            self.alpha_parts[name][row] = (observed[k], n_values)
            expected = 2.0 * _pairs_sum(counts, values) if len(counts) > 1 else 0.0
            distinct = [values.sets[i] for i in counts]
            self.per_document[name][doc] = _alpha(observed[k], n_values, expected, distinct)

    def alpha_levels(self, kind: str, name: str) -> tuple[dict, Score, float, int]:
        """Per-pair and overall alpha of one kind of value, with the overall's sums.

        Returns:
            ``(per_pair, overall, expected, n)``: ``expected`` is the overall sum of
            ``n_c n_k d(c, k)`` over ordered pairs of distinct values, ``n`` its pairable values.
        """
        values = self.values[kind]
        similarity = values.overlaps()
        size = len(values.sets)
        per_pair = {}
        to_kind = np.asarray(self.union_of if kind == "union" else range(len(self.union_of)))
        for pair, data in self.pair_alpha.items():
            observed = data[0 if kind == "union" else 1]
            n = 2 * len(data[2])
            ids = to_kind[np.asarray(data[2], dtype=np.int64).ravel()]
            counts = np.bincount(ids, minlength=size)
            expected = _expected_numerator(counts.astype(np.float64), similarity)
            distinct = [values.sets[i] for i in np.flatnonzero(counts)]
            per_pair[pair] = _alpha(observed, n, expected, distinct)
        ids = np.asarray(self.group_ids, dtype=np.int64)
        all_counts = np.bincount(to_kind[ids] if ids.size else ids, minlength=size).astype(
            np.float64
        )
        parts = self.alpha_parts[name]
        observed, n = math.fsum(parts[:, 0]), int(parts[:, 1].sum())
        expected = _expected_numerator(all_counts, similarity)
        distinct = [values.sets[i] for i in np.flatnonzero(all_counts)]
        return per_pair, _alpha(observed, n, expected, distinct), expected, n


def _pairs_sum(counts: Mapping[int, int], values: _Values) -> float:
    """``sum over unordered pairs of distinct values of n_c n_k d(c, k)`` (a few values)."""
    keys = list(counts)
    cache, sets = values.cache, values.sets
    total = 0.0
    for x, first in enumerate(keys):
        weight = counts[first]
        for second in keys[x + 1 :]:
            key = (first, second) if first < second else (second, first)
            found = cache.get(key)
            if found is None:
                found = cache[key] = _masi(sets[first], sets[second])
            total += weight * counts[second] * found
    return total


def _pair_mean(sums: list, k: int) -> Score:
    """The pair's mean of measure ``k`` from ``[sum_0..sum_3, units, excluded]``."""
    n, excluded = sums[4], sums[5]
    if n == 0:
        return Score.undefined(_NO_UNIT, excluded=excluded)
    return Score(sums[k] / n, n=n, excluded=excluded)


def _kappa_columns(corpus, categories, pairs, index) -> sparse.csr_matrix:
    k = len(index)
    rows, cols = [], []
    pair_index = {pair: p for p, pair in enumerate(pairs)}
    for row, doc in enumerate(corpus.documents):
        for pair in corpus.pairs(doc):
            a, b = categories[doc][pair[0]], categories[doc][pair[1]]
            rows.append(row)
            cols.append(pair_index[pair] * k * k + index[a] * k + index[b])
    return sparse.csr_matrix(
        (np.ones(len(rows)), (rows, cols)), shape=(len(corpus.documents), len(pairs) * k * k)
    )


def _light_kappa_statistic(n_pairs: int, k: int):
    def statistic(sums: np.ndarray) -> np.ndarray:
        tables = sums.reshape(sums.shape[0], n_pairs, k, k)
        total = tables.sum(axis=(2, 3))
        agree = np.trace(tables, axis1=2, axis2=3)
        chance = (tables.sum(axis=3) * tables.sum(axis=2)).sum(axis=2)  # sum_c rows_c cols_c
        undefined = (total == 0) | (chance == total * total)
        with np.errstate(divide="ignore", invalid="ignore"):
            safe = np.where(undefined, 1.0, total)
            p_o, p_e = agree / safe, chance / (safe * safe)
            kappas = np.where(undefined, np.nan, (p_o - p_e) / np.where(undefined, 2.0, 1 - p_e))
        defined = ~np.isnan(kappas)
        count = defined.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(count > 0, np.where(defined, kappas, 0).sum(axis=1) / count, np.nan)

    return statistic


def _fixed_alpha_statistic(expected: float, n: int):
    """Alpha of a resample with the full sample's expected disagreement ``expected / (n(n-1))``."""
    rate = expected / (n * (n - 1))

    def statistic(sums: np.ndarray) -> np.ndarray:
        return 1.0 - ratio_statistic(sums) / rate

    return statistic


def _category_levels(corpus, categories, pairs):
    per_pair_kappa, per_pair_alpha = {}, {}
    alpha_parts = np.zeros((len(corpus.documents), 2))
    for pair in pairs:
        a, b = pair
        items = [
            (categories[doc][a], categories[doc][b])
            for doc in corpus.documents
            if a in categories[doc] and b in categories[doc]
        ]
        per_pair_kappa[pair] = cohen_kappa(items)
        per_pair_alpha[pair] = krippendorff_alpha([list(item) for item in items], nominal_distance)
    units = []
    for row, doc in enumerate(corpus.documents):
        people = [a for a in corpus.annotators if a in corpus.data[doc]]
        unit = [categories[doc][a] for a in people]
        units.append(unit)
        disagree = sum(1 for x, y in combinations(unit, 2) if x != y)
        alpha_parts[row] = (2.0 * disagree / (len(unit) - 1), len(unit))
    kappa = mean_of_scores([per_pair_kappa[pair] for pair in pairs], "pair's kappa")
    alpha = krippendorff_alpha(units, nominal_distance)
    return per_pair_kappa, per_pair_alpha, kappa, alpha, alpha_parts


def fam_campaign_agreement(
    documents: Mapping[Hashable, Mapping[Hashable, RawFam]],
    *,
    categories: Mapping[Hashable, Mapping[Hashable, str]] | None = None,
    both_empty: str = "skip",
    n_facets: Mapping[Hashable, int] | None = None,
    resamples: int = DEFAULT_CLUSTER_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> FamCampaignAgreement:
    """Every FAM agreement measure of a campaign, per document, per pair and overall, with CIs.

    Conventions: a mean measure's unit is one facet for one annotator pair, and each level is
    the mean of its units (as :func:`.fams.fam_jaccard`); ``both_empty`` decides a facet
    neither annotator supports. Alpha treats an empty support as a value ("no support"), as
    :func:`.fams.fam_alpha_masi` does by default. The category kappa of a level is the mean of
    its pairs' defined Cohen kappas (Light's kappa); the category alpha is nominal alpha with
    one unit per document. The intervals resample documents: a mean measure is recomputed as
    a ratio of summed units; alpha's observed disagreement is recomputed while its expected
    disagreement stays at the full campaign's (see the README); kappa is recomputed per pair.

    Args:
        documents: per document, per annotator, a FAM (a
            :class:`~scoring.metrics.fam.FacetAwareMapping` or a list of facets' groups).
        categories: per document, per annotator, the document category (see
            :func:`.categories.fam_category`); ``None`` leaves the category measures undefined.
        both_empty: ``"skip"`` (default) or ``"agree"``, as for :func:`.fams.fam_jaccard`.
        n_facets: optional facet count per document, checked against every FAM.
        resamples: bootstrap resamples (default 1,000).
        seed: seed of the bootstrap (default 0).
        level: confidence level (default 0.95).

    Returns:
        A :class:`FamCampaignAgreement`.

    Raises:
        AgreementError: as for :func:`.fams.fam_jaccard`; a document or annotator without a
            category when ``categories`` is given; InvalidOptionError for an unknown option.
        StatsError: a bad ``level`` or ``resamples``.
    """
    if both_empty not in ("skip", "agree"):
        raise InvalidOptionError(f"both_empty must be one of ['skip', 'agree'], got {both_empty!r}")
    corpus = _plain_corpus(documents, n_facets) or load_fams(documents, n_facets=n_facets)
    checked = _check_categories(corpus, categories) if categories is not None else {}
    engine = _Engine(corpus, both_empty)
    engine.run()
    pairs = sorted(engine.pair_sums, key=lambda pair: (engine.rank[pair[0]], engine.rank[pair[1]]))
    overall: dict[str, Score] = {}
    per_pair: dict[str, dict[Pair, Score]] = {}
    statistics: dict[str, ClusterStatistic] = {}
    for k, name in enumerate(MEAN_MEASURES):
        parts = engine.mean_parts[name]
        total, n = math.fsum(parts[:, 0]), int(parts[:, 1].sum())
        excluded = int(parts[:, 2].sum())
        overall[name] = (
            Score(total / n, n=n, excluded=excluded)
            if n
            else Score.undefined(_NO_UNIT, excluded=excluded)
        )
        per_pair[name] = {pair: _pair_mean(engine.pair_sums[pair], k) for pair in pairs}
        statistics[name] = ClusterStatistic(parts[:, :2], ratio_statistic)
    for kind, name in (("union", "alpha_masi_union"), ("groups", "alpha_masi_groups")):
        pair_scores, score, expected, n = engine.alpha_levels(kind, name)
        overall[name] = score
        per_pair[name] = {pair: pair_scores[pair] for pair in pairs}
        if score.value is not None:
            statistics[name] = ClusterStatistic(
                engine.alpha_parts[name], _fixed_alpha_statistic(expected, n)
            )
    if checked:
        kappas, alphas, kappa, alpha, alpha_parts = _category_levels(corpus, checked, pairs)
        overall["category_kappa"], overall["category_alpha"] = kappa, alpha
        per_pair["category_kappa"], per_pair["category_alpha"] = kappas, alphas
        used = sorted({category for row in checked.values() for category in row.values()})
        index = {category: i for i, category in enumerate(used)}
        statistics["category_kappa"] = ClusterStatistic(
            _kappa_columns(corpus, checked, pairs, index),
            _light_kappa_statistic(len(pairs), len(index)),
        )
        if alpha.value is not None:
            statistics["category_alpha"] = ClusterStatistic(
                alpha_parts, _fixed_alpha_statistic(_nominal_expected(corpus, checked), alpha.n)
            )
    else:
        for name in CATEGORY_MEASURES:
            overall[name] = Score.undefined(_NO_CATEGORIES)
            per_pair[name] = {pair: Score.undefined(_NO_CATEGORIES) for pair in pairs}
    intervals = cluster_bootstrap(
        statistics, len(corpus.documents), level=level, resamples=resamples, seed=seed
    )
    for name in FAM_CAMPAIGN_MEASURES:
        if name not in intervals:
            reason = overall[name].reason or "no interval"
            intervals[name] = ClusterInterval(
                None, None, level=level, resamples=resamples, undefined=0, seed=seed,
                clusters=len(corpus.documents), reason=f"the measure is undefined: {reason}",
            )  # fmt: skip
    options = {
        "both_empty": both_empty,
        "group_similarity": "f1",
        "empty_support": "value",
        "resamples": resamples,
        "seed": seed,
        "level": level,
    }
    return FamCampaignAgreement(
        annotators=corpus.annotators,
        documents=corpus.documents,
        overall=overall,
        intervals={name: intervals[name] for name in FAM_CAMPAIGN_MEASURES},
        per_pair=per_pair,
        per_document=engine.per_document,
        categories=checked,
        options=options,
        parts=dict(engine.mean_parts),
    )


def _nominal_expected(corpus: Corpus[FamAnnotation], categories) -> float:
    """``sum over c != k of n_c n_k`` for the categories (nominal distance: 1 when they differ)."""
    counts = Counter(categories[doc][a] for doc in corpus.documents for a in corpus.data[doc])
    n = sum(counts.values())
    return float(n * n - sum(c * c for c in counts.values()))
