"""Agreement of numeric per-item scores (e.g. PolyTope segment scores): alpha, |difference|, r."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Real

from .coefficients import krippendorff_alpha
from .corpus import Corpus, build_corpus
from .errors import InvalidAnnotationError
from .levels import UnitScores, grouped, mean_of_scores, mean_of_units, result, sorted_pairs
from .result import AgreementResult, Pair, Score

ScoreDocuments = Mapping[Hashable, Mapping[Hashable, float]]

#: Why alpha has no value for one item: it compares the disagreement within items with the
#: disagreement expected from all the values, so it needs several items.
ONE_UNIT = "one item: alpha needs several items (read the pair and overall levels)"
#: Why Pearson's r has no value for one item.
ONE_POINT = "one item: a correlation needs several items (read the pair and overall levels)"
#: Fewest items for a Pearson r (with two, r is always +1 or -1).
MIN_PEARSON_ITEMS = 3


def interval_distance(a: float, b: float) -> float:
    """Krippendorff's interval distance, the squared difference.

    Args:
        a: one value.
        b: the other value.

    Returns:
        ``(a - b) ** 2``.

    Raises:
        TypeError: a value is not a number.
    """
    return (a - b) ** 2


def load_scores(documents: ScoreDocuments) -> Corpus[float]:
    """Check ``item -> annotator -> score``.

    Args:
        documents: per item (a document, a system output), per annotator, one finite number.

    Returns:
        The checked corpus, the scores as floats.

    Raises:
        EmptyInputError: no item.
        TooFewAnnotatorsError: an item with fewer than two annotators.
        InvalidAnnotationError: a score that is not a finite number (a boolean is not one).
    """

    def normalise(document, annotator, raw) -> float:
        if isinstance(raw, bool) or not isinstance(raw, Real) or not math.isfinite(raw):
            raise InvalidAnnotationError(
                f"score {raw!r} is not a finite number", document=document, annotator=annotator
            )
        return float(raw)

    return build_corpus(documents, normalise)


def _options(**more) -> dict:
    return {"unit": "item", **more}


def score_abs_difference(documents: ScoreDocuments) -> AgreementResult:
    """Mean absolute difference ``|x_a - x_b|`` between two annotators' scores of an item.

    Every (item, pair) is one unit; each level is the mean over its units, pooled (the overall
    figure is the mean over every item and pair, not a mean of item means).

    Args:
        documents: per item, per annotator, a score.

    Returns:
        The measure ``score_abs_difference`` at every level (in the scores' own unit; 0 means
        equal scores); ``n`` counts (item, pair) units.

    Raises:
        AgreementError: see :func:`load_scores`.
    """
    corpus = load_scores(documents)
    cells = {
        (doc, (a, b)): UnitScores((abs(corpus.data[doc][a] - corpus.data[doc][b]),))
        for doc, (a, b) in corpus.document_pairs()
    }
    levels = grouped(corpus, cells, lambda parts: mean_of_units(parts, "no item pair"))
    return result("score_abs_difference", corpus, levels, _options())


def pearson(pairs: Sequence[tuple[float, float]]) -> Score:
    """Pearson's r of paired values.

    Args:
        pairs: ``(x, y)`` per item.

    Returns:
        A :class:`Score` with ``n`` items; undefined with fewer than three items, or when
        either side does not vary (r is then 0/0).

    Raises:
        Nothing for finite values.
    """
    n = len(pairs)
    if n < MIN_PEARSON_ITEMS:
        return Score.undefined(
            f"{n} item(s): r needs at least {MIN_PEARSON_ITEMS} (with two it is always +1 or -1)",
            n=n,
        )
    mean_x = math.fsum(x for x, _ in pairs) / n
    mean_y = math.fsum(y for _, y in pairs) / n
    sxx = math.fsum((x - mean_x) ** 2 for x, _ in pairs)
    syy = math.fsum((y - mean_y) ** 2 for _, y in pairs)
    if sxx == 0 or syy == 0:
        constant = [side for side, s in (("first", sxx), ("second", syy)) if s == 0]
        return Score.undefined(
            f"the {' and '.join(constant)} annotator's scores do not vary: r is 0/0", n=n
        )
    sxy = math.fsum((x - mean_x) * (y - mean_y) for x, y in pairs)
    return Score(max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy))), n=n)


def score_pearson(documents: ScoreDocuments) -> AgreementResult:
    """Pearson's r between two annotators' scores over the items both scored.

    A pair's r is over its shared items. The overall figure is the mean of the defined pair
    rs (``excluded`` counts undefined ones). An item alone has no correlation: the item and
    (item, pair) levels are undefined, with the reason.

    Args:
        documents: per item, per annotator, a score.

    Returns:
        The measure ``score_pearson`` at every level; ``n`` counts items.

    Raises:
        AgreementError: see :func:`load_scores`.
    """
    corpus = load_scores(documents)
    by_pair: dict[Pair, list[tuple[float, float]]] = {}
    for doc, (a, b) in corpus.document_pairs():
        by_pair.setdefault((a, b), []).append((corpus.data[doc][a], corpus.data[doc][b]))
    per_pair = {pair: pearson(by_pair[pair]) for pair in sorted_pairs(corpus, by_pair)}
    cells = {key: Score.undefined(ONE_POINT, n=1) for key in corpus.document_pairs()}
    per_document = {doc: Score.undefined(ONE_POINT, n=1) for doc in corpus.documents}
    overall = mean_of_scores(list(per_pair.values()), "pair r")
    levels = (cells, per_document, per_pair, overall)
    return result("score_pearson", corpus, levels, _options(overall="mean of pair r"))


def score_alpha_interval(documents: ScoreDocuments) -> AgreementResult:
    """Krippendorff's alpha with the interval distance ``(x - y)^2``; the items are the units.

    A pair's alpha is over the items both scored (two values each); the overall alpha is over
    every item with all its annotators' scores. One item alone is not enough: the item and
    (item, pair) levels are undefined, with the reason.

    Args:
        documents: per item, per annotator, a score.

    Returns:
        The measure ``score_alpha_interval`` at every level; ``n`` counts pairable values.

    Raises:
        AgreementError: see :func:`load_scores`.
    """
    corpus = load_scores(documents)

    def alpha(docs: Sequence[Hashable], people: Sequence[Hashable]) -> Score:
        units = [[corpus.data[doc][a] for a in people if a in corpus.data[doc]] for doc in docs]
        return krippendorff_alpha(units, interval_distance)

    keys = list(corpus.document_pairs())
    cells = {key: Score.undefined(ONE_UNIT, n=2) for key in keys}
    per_document = {
        doc: Score.undefined(ONE_UNIT, n=len(corpus.data[doc])) for doc in corpus.documents
    }
    per_pair = {
        pair: alpha([doc for doc, other in keys if other == pair], pair)
        for pair in sorted_pairs(corpus, {pair for _, pair in keys})
    }
    overall = alpha(corpus.documents, corpus.annotators)
    levels = (cells, per_document, per_pair, overall)
    return result("score_alpha_interval", corpus, levels, _options(distance="interval"))


@dataclass(frozen=True)
class ScoreAgreement:
    """Every score measure, each at every level."""

    alpha_interval: AgreementResult
    abs_difference: AgreementResult
    pearson: AgreementResult


def score_agreement(documents: ScoreDocuments) -> ScoreAgreement:
    """Krippendorff's alpha (interval), the mean absolute difference and Pearson's r.

    Args:
        documents: per item, per annotator, a score (for PolyTope: the segment score).

    Returns:
        A :class:`ScoreAgreement`.

    Raises:
        AgreementError: see :func:`load_scores`.
    """
    return ScoreAgreement(
        alpha_interval=score_alpha_interval(documents),
        abs_difference=score_abs_difference(documents),
        pearson=score_pearson(documents),
    )
