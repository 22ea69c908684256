"""Statistics: bootstrap intervals, paired tests and correlations, against hand work and scipy."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from scoring.metrics.stats import (
    TEST_BOOTSTRAP,
    TEST_PERMUTATION,
    ConfidenceInterval,
    MismatchedDocumentsError,
    MismatchedSystemsError,
    NonFiniteValueError,
    StatsError,
    TooFewPointsError,
    bootstrap_ci,
    correlate,
    paired_bootstrap_test,
    paired_permutation_test,
    summary_level,
    system_level,
)

# ---------------------------------------------------------------- bootstrap confidence interval


def test_ci_of_a_constant_sample_is_the_constant():
    ci = bootstrap_ci([0.25] * 12)
    assert (ci.mean, ci.low, ci.high, ci.n) == (0.25, 0.25, 0.25, 12)
    assert ci.method == "percentile bootstrap"
    assert (ci.level, ci.resamples, ci.seed) == (0.95, 10_000, 0)


def test_ci_of_two_values_hand_worked():
    # Resamples of (0, 1) have mean 0, 0.5 or 1 with probability 1/4, 1/2, 1/4, so the 2.5%
    # and 97.5% quantiles of the resample means are 0 and 1.
    ci = bootstrap_ci([0.0, 1.0])
    assert (ci.mean, ci.low, ci.high) == (0.5, 0.0, 1.0)


def test_ci_is_deterministic_with_the_seed_and_changes_with_it():
    values = np.random.default_rng(7).normal(size=50)
    first = bootstrap_ci(values, seed=3, resamples=2000)
    assert bootstrap_ci(values, seed=3, resamples=2000) == first
    other = bootstrap_ci(values, seed=4, resamples=2000)
    assert other != first
    assert other.mean == first.mean


def test_ci_is_close_to_the_normal_interval_on_a_large_sample():
    values = np.random.default_rng(1).normal(10.0, 2.0, size=400)
    ci = bootstrap_ci(values, resamples=20_000)
    half = 1.959964 * values.std(ddof=1) / math.sqrt(values.size)
    assert ci.low < ci.mean < ci.high
    assert ci.mean - ci.low == pytest.approx(half, rel=0.1)
    assert ci.high - ci.mean == pytest.approx(half, rel=0.1)


def test_ci_level_and_resamples_are_configurable():
    values = np.arange(30, dtype=float)
    wide = bootstrap_ci(values, level=0.99, resamples=500)
    narrow = bootstrap_ci(values, level=0.5, resamples=500)
    assert wide.low < narrow.low < narrow.high < wide.high
    assert (wide.level, wide.resamples) == (0.99, 500)


def test_ci_result_is_frozen():
    ci = bootstrap_ci([1.0, 2.0, 3.0])
    assert isinstance(ci, ConfidenceInterval)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ci.mean = 0.0


@pytest.mark.parametrize("values", [[], [1.0]])
def test_ci_needs_two_values(values):
    with pytest.raises(TooFewPointsError, match="at least 2"):
        bootstrap_ci(values)


def test_ci_refuses_nan_and_names_its_index():
    with pytest.raises(NonFiniteValueError, match="for 2"):
        bootstrap_ci([1.0, 2.0, float("nan")])


@pytest.mark.parametrize("kwargs", [{"level": 1.0}, {"level": 0.0}, {"resamples": 0}])
def test_ci_refuses_bad_settings(kwargs):
    with pytest.raises(StatsError):
        bootstrap_ci([1.0, 2.0], **kwargs)


# ----------------------------------------------------------------------------- paired tests

DOCS = [f"d{i}" for i in range(20)]


def _scores(values):
    return dict(zip(DOCS, values, strict=False))


def test_permutation_exact_hand_worked():
    # Five documents, A better by exactly 1 on each: of the 2**5 sign patterns only "all +"
    # and "all -" reach |mean| = 1, so the two-sided p is 2/32, the one-sided 1/32.
    a = {f"d{i}": 2.0 for i in range(5)}
    b = {f"d{i}": 1.0 for i in range(5)}
    result = paired_permutation_test(a, b)
    assert result.test == TEST_PERMUTATION
    assert (result.statistic, result.n, result.exact, result.resamples) == (1.0, 5, True, 32)
    assert result.p_value == 2 / 32
    assert paired_permutation_test(a, b, alternative="greater").p_value == 1 / 32
    assert paired_permutation_test(a, b, alternative="less").p_value == 1.0


def test_permutation_matches_scipy_exact():
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=9), rng.normal(size=9) + 0.4
    ours = paired_permutation_test(_scores(x), _scores(y))
    theirs = scipy_stats.permutation_test(
        (x, y),
        lambda u, v: np.mean(u - v),
        permutation_type="samples",
        n_resamples=np.inf,
        alternative="two-sided",
    )
    assert ours.exact
    assert ours.statistic == pytest.approx(theirs.statistic)
    assert ours.p_value == pytest.approx(theirs.pvalue)


def test_permutation_on_an_obvious_difference():
    a = _scores(np.linspace(0.5, 0.9, 20) + 0.3)
    b = _scores(np.linspace(0.5, 0.9, 20))
    result = paired_permutation_test(a, b)
    assert not result.exact  # 2**20 sign patterns exceed the 10,000 resamples
    assert result.statistic == pytest.approx(0.3)
    assert result.p_value == pytest.approx(1 / 10_001)  # add-one: never exactly 0


def test_identical_systems_give_p_one():
    a = _scores(np.linspace(0.0, 1.0, 20))
    for test in (paired_permutation_test, paired_bootstrap_test):
        result = test(a, dict(a))
        assert (result.statistic, result.p_value) == (0.0, 1.0)


def test_paired_tests_are_deterministic_and_independent_of_key_order():
    rng = np.random.default_rng(2)
    a, b = _scores(rng.normal(size=20)), _scores(rng.normal(size=20))
    reversed_a = dict(reversed(list(a.items())))
    for test in (paired_permutation_test, paired_bootstrap_test):
        assert test(a, b, seed=9) == test(reversed_a, b, seed=9)


def test_bootstrap_test_on_an_obvious_difference_with_its_interval():
    a = _scores(np.linspace(0.5, 0.9, 20) + 0.3)
    b = _scores(np.linspace(0.5, 0.9, 20))
    result = paired_bootstrap_test(a, b)
    assert result.test == TEST_BOOTSTRAP
    assert result.p_value == pytest.approx(1 / 10_001)
    assert result.ci.low == pytest.approx(0.3) and result.ci.high == pytest.approx(0.3)
    noisy = paired_bootstrap_test(a, _scores(np.random.default_rng(0).uniform(0.5, 0.9, 20)))
    assert noisy.ci.low < noisy.statistic < noisy.ci.high
    assert noisy.ci.mean == noisy.statistic


def test_bootstrap_and_permutation_agree_roughly():
    rng = np.random.default_rng(11)
    x = rng.normal(size=40)
    a, b = dict(enumerate(x + 0.3)), dict(enumerate(x + rng.normal(scale=0.8, size=40)))
    p_perm = paired_permutation_test(a, b).p_value
    p_boot = paired_bootstrap_test(a, b).p_value
    assert abs(p_perm - p_boot) < 0.05


def test_paired_tests_refuse_different_documents():
    a = {"d1": 1.0, "d2": 2.0, "d3": 3.0}
    b = {"d1": 1.0, "d2": 2.0, "d4": 3.0}
    for test in (paired_permutation_test, paired_bootstrap_test):
        with pytest.raises(MismatchedDocumentsError) as caught:
            test(a, b)
        assert "'d3'" in str(caught.value) and "'d4'" in str(caught.value)
        assert caught.value.only_left == {"d3"} and caught.value.only_right == {"d4"}


def test_paired_tests_refuse_nan_too_few_and_bad_alternative():
    with pytest.raises(NonFiniteValueError, match="'d2'"):
        paired_permutation_test({"d1": 1.0, "d2": float("nan")}, {"d1": 1.0, "d2": 1.0})
    with pytest.raises(TooFewPointsError):
        paired_bootstrap_test({"d1": 1.0}, {"d1": 0.0})
    with pytest.raises(StatsError, match="alternative"):
        paired_permutation_test({"a": 1.0, "b": 2.0}, {"a": 1.0, "b": 2.0}, alternative="up")


# ----------------------------------------------------------------------------- correlations

X = [0.1, 0.4, 0.35, 0.8, 0.7, 0.2]
Y = [1.0, 2.0, 3.0, 4.5, 4.0, 1.5]


@pytest.mark.parametrize(
    ("method", "reference"),
    [
        ("pearson", scipy_stats.pearsonr),
        ("spearman", scipy_stats.spearmanr),
        ("kendall", scipy_stats.kendalltau),
    ],
)
def test_correlate_equals_scipy(method, reference):
    ours = correlate(X, Y, method)
    theirs = reference(X, Y)
    assert (ours.value, ours.p_value) == (float(theirs.statistic), float(theirs.pvalue))
    assert (ours.level, ours.n, ours.reason) == ("pairs", 6, None)


def test_correlate_constant_input_is_none_with_a_reason():
    result = correlate([1.0, 1.0, 1.0], [1.0, 2.0, 3.0], "spearman")
    assert result.value is None and result.p_value is None
    assert "constant input (x)" in result.reason


def test_correlate_errors():
    with pytest.raises(TooFewPointsError, match="at least 3"):
        correlate([1.0, 2.0], [2.0, 1.0])
    with pytest.raises(StatsError, match="3 values but y has 4"):
        correlate([1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0])
    with pytest.raises(StatsError, match="method"):
        correlate(X, Y, "cosine")
    with pytest.raises(NonFiniteValueError):
        correlate([1.0, float("inf"), 2.0], [1.0, 2.0, 3.0])


# Three documents, four systems: metric[s][d] and human[s][d].
METRIC = {
    "lead": {"a": 0.30, "b": 0.20, "c": 0.50},
    "bart": {"a": 0.45, "b": 0.35, "c": 0.40},
    "pgen": {"a": 0.40, "b": 0.10, "c": 0.55},
    "bsum": {"a": 0.20, "b": 0.30, "c": 0.35},
}
HUMAN = {
    "lead": {"a": 3.0, "b": 2.0, "c": 4.0},
    "bart": {"a": 4.0, "b": 4.5, "c": 3.0},
    "pgen": {"a": 3.5, "b": 1.0, "c": 5.0},
    "bsum": {"a": 2.0, "b": 3.0, "c": 2.5},
}
SYSTEMS = sorted(METRIC)


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_system_level_correlates_the_system_means(method):
    reference = {
        "pearson": scipy_stats.pearsonr,
        "spearman": scipy_stats.spearmanr,
        "kendall": scipy_stats.kendalltau,
    }[method]
    means_m = [np.mean(list(METRIC[s].values())) for s in SYSTEMS]
    means_h = [np.mean(list(HUMAN[s].values())) for s in SYSTEMS]
    result = system_level(METRIC, HUMAN, method)
    assert result.value == pytest.approx(float(reference(means_m, means_h).statistic))
    assert result.p_value == pytest.approx(float(reference(means_m, means_h).pvalue))
    assert (result.level, result.n) == ("system", 4)


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_summary_level_averages_per_document_correlations(method):
    reference = {
        "pearson": scipy_stats.pearsonr,
        "spearman": scipy_stats.spearmanr,
        "kendall": scipy_stats.kendalltau,
    }[method]
    per_doc = [
        reference([METRIC[s][d] for s in SYSTEMS], [HUMAN[s][d] for s in SYSTEMS]).statistic
        for d in "abc"
    ]
    result = summary_level(METRIC, HUMAN, method)
    assert result.value == pytest.approx(float(np.mean(per_doc)))
    assert (result.level, result.n, result.p_value, result.undefined) == ("summary", 3, None, ())


def test_summary_level_lists_documents_without_a_coefficient():
    human = {s: dict(scores, c=3.0) for s, scores in HUMAN.items()}  # every system 3.0 on c
    result = summary_level(METRIC, human)
    assert result.n == 2 and result.undefined == ("c",)
    everywhere = {s: {d: 1.0 for d in "abc"} for s in SYSTEMS}
    none = summary_level(METRIC, everywhere, "kendall")
    assert none.value is None and none.undefined == ("a", "b", "c")
    assert "no document" in none.reason


def test_system_level_constant_metric_is_none():
    flat = {s: {d: 0.5 for d in "abc"} for s in SYSTEMS}
    result = system_level(flat, HUMAN, "pearson")
    assert result.value is None and "constant input (x)" in result.reason


def test_correlation_coverage_errors():
    with pytest.raises(MismatchedSystemsError, match="'bsum'"):
        system_level(METRIC, {s: HUMAN[s] for s in ("lead", "bart", "pgen")})
    missing = dict(HUMAN, pgen={"a": 3.5, "b": 1.0})  # pgen has no human score on c
    with pytest.raises(MismatchedDocumentsError, match="'pgen'"):
        summary_level(METRIC, missing)
    two = {s: METRIC[s] for s in ("lead", "bart")}
    with pytest.raises(TooFewPointsError, match="systems"):
        system_level(two, {s: HUMAN[s] for s in two})
