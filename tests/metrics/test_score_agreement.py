"""Agreement of item scores: interval alpha, mean |difference| and Pearson's r, worked by hand."""

from __future__ import annotations

import math
import random

import krippendorff
import numpy as np
import pytest
from scipy.stats import pearsonr

from scoring.metrics.agreement import (
    EmptyInputError,
    InvalidAnnotationError,
    TooFewAnnotatorsError,
    interval_distance,
    pearson,
    score_abs_difference,
    score_agreement,
    score_alpha_interval,
    score_pearson,
)

# Two annotators, three items: A (1, 2, 3) and B (1, 3, 3).
TWO = {"d1": {"A": 1, "B": 1}, "d2": {"A": 2, "B": 3}, "d3": {"A": 3, "B": 3}}
# C (1, 2, 1) joins them.
THREE = {
    "d1": {"A": 1, "B": 1, "C": 1},
    "d2": {"A": 2, "B": 3, "C": 2},
    "d3": {"A": 3, "B": 3, "C": 1},
}


def test_interval_distance_is_the_squared_difference():
    assert interval_distance(3, 1) == 4
    assert interval_distance(1.5, 1.5) == 0


def test_alpha_interval_two_annotators_by_hand():
    # Units (1,1), (2,3), (3,3); n = 6, n_1 = 2, n_2 = 1, n_3 = 3.
    # D_o = (o[2,3] + o[3,2]) * 1 / 6 = 1/3.
    # D_e = 2 (2*1*1 + 2*3*4 + 1*3*1) / (6*5) = 29/15; alpha = 1 - (1/3)/(29/15) = 24/29.
    result = score_alpha_interval(TWO)
    assert result.pair("A", "B").value == pytest.approx(24 / 29)
    assert result.overall.value == pytest.approx(24 / 29)
    assert result.overall.n == 6
    assert result.options["distance"] == "interval"


def test_alpha_interval_three_annotators_by_hand():
    # Units (1,1,1), (2,3,2), (3,3,1), each ordered pair weighs 1/2.
    # o[2,3] = o[3,2] = 1, o[3,1] = o[1,3] = 1 (distance 4): D_o = (1 + 1 + 4 + 4) / 9 = 10/9.
    # n_1 = 4, n_2 = 2, n_3 = 3: D_e = 2 (4*2*1 + 4*3*4 + 2*3*1) / (9*8) = 31/18.
    # alpha = 1 - (10/9) / (31/18) = 11/31.
    result = score_alpha_interval(THREE)
    assert result.overall.value == pytest.approx(11 / 31)
    assert result.overall.n == 9


def test_alpha_interval_matches_the_krippendorff_package():
    rng = random.Random(7)
    people = ["A", "B", "C", "D"]
    documents = {}
    for item in range(25):
        scored = rng.sample(people, rng.randint(2, 4))
        documents[item] = {a: rng.choice([100.0, 92.5, 87.5, 75.0, 60.0]) for a in scored}
    data = np.array(
        [[documents[item].get(a, np.nan) for item in documents] for a in people], dtype=float
    )
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    assert score_alpha_interval(documents).overall.value == pytest.approx(expected)
    pair = data[:2]
    expected_pair = krippendorff.alpha(reliability_data=pair, level_of_measurement="interval")
    assert score_alpha_interval(documents).pair("A", "B").value == pytest.approx(expected_pair)


def test_alpha_interval_is_undefined_for_one_item_and_for_equal_scores():
    result = score_alpha_interval(TWO)
    assert result.document("d2").value is None
    assert "one item" in result.document("d2").reason
    assert result.cell("d2", "A", "B").value is None
    same = score_alpha_interval({"d1": {"A": 100, "B": 100}, "d2": {"A": 100, "B": 100}})
    assert same.overall.value is None
    assert "every pairable value is 100.0" in same.overall.reason


def test_abs_difference_by_hand_at_every_level():
    result = score_abs_difference(THREE)
    # A-B: 0, 1, 0; A-C: 0, 0, 2; B-C: 0, 1, 2.
    assert result.cell("d3", "A", "C").value == 2
    assert result.document("d2").value == pytest.approx(2 / 3)
    assert result.document("d3").value == pytest.approx(4 / 3)
    assert result.pair("A", "B").value == pytest.approx(1 / 3)
    assert result.pair("C", "B").value == pytest.approx(1)
    assert result.overall.value == pytest.approx(6 / 9)
    assert result.overall.n == 9


def test_pearson_by_hand():
    # A (1,2,3) vs B (1,3,3): sxy = 2, sxx = 2, syy = 8/3, r = 2 / sqrt(16/3) = sqrt(3)/2.
    result = score_pearson(THREE)
    assert result.pair("A", "B").value == pytest.approx(math.sqrt(3) / 2)
    assert result.pair("A", "C").value == pytest.approx(0.0, abs=1e-12)  # sxy = 0
    assert result.pair("B", "C").value == pytest.approx(0.5)  # (2/3) / (4/3)
    assert result.overall.value == pytest.approx((math.sqrt(3) / 2 + 0 + 0.5) / 3)
    assert result.overall.n == 9
    assert result.document("d1").value is None and "one item" in result.document("d1").reason
    x, y = [1, 2, 3], [1, 3, 3]
    assert pearson(list(zip(x, y, strict=True))).value == pytest.approx(pearsonr(x, y)[0])


def test_pearson_needs_three_items_that_vary():
    two = pearson([(1.0, 2.0), (2.0, 3.0)])
    assert two.value is None and "at least 3" in two.reason
    flat = pearson([(100.0, 90.0), (100.0, 80.0), (100.0, 70.0)])
    assert flat.value is None and "first annotator's scores do not vary" in flat.reason
    result = score_pearson({"d1": {"A": 1, "B": 2}, "d2": {"A": 2, "B": 3}})
    assert result.overall.value is None
    assert result.overall.reason == "every pair r is undefined"
    assert result.overall.excluded == 1


def test_score_agreement_bundles_the_three_measures():
    bundle = score_agreement(TWO)
    assert bundle.alpha_interval.measure == "score_alpha_interval"
    assert bundle.abs_difference.measure == "score_abs_difference"
    assert bundle.pearson.measure == "score_pearson"
    assert bundle.abs_difference.as_dict()["overall"]["value"] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("documents", "error", "message"),
    [
        ({}, EmptyInputError, "no documents"),
        ({"d1": {"A": 1}}, TooFewAnnotatorsError, "document 'd1'"),
        ({"d1": {"A": 1, "B": float("nan")}}, InvalidAnnotationError, "annotator 'B'"),
        ({"d1": {"A": 1, "B": True}}, InvalidAnnotationError, "not a finite number"),
        ({"d1": {"A": 1, "B": "90"}}, InvalidAnnotationError, "'90'"),
    ],
)
def test_bad_scores_are_refused_with_where(documents, error, message):
    with pytest.raises(error, match=message):
        score_agreement(documents)
