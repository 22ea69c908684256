"""Campaign FAM agreement: hand-worked values, the older measures, the packages, the bootstrap."""

from __future__ import annotations

import math
import random
import warnings
from fractions import Fraction
from itertools import combinations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from scoring.metrics.agreement import (
    FAM_CAMPAIGN_MEASURES,
    InvalidAnnotationError,
    InvalidOptionError,
    UnknownDocumentError,
    fam_alpha_masi,
    fam_best_match_f1,
    fam_campaign_agreement,
    fam_category,
    fam_jaccard,
    masi_distance,
)
from scoring.metrics.agreement.fam_campaign import _masi
from scoring.metrics.stats import bootstrap_ci, bootstrap_ratio_ci
from scoring.metrics.stats.clusters import statistic_on_all

# The package README's worked example: one document, three facets, annotators A and B.
EXAMPLE = {"d1": {"A": [[{0, 1}], [{3}], []], "B": [[{0}, {1}], [{3, 4}], []]}}

# The README's category example (four documents, three annotators).
CATEGORIES = {
    "d1": {"A": "low", "B": "low", "C": "low"},
    "d2": {"A": "high", "B": "low", "C": "high"},
    "d3": {"A": "noise", "B": "noise", "C": "low"},
    "d4": {"A": "low", "B": "high", "C": "low"},
}


def _one_facet_fams(documents):
    return {doc: dict.fromkeys(people, [[{0}]]) for doc, people in documents.items()}


def test_the_readme_worked_example_by_hand():
    result = fam_campaign_agreement(EXAMPLE)
    expected = {
        "jaccard_union": Fraction(3, 4),
        "jaccard_groups": Fraction(0),
        "f1_union": Fraction(5, 6),
        "f1_groups": Fraction(2, 3),
        "alpha_masi_union": Fraction(14, 19),
        "alpha_masi_groups": Fraction(2, 7),
    }
    for name, value in expected.items():
        for score in (
            result.overall[name],
            result.per_pair[name][("A", "B")],
            result.per_document[name]["d1"],
        ):
            assert score.value == pytest.approx(float(value), abs=1e-12), name
    for name in ("jaccard_union", "jaccard_groups", "f1_union", "f1_groups"):
        assert (result.overall[name].n, result.overall[name].excluded) == (2, 1)
    assert result.overall["alpha_masi_union"].n == 6
    # No categories given: the category measures say why they have no value.
    assert result.overall["category_kappa"].reason == "no document categories were given"
    # One document: no interval, with the reason.
    assert "at least two" in result.intervals["jaccard_union"].reason


def test_both_empty_agree_counts_the_unsupported_facet_as_one():
    result = fam_campaign_agreement(EXAMPLE, both_empty="agree")
    assert result.overall["jaccard_union"].value == pytest.approx(5 / 6)  # (1 + 1/2 + 1) / 3
    assert result.overall["jaccard_groups"].value == pytest.approx(1 / 3)  # (0 + 0 + 1) / 3
    with pytest.raises(InvalidOptionError):
        fam_campaign_agreement(EXAMPLE, both_empty="maybe")


def test_category_kappa_and_alpha_by_hand():
    result = fam_campaign_agreement(_one_facet_fams(CATEGORIES), categories=CATEGORIES)
    kappas = result.per_pair["category_kappa"]
    assert kappas[("A", "B")].value == pytest.approx(1 / 5)
    assert kappas[("A", "C")].value == pytest.approx(5 / 9)
    assert kappas[("B", "C")].value == pytest.approx(-1 / 3)
    assert result.overall["category_kappa"].value == pytest.approx(19 / 135)
    assert result.overall["category_kappa"].n == 12  # 4 documents x 3 pairs
    assert result.overall["category_alpha"].value == pytest.approx(8 / 41)
    assert result.per_pair["category_alpha"][("A", "B")].value == pytest.approx(3 / 10)
    assert result.categories["d2"] == {"A": "high", "B": "low", "C": "high"}
    # The FAMs are identical: every FAM measure is 1.
    assert result.overall["jaccard_union"].value == 1.0


def test_category_figures_match_scikit_learn_and_the_krippendorff_package():
    rng = random.Random(7)
    people = ("A", "B", "C")
    categories = {
        f"d{i}": {p: rng.choice(("low", "low", "high", "noise")) for p in people} for i in range(40)
    }
    result = fam_campaign_agreement(_one_facet_fams(categories), categories=categories)
    for a, b in combinations(people, 2):
        theirs = cohen_kappa_score(
            [categories[d][a] for d in categories], [categories[d][b] for d in categories]
        )
        assert result.per_pair["category_kappa"][(a, b)].value == pytest.approx(theirs, abs=1e-12)
    codes = {"low": 0, "high": 1, "noise": 2}
    data = [[codes[categories[d][p]] for d in categories] for p in people]
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert result.overall["category_alpha"].value == pytest.approx(expected, abs=1e-12)


def test_one_category_everywhere_leaves_kappa_and_alpha_undefined_with_reasons():
    categories = {f"d{i}": {"A": "low", "B": "low"} for i in range(3)}
    result = fam_campaign_agreement(_one_facet_fams(categories), categories=categories)
    assert result.overall["category_kappa"].reason == "every pair's kappa is undefined"
    assert "every pairable value is 'low'" in result.overall["category_alpha"].reason
    assert "undefined" in result.intervals["category_alpha"].reason


def _random_fams(rng: random.Random, n_documents=(2, 8)) -> dict:
    documents = {}
    for doc in range(rng.randint(*n_documents)):
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


def _same(ours, theirs, what):
    if theirs.value is None:
        assert ours.value is None and ours.reason, what
    else:
        assert ours.value == pytest.approx(theirs.value, abs=1e-12), what
    assert (ours.n, ours.excluded) == (theirs.n, theirs.excluded), what


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("both_empty", ["skip", "agree"])
def test_it_gives_the_single_measures_figures_at_every_level(seed, both_empty):
    documents = _random_fams(random.Random(seed))
    result = fam_campaign_agreement(documents, both_empty=both_empty, resamples=20)
    references = {
        "jaccard_union": fam_jaccard(documents, both_empty=both_empty),
        "f1_groups": fam_best_match_f1(documents, both_empty=both_empty),
        "alpha_masi_union": fam_alpha_masi(documents),
    }
    for name, reference in references.items():
        _same(result.overall[name], reference.overall, (name, "overall"))
        for pair, score in reference.per_pair.items():
            _same(result.per_pair[name][pair], score, (name, pair))
        for doc, score in reference.per_document.items():
            _same(result.per_document[name][doc], score, (name, doc))


def _naive_unit_means(documents):
    """The new mean measures straight from their definitions, pooled over every unit."""
    values = {"f1_union": [], "jaccard_groups": []}
    for fams in documents.values():
        for a, b in combinations(list(fams), 2):
            for facet in range(len(fams[a])):
                groups_a = {frozenset(g) for g in fams[a][facet]}
                groups_b = {frozenset(g) for g in fams[b][facet]}
                s_a, s_b = frozenset().union(*groups_a), frozenset().union(*groups_b)
                if not s_a and not s_b:
                    continue
                values["f1_union"].append(2 * len(s_a & s_b) / (len(s_a) + len(s_b)))
                values["jaccard_groups"].append(len(groups_a & groups_b) / len(groups_a | groups_b))
    return {name: sum(v) / len(v) if v else None for name, v in values.items()}


def _package_alpha(units):
    domain = sorted({v for unit in units for v in unit}, key=lambda s: sorted(map(sorted, s)))
    index = {value: i for i, value in enumerate(domain)}
    counts = np.zeros((len(units), len(domain)), dtype=int)
    for row, unit in enumerate(units):
        for value in unit:
            counts[row, index[value]] += 1
    matrix = np.array([[masi_distance(a, b) for b in domain] for a in domain])

    def metric(v1, v2, i1, i2, n_v, dtype=np.float64):
        return matrix[i1, i2]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return krippendorff.alpha(value_counts=counts, level_of_measurement=metric)
        except ValueError:
            return math.nan


@pytest.mark.parametrize("seed", range(15))
def test_the_group_measures_match_their_definitions_and_the_package(seed):
    documents = _random_fams(random.Random(100 + seed))
    result = fam_campaign_agreement(documents, resamples=20)
    naive = _naive_unit_means(documents)
    for name, value in naive.items():
        if value is None:
            assert result.overall[name].value is None
        else:
            assert result.overall[name].value == pytest.approx(value, abs=1e-12)
    units = [
        [frozenset(frozenset(g) for g in fam[facet]) for fam in fams.values()]
        for fams in documents.values()
        for facet in range(len(next(iter(fams.values()))))
    ]
    expected = _package_alpha(units)
    ours = result.overall["alpha_masi_groups"].value
    if ours is None:
        assert math.isnan(expected)
    else:
        assert ours == pytest.approx(expected, abs=1e-12)


def test_the_fast_masi_is_the_fraction_masi_bit_for_bit():
    rng = random.Random(3)
    for _ in range(3000):
        a = frozenset(rng.sample(range(12), rng.randint(0, 6)))
        b = frozenset(rng.sample(range(12), rng.randint(0, 6)))
        assert _masi(a, b) == masi_distance(a, b)


def test_one_unit_per_document_gives_the_plain_bootstrap_interval():
    # One facet, two annotators: each document is one unit, so the pooled mean is the mean of
    # the documents' Jaccards and the interval must be bootstrap_ci's (same draws).
    rng = random.Random(11)
    documents, jaccards = {}, []
    for i in range(30):
        a = set(rng.sample(range(8), rng.randint(1, 4)))
        b = set(rng.sample(range(8), rng.randint(1, 4)))
        documents[f"d{i}"] = {"A": [[a]], "B": [[b]]}
        jaccards.append(len(a & b) / len(a | b))
    result = fam_campaign_agreement(documents, resamples=500, seed=5)
    expected = bootstrap_ci(jaccards, resamples=500, seed=5)
    interval = result.intervals["jaccard_union"]
    assert interval.low == pytest.approx(expected.low, abs=1e-12)
    assert interval.high == pytest.approx(expected.high, abs=1e-12)
    assert (interval.resamples, interval.seed, interval.level, interval.clusters) == (
        500,
        5,
        0.95,
        30,
    )
    assert interval.undefined == 0 and interval.reason is None


def test_the_pooled_mean_interval_is_the_ratio_bootstrap_of_its_sums():
    documents = _random_fams(random.Random(21), n_documents=(25, 25))
    documents = {
        d: f for d, f in documents.items() if any(any(x) for fam in f.values() for x in fam)
    }
    result = fam_campaign_agreement(documents, resamples=400, seed=2)
    parts = result.parts["jaccard_union"]
    keep = parts[:, 1] > 0
    assert keep.all(), "every document here has a unit"
    expected = bootstrap_ratio_ci(parts[:, 0], parts[:, 1], resamples=400, seed=2)
    assert result.intervals["jaccard_union"].low == pytest.approx(expected.low, abs=1e-12)
    assert result.intervals["jaccard_union"].high == pytest.approx(expected.high, abs=1e-12)


def test_every_statistic_on_the_full_sample_is_the_point_estimate():
    from scoring.metrics.agreement import fam_campaign as module

    rng = random.Random(5)
    documents = _random_fams(rng, n_documents=(20, 20))
    categories = {
        doc: {a: rng.choice(("low", "high", "noise")) for a in fams}
        for doc, fams in documents.items()
    }
    captured = {}
    original = module.cluster_bootstrap

    def spy(statistics, n, **options):
        captured.update(statistics)
        return original(statistics, n, **options)

    module.cluster_bootstrap = spy
    try:
        result = fam_campaign_agreement(documents, categories=categories, resamples=50)
    finally:
        module.cluster_bootstrap = original
    assert set(captured) == set(FAM_CAMPAIGN_MEASURES)
    for name, statistic in captured.items():
        assert statistic_on_all(statistic) == pytest.approx(result.overall[name].value, abs=1e-9)


def test_intervals_are_reproducible_and_follow_the_seed():
    documents = _random_fams(random.Random(8), n_documents=(30, 30))
    first = fam_campaign_agreement(documents, resamples=200, seed=1)
    again = fam_campaign_agreement(documents, resamples=200, seed=1)
    other = fam_campaign_agreement(documents, resamples=200, seed=2)
    assert first.intervals == again.intervals
    assert first.intervals["jaccard_union"] != other.intervals["jaccard_union"]
    for name in ("jaccard_union", "f1_groups", "alpha_masi_union"):
        interval, value = first.intervals[name], first.overall[name].value
        assert interval.low <= value <= interval.high, name


def test_a_subset_gives_the_means_over_its_documents():
    documents = _random_fams(random.Random(9), n_documents=(12, 12))
    result = fam_campaign_agreement(documents, resamples=100)
    chosen = ["d1", "d4", "d7", "d10"]
    reference = fam_jaccard({d: documents[d] for d in chosen})
    score, interval = result.subset(chosen)["jaccard_union"]
    _same(score, reference.overall, "subset")
    assert interval.clusters == 4
    with pytest.raises(UnknownDocumentError):
        result.subset(["nope"])


def test_an_empty_subset_says_it_has_no_document():
    """Issue 27: an empty subset said "no facet has support from either annotator", as if
    its documents' facets had all been skipped; it has no document at all."""
    documents = _random_fams(random.Random(9), n_documents=(4, 4))
    result = fam_campaign_agreement(documents, resamples=50)
    for name, (score, interval) in result.subset([]).items():
        assert score.value is None and score.n == 0, name
        assert score.reason == "no document in this subset", name
        assert interval.low is None and interval.clusters == 0, name


def test_categories_must_cover_every_annotated_document():
    with pytest.raises(UnknownDocumentError, match="no categories"):
        fam_campaign_agreement(EXAMPLE, categories={})
    with pytest.raises(InvalidAnnotationError, match="needs a category"):
        fam_campaign_agreement(EXAMPLE, categories={"d1": {"A": "low"}})


@pytest.mark.parametrize(
    ("labels", "override", "expected"),
    [
        (["supported", "supported"], "", "low"),
        (["supported", "no_support"], "", "high"),
        (["noise", "no_support"], "", "high"),
        (["noise", "noise"], "", "noise"),
        (["noise", "supported"], "", "low"),
        ([], "", "low"),
        (["noise", "noise"], "low", "low"),
    ],
)
def test_the_category_follows_the_workspace_rule(labels, override, expected):
    assert fam_category(labels, override) == expected


def test_an_unknown_category_or_label_is_refused():
    with pytest.raises(InvalidAnnotationError, match="category 'medium'"):
        fam_category(["supported"], "medium")
    with pytest.raises(InvalidAnnotationError, match="facet 1"):
        fam_category(["supported", "maybe"])


@pytest.mark.parametrize(
    ("fam", "error"),
    [
        ([[{0}], [[]]], "empty support group"),
        ([[{0}], [[True]]], "not a non-negative integer"),
        ([[{0}], [[-1]]], "not a non-negative integer"),
        ([[{0}], [{1: "x"}]], "must be a set of sentence indices"),
        ([[{0}]], "facets"),
    ],
)
def test_malformed_fams_get_the_single_measures_errors(fam, error):
    from scoring.metrics.agreement import AgreementError

    documents = {"d1": {"A": [[{0}], [{1}]], "B": fam}}
    with pytest.raises(AgreementError, match=error):
        fam_campaign_agreement(documents)
    with pytest.raises(AgreementError, match=error):
        fam_jaccard(documents)


def test_plain_lists_and_validated_fams_give_the_same_figures():
    from scoring.metrics.fam import validate_fam

    plain = {"d1": {"A": [[[0, 1]], [[3]], []], "B": [[[0], [1]], [[3, 4]], []]}}
    validated = {
        "d1": {
            name: validate_fam(fam, n_sentences=6, n_facets=3) for name, fam in plain["d1"].items()
        }
    }
    first, second = fam_campaign_agreement(plain), fam_campaign_agreement(validated)
    assert first.overall == second.overall
    assert first.per_document == second.per_document
