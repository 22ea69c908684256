"""Agreement cross-checked against `krippendorff` (nominal and MASI) and scikit-learn's kappa."""

from __future__ import annotations

import math
import random
import warnings
from itertools import combinations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from scoring.metrics.agreement import (
    Span,
    SpanMatching,
    cohen_kappa,
    fam_alpha_masi,
    krippendorff_alpha,
    masi_distance,
    nominal_distance,
    span_alpha,
    span_clusters,
    span_kappa,
)
from scoring.metrics.agreement.spans import match_spans

SUBTYPES = ("Addition", "Omission", "Inaccuracy Intrinsic", "Duplication")
LABELS = ("Subject", "Predicate", "Object")


def _package_alpha(units, distance=None):
    """``krippendorff.alpha`` from value counts, with our distance as a callable if given."""
    domain = sorted({v for unit in units for v in unit}, key=repr)
    index = {value: i for i, value in enumerate(domain)}
    counts = np.zeros((len(units), len(domain)), dtype=int)
    for row, unit in enumerate(units):
        for value in unit:
            counts[row, index[value]] += 1
    if distance is None:
        return krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
    matrix = np.array([[distance(a, b) for b in domain] for a in domain])

    def metric(v1, v2, i1, i2, n_v, dtype=np.float64):
        return matrix[i1, i2]

    return krippendorff.alpha(value_counts=counts, level_of_measurement=metric)


def _package_alpha_or_nan(units, distance=None):
    """``_package_alpha``, with NaN where the package refuses (undefined) or warns (0/0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 when every pairable value is one
        try:
            return _package_alpha(units, distance)
        except ValueError:  # "more than one value in the domain" / "at least one unit with ..."
            return math.nan


def test_where_our_alpha_is_undefined_the_package_gives_nan_or_refuses():
    units = {
        "no pairable unit": [[frozenset({1})], [frozenset({2})]],
        "one value everywhere": [[frozenset({1}), frozenset({1})], [frozenset({1})] * 3],
        "one pairable value, another unpaired": [
            [frozenset({1}), frozenset({1})],
            [frozenset({2})],
        ],
    }
    for name, case in units.items():
        assert krippendorff_alpha(case, masi_distance).value is None, name
        assert math.isnan(_package_alpha_or_nan(case, masi_distance)), name
    # The last case is the package's NaN (0/0), not a refusal.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert math.isnan(_package_alpha(units["one pairable value, another unpaired"]))


def test_the_packages_own_example():
    # krippendorff.alpha's docstring: nominal alpha 0.691358 (3 coders, 15 units, missing data).
    nan = np.nan
    data = [
        [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
        [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
        [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
    ]
    units = [[v for v in column if not np.isnan(v)] for column in zip(*data, strict=True)]
    ours = krippendorff_alpha(units, nominal_distance)
    assert round(ours.value, 6) == 0.691358
    assert ours.excluded == 3  # units 2, 14 (no value) and 9 (one value)


@pytest.mark.parametrize("seed", range(10))
def test_nominal_alpha_matches_the_package(seed):
    rng = random.Random(seed)
    coders, n_units = rng.randint(2, 5), rng.randint(5, 40)
    data = np.full((coders, n_units), np.nan)
    for unit in range(n_units):
        for coder in range(coders):
            if rng.random() < 0.8:
                data[coder, unit] = rng.choice((1, 2, 3, rng.randint(1, 6)))
    units = [[v for v in column if not np.isnan(v)] for column in data.T]
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert krippendorff_alpha(units, nominal_distance).value == pytest.approx(expected, abs=1e-12)


def _random_fams(rng: random.Random) -> dict:
    documents = {}
    for doc in range(rng.randint(2, 6)):
        n_facets, n_sentences = rng.randint(1, 4), 6
        annotators = rng.sample(["A", "B", "C", "D"], rng.randint(2, 4))
        documents[f"d{doc}"] = {
            annotator: [
                [
                    set(rng.sample(range(n_sentences), rng.randint(1, 2)))
                    for _ in range(rng.choice((0, 1, 1, 2)))
                ]
                for _ in range(n_facets)
            ]
            for annotator in annotators
        }
    return documents


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("empty_support", ["value", "missing"])
def test_masi_alpha_matches_the_package_with_our_distance(seed, empty_support):
    documents = _random_fams(random.Random(seed))
    result = fam_alpha_masi(documents, empty_support=empty_support)
    units = []
    for fams in documents.values():
        for facet in range(len(next(iter(fams.values())))):
            values = [frozenset().union(*fam[facet]) for fam in fams.values()]
            units.append([v for v in values if v or empty_support == "value"])
    expected = _package_alpha_or_nan(units, masi_distance)
    if result.overall.value is None:  # undefined: the package must not find a value either
        assert "alpha is 0/0" in result.overall.reason or "no unit" in result.overall.reason
        assert math.isnan(expected)
    else:
        assert result.overall.value == pytest.approx(expected, abs=1e-12)
    for (a, b), score in result.per_pair.items():  # a pair: the documents both annotated
        pair_units = [
            [
                v
                for v in (frozenset().union(*fams[a][f]), frozenset().union(*fams[b][f]))
                if v or empty_support == "value"
            ]
            for fams in documents.values()
            if a in fams and b in fams
            for f in range(len(fams[a]))
        ]
        expected = _package_alpha_or_nan(pair_units, masi_distance)
        if score.value is None:
            assert "alpha is 0/0" in score.reason or "no unit" in score.reason
            assert math.isnan(expected)
        else:
            assert score.value == pytest.approx(expected, abs=1e-12)


def test_masi_alpha_worked_example_matches_the_package():
    units = [
        [frozenset({0, 1}), frozenset({0, 1})],
        [frozenset({3}), frozenset({3, 4})],
        [frozenset(), frozenset()],
    ]
    assert _package_alpha(units, masi_distance) == pytest.approx(14 / 19)
    assert krippendorff_alpha(units, masi_distance).value == pytest.approx(14 / 19)


@pytest.mark.parametrize("seed", range(20))
def test_kappa_matches_scikit_learn(seed):
    rng = random.Random(seed)
    categories = SUBTYPES[: rng.randint(2, 4)]
    a = [rng.choice(categories) for _ in range(rng.randint(2, 30))]
    b = [x if rng.random() < 0.6 else rng.choice(categories) for x in a]
    ours = cohen_kappa(list(zip(a, b, strict=True)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns where kappa is undefined
        theirs = cohen_kappa_score(a, b)
    if ours.value is None:  # scikit-learn says NaN there
        assert np.isnan(theirs)
    else:
        assert ours.value == pytest.approx(theirs, abs=1e-12)


def test_kappa_where_scikit_learn_gives_nan_we_give_a_reason():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(cohen_kappa_score(["x", "x"], ["x", "x"]))
    assert cohen_kappa([("x", "x"), ("x", "x")]).reason is not None


def _random_span(rng: random.Random, start: int, end: int) -> tuple:
    start += rng.randint(0, 3)
    end = max(start + 1, end + rng.randint(-1, 3))
    return (start, end, rng.choice(SUBTYPES), rng.choice(LABELS))


def _random_spans(rng: random.Random, annotators) -> dict:
    documents = {}
    for doc in range(rng.randint(2, 5)):
        base = [(s, s + rng.randint(2, 8)) for s in sorted(rng.sample(range(0, 200, 10), 6))]
        documents[f"d{doc}"] = {
            annotator: [_random_span(rng, start, end) for start, end in base if rng.random() < 0.8]
            for annotator in annotators
        }
    return documents


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("attribute", ["subtype", "label"])
def test_span_kappa_matches_scikit_learn_on_the_matched_spans(seed, attribute):
    documents = _random_spans(random.Random(seed), ["A", "B"])
    a, b = [], []
    for spans in documents.values():
        spans_a, spans_b = (
            sorted(Span(*s) for s in spans["A"]),
            sorted(Span(*s) for s in spans["B"]),
        )
        for i, j, _ in match_spans(spans_a, spans_b, SpanMatching()):
            a.append(getattr(spans_a[i], attribute))
            b.append(getattr(spans_b[j], attribute))
    pair = span_kappa(documents, attribute=attribute).pair("A", "B")
    assert pair.n == len(a)
    assert pair.value == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("attribute", ["subtype", "label"])
def test_span_alpha_matches_the_package_on_the_clusters(seed, attribute):
    annotators = ["A", "B", "C"]
    documents = _random_spans(random.Random(seed), annotators)
    columns = []  # one reliability-data column per cluster, NaN where an annotator has no span
    codes = {c: float(i) for i, c in enumerate(SUBTYPES + LABELS)}
    for spans in documents.values():
        normalised = {a: sorted(Span(*s) for s in spans[a]) for a in annotators}
        for cluster in span_clusters(normalised, annotators, SpanMatching()):
            column = [np.nan] * len(annotators)
            for annotator, index in cluster:
                column[annotators.index(annotator)] = codes[
                    getattr(normalised[annotator][index], attribute)
                ]
            assert len(cluster) == len({a for a, _ in cluster})  # at most one span per annotator
            columns.append(column)
    expected = krippendorff.alpha(
        reliability_data=np.array(columns).T, level_of_measurement="nominal"
    )
    result = span_alpha(documents, attribute=attribute)
    assert result.overall.value == pytest.approx(expected, abs=1e-12)
    # Per pair: the clusters of two annotators are their matched spans.
    for a, b in combinations(annotators, 2):
        pairs = [
            (getattr(x, attribute), getattr(y, attribute))
            for spans in documents.values()
            for x, y in _matched(spans[a], spans[b])
        ]
        assert result.pair(a, b).value == pytest.approx(_package_alpha(pairs), abs=1e-12)


def _matched(raw_a, raw_b):
    spans_a, spans_b = sorted(Span(*s) for s in raw_a), sorted(Span(*s) for s in raw_b)
    return [(spans_a[i], spans_b[j]) for i, j, _ in match_spans(spans_a, spans_b, SpanMatching())]
