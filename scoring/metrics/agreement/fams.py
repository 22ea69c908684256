"""Agreement between annotators' FAMs: support Jaccard, best-match F1 of groups, MASI alpha."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from .coefficients import krippendorff_alpha
from .corpus import Corpus
from .errors import InvalidOptionError
from .fam_input import FamAnnotation, RawFam, load_fams
from .levels import UnitScores, grouped, mean_of_units, result, sorted_pairs
from .result import AgreementResult, Score
from .sets import best_match_f1, dice, jaccard, masi_distance

BothEmpty = Literal["skip", "agree"]
EmptySupport = Literal["value", "missing"]
GroupSimilarity = Literal["f1", "jaccard"]
FamDocuments = Mapping[Hashable, Mapping[Hashable, RawFam]]

_NO_UNIT = "no facet has support from either annotator (every facet was skipped)"


def _option(name: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise InvalidOptionError(f"{name} must be one of {list(allowed)}, got {value!r}")


def _facet_scores(a: FamAnnotation, b: FamAnnotation, score, both_empty: BothEmpty) -> UnitScores:
    """Score every facet of one pair; a facet without support on either side is skipped or 1.0."""
    values, excluded = [], 0
    for facet in range(len(a.groups)):
        value = score(a, b, facet)
        if value is None:
            if both_empty == "skip":
                excluded += 1
                continue
            value = 1.0
        values.append(value)
    return UnitScores(tuple(values), excluded)


def _mean_measure(measure, corpus: Corpus[FamAnnotation], score, options) -> AgreementResult:
    cells = {
        (doc, (a, b)): _facet_scores(
            corpus.data[doc][a], corpus.data[doc][b], score, options["both_empty"]
        )
        for doc, (a, b) in corpus.document_pairs()
    }
    return result(
        measure, corpus, grouped(corpus, cells, lambda p: mean_of_units(p, _NO_UNIT)), options
    )


def fam_jaccard(
    documents: FamDocuments,
    *,
    both_empty: BothEmpty = "skip",
    n_facets: Mapping[Hashable, int] | None = None,
) -> AgreementResult:
    """Pairwise Jaccard index of each facet's support sentences (the union of its groups).

    One unit is one facet for one annotator pair; every level is the mean of its units.

    Args:
        documents: per document, per annotator, a
            :class:`~scoring.metrics.fam.FacetAwareMapping` or a list indexed by facet of support
            groups.
        both_empty: a facet neither annotator supports is ``"skip"``-ped (counted in
            ``excluded``) or counts as ``"agree"`` (1.0).
        n_facets: optional facet count per document, checked against every FAM.

    Returns:
        The measure ``fam_jaccard`` at every level.

    Raises:
        AgreementError: see :func:`~scoring.metrics.agreement.fam_input.load_fams`;
            InvalidOptionError for an unknown option value.
    """
    _option("both_empty", both_empty, ("skip", "agree"))
    corpus = load_fams(documents, n_facets=n_facets)

    def score(a: FamAnnotation, b: FamAnnotation, facet: int) -> float | None:
        return jaccard(a.support(facet), b.support(facet))

    return _mean_measure("fam_jaccard", corpus, score, {"both_empty": both_empty})


def fam_best_match_f1(
    documents: FamDocuments,
    *,
    both_empty: BothEmpty = "skip",
    group_similarity: GroupSimilarity = "f1",
    n_facets: Mapping[Hashable, int] | None = None,
) -> AgreementResult:
    """Best-match F1 between two annotators' alternative support groups, per facet.

    See :func:`~scoring.metrics.agreement.sets.best_match_f1`; units and levels as for
    :func:`fam_jaccard`.

    Args:
        documents: as for :func:`fam_jaccard`.
        both_empty: as for :func:`fam_jaccard` (a facet where neither has a group).
        group_similarity: ``"f1"`` (Dice) or ``"jaccard"`` between two groups.
        n_facets: as for :func:`fam_jaccard`.

    Returns:
        The measure ``fam_best_match_f1`` at every level.

    Raises:
        AgreementError: as for :func:`fam_jaccard`.
    """
    _option("both_empty", both_empty, ("skip", "agree"))
    _option("group_similarity", group_similarity, ("f1", "jaccard"))
    corpus = load_fams(documents, n_facets=n_facets)
    similarity = dice if group_similarity == "f1" else jaccard

    def score(a: FamAnnotation, b: FamAnnotation, facet: int) -> float | None:
        return best_match_f1(a.groups[facet], b.groups[facet], similarity)  # type: ignore[arg-type]

    options = {"both_empty": both_empty, "group_similarity": group_similarity}
    return _mean_measure("fam_best_match_f1", corpus, score, options)


def _masi_alpha(corpus, documents, annotators, empty_support: EmptySupport) -> Score:
    units = []
    for doc in documents:
        fams = [corpus.data[doc][a] for a in annotators if a in corpus.data[doc]]
        for facet in range(len(fams[0].groups)):
            values = [fam.support(facet) for fam in fams]
            if empty_support == "missing":
                values = [value for value in values if value]
            units.append(values)
    return krippendorff_alpha(units, masi_distance)


def fam_alpha_masi(
    documents: FamDocuments,
    *,
    empty_support: EmptySupport = "value",
    n_facets: Mapping[Hashable, int] | None = None,
) -> AgreementResult:
    """Krippendorff's alpha with the MASI distance over facets.

    Units are ``(document, facet)``; each annotator's value is the facet's support-sentence set.
    Levels are separate alphas: a document over all its annotators, a pair over every document
    both annotated, one pair on one document, and everything together.

    Args:
        documents: as for :func:`fam_jaccard`.
        empty_support: an empty support set is a ``"value"`` (the annotator says "no support")
            or ``"missing"`` (the annotator gave no value for that facet).
        n_facets: as for :func:`fam_jaccard`.

    Returns:
        The measure ``fam_alpha_masi`` at every level; ``n`` counts pairable values.

    Raises:
        AgreementError: as for :func:`fam_jaccard`.
    """
    _option("empty_support", empty_support, ("value", "missing"))
    corpus = load_fams(documents, n_facets=n_facets)

    def alpha(docs: Sequence[Hashable], people: Sequence[Hashable]) -> Score:
        return _masi_alpha(corpus, docs, people, empty_support)

    cells = {(doc, pair): alpha([doc], pair) for doc, pair in corpus.document_pairs()}
    pairs = sorted_pairs(corpus, {pair for _, pair in cells})
    per_pair = {pair: alpha([doc for doc, other in cells if other == pair], pair) for pair in pairs}
    per_document = {doc: alpha([doc], corpus.annotators) for doc in corpus.documents}
    overall = alpha(corpus.documents, corpus.annotators)
    levels = (cells, per_document, per_pair, overall)
    return result("fam_alpha_masi", corpus, levels, {"empty_support": empty_support})


@dataclass(frozen=True)
class FamAgreement:
    """The three FAM agreement measures, each at every level."""

    jaccard: AgreementResult
    best_match_f1: AgreementResult
    alpha_masi: AgreementResult


def fam_agreement(
    documents: FamDocuments,
    *,
    both_empty: BothEmpty = "skip",
    group_similarity: GroupSimilarity = "f1",
    empty_support: EmptySupport = "value",
    n_facets: Mapping[Hashable, int] | None = None,
) -> FamAgreement:
    """All three FAM measures with one set of options (see each function).

    Args:
        documents: as for :func:`fam_jaccard`.
        both_empty: for :func:`fam_jaccard` and :func:`fam_best_match_f1`.
        group_similarity: for :func:`fam_best_match_f1`.
        empty_support: for :func:`fam_alpha_masi`.
        n_facets: as for :func:`fam_jaccard`.

    Returns:
        A :class:`FamAgreement`.

    Raises:
        AgreementError: as for :func:`fam_jaccard`.
    """
    return FamAgreement(
        jaccard=fam_jaccard(documents, both_empty=both_empty, n_facets=n_facets),
        best_match_f1=fam_best_match_f1(
            documents, both_empty=both_empty, group_similarity=group_similarity, n_facets=n_facets
        ),
        alpha_masi=fam_alpha_masi(documents, empty_support=empty_support, n_facets=n_facets),
    )
