"""Statistics: bootstrap intervals, paired tests and correlations, against hand work and scipy."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from scoring.metrics.stats import (
    METHOD_RATIO,
    TEST_BOOTSTRAP,
    TEST_PERMUTATION,
    TEST_RATIO_BOOTSTRAP,
    TEST_RATIO_PERMUTATION,
    ConfidenceInterval,
    MismatchedDocumentsError,
    MismatchedSystemsError,
    NonFiniteValueError,
    NonPositiveDenominatorError,
    PairedRatioTestResult,
    RatioInterval,
    StatsError,
    TooFewPointsError,
    bootstrap_ci,
    bootstrap_ratio_ci,
    correlate,
    paired_bootstrap_test,
    paired_permutation_test,
    paired_ratio_bootstrap_test,
    paired_ratio_permutation_test,
    summary_level,
    system_level,
)
from tests.metrics.spearman_reference import spearman_exact

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
        ("spearman", spearman_exact),
        ("kendall", scipy_stats.kendalltau),
    ],
)
def test_correlate_equals_scipy(method, reference):
    ours = correlate(X, Y, method)
    theirs = reference(X, Y)
    assert ours.value == float(theirs.statistic)
    assert ours.p_value == pytest.approx(float(theirs.pvalue), abs=1e-12)
    assert (ours.level, ours.n, ours.reason) == ("pairs", 6, None)


def test_spearman_p_is_exact_for_few_points():
    # 3 points in perfect order: 1 of the 3! orderings is as extreme each way, so p = 2/6.
    assert correlate([1.0, 2.0, 3.0], [10.0, 20.0, 30.0], "spearman").p_value == pytest.approx(
        1 / 3
    )
    # 4 points, one adjacent swap: rho = 0.8; |rho| >= 0.8 for 8 of the 24 orderings.
    result = correlate([1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 2.0, 4.0], "spearman")
    assert result.value == pytest.approx(0.8) and result.p_value == pytest.approx(8 / 24)


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
        "spearman": spearman_exact,
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


# ------------------------------------------------------------ pooled ratios: sum(num) / sum(den)


def test_ratio_ci_of_constant_ratios_has_zero_width():
    # Every unit has ratio 1/3, so every resample's pooled ratio is 1/3 too.
    ci = bootstrap_ratio_ci([1.0, 2.0, 3.0, 0.5], [3.0, 6.0, 9.0, 1.5])
    assert isinstance(ci, RatioInterval)
    assert (ci.ratio, ci.low, ci.high) == (6.5 / 19.5, 6.5 / 19.5, 6.5 / 19.5)
    assert (ci.n, ci.numerator, ci.denominator) == (4, 6.5, 19.5)
    assert (ci.level, ci.resamples, ci.seed, ci.method) == (0.95, 10_000, 0, METHOD_RATIO)


def test_ratio_ci_of_two_units_hand_worked():
    # Units (num, den) = (1, 1) and (0, 3): pooled ratio 1/4. A resample of two units is
    # {1st, 1st} -> 2/2 = 1, {1st, 2nd} or {2nd, 1st} -> 1/4, or {2nd, 2nd} -> 0/6 = 0, with
    # probabilities 1/4, 1/2 and 1/4. So the 2.5% and 97.5% quantiles are 0 and 1, and the 30%
    # and 70% quantiles (level 0.4) are both 1/4.
    ci = bootstrap_ratio_ci([1.0, 0.0], [1.0, 3.0])
    assert (ci.ratio, ci.low, ci.high) == (0.25, 0.0, 1.0)
    narrow = bootstrap_ratio_ci([1.0, 0.0], [1.0, 3.0], level=0.4)
    assert (narrow.low, narrow.high) == (0.25, 0.25)
    # Bootstrapping the mean of the per-unit ratios (1 and 0) answers another question.
    assert bootstrap_ci([1.0, 0.0]).mean == 0.5


def test_ratio_ci_is_the_percentile_interval_of_resampled_pooled_ratios():
    rng = np.random.default_rng(3)
    num, den = rng.uniform(0, 5, size=12), rng.integers(5, 40, size=12).astype(float)
    ci = bootstrap_ratio_ci(num, den, resamples=500, seed=4)
    indices = np.random.default_rng(4).integers(0, 12, size=(500, 12))
    ratios = num[indices].sum(axis=1) / den[indices].sum(axis=1)
    assert ci.ratio == pytest.approx(num.sum() / den.sum(), rel=1e-15)
    assert (ci.low, ci.high) == tuple(np.quantile(ratios, [0.025, 0.975]))


def test_ratio_ci_with_unit_denominators_is_the_mean_ci():
    values = np.random.default_rng(1).uniform(size=30)
    ratio, mean = bootstrap_ratio_ci(values, [1] * 30, seed=3), bootstrap_ci(values, seed=3)
    assert ratio.ratio == pytest.approx(mean.mean, rel=1e-15)
    assert ratio.low == pytest.approx(mean.low, rel=1e-12)
    assert ratio.high == pytest.approx(mean.high, rel=1e-12)


def test_ratio_ci_is_deterministic_with_the_seed_and_changes_with_it():
    rng = np.random.default_rng(8)
    num, den = rng.uniform(0, 3, size=40), rng.integers(10, 60, size=40)
    first = bootstrap_ratio_ci(num, den, seed=3, resamples=2000)
    assert bootstrap_ratio_ci(num, den, seed=3, resamples=2000) == first
    other = bootstrap_ratio_ci(num, den, seed=4, resamples=2000)
    assert other != first and other.ratio == first.ratio
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.low = 0.0


def test_ratio_ci_is_close_to_the_delta_method_on_a_large_sample():
    # Linearised standard error of a ratio of sums: sd(num - r * den) / (sqrt(n) * mean(den)).
    rng = np.random.default_rng(6)
    den = rng.integers(20, 80, size=400).astype(float)
    num = rng.binomial(den.astype(int), 0.1) * 1.5
    ci = bootstrap_ratio_ci(num, den, resamples=20_000)
    r = num.sum() / den.sum()
    half = 1.959964 * (num - r * den).std(ddof=1) / (math.sqrt(num.size) * den.mean())
    assert ci.low < ci.ratio < ci.high
    assert ci.ratio - ci.low == pytest.approx(half, rel=0.1)
    assert ci.high - ci.ratio == pytest.approx(half, rel=0.1)


@pytest.mark.parametrize(
    ("numerators", "denominators", "error", "message"),
    [
        ([1.0, 2.0], [3.0, 0.0], NonPositiveDenominatorError, "denominator 0.0 for 1"),
        ([1.0, 2.0], [-1.0, 2.0], NonPositiveDenominatorError, "denominator -1.0 for 0"),
        ([1.0, float("nan")], [1.0, 2.0], NonFiniteValueError, "for 1"),
        ([1.0, 2.0], [1.0, float("inf")], NonFiniteValueError, "for 1"),
        ([1.0, 2.0, 3.0], [1.0, 2.0], StatsError, "3 numerators but 2 denominators"),
        ([1.0], [2.0], TooFewPointsError, "at least 2"),
        ([], [], TooFewPointsError, "at least 2"),
    ],
)
def test_ratio_ci_refuses_bad_terms(numerators, denominators, error, message):
    with pytest.raises(error, match=message):
        bootstrap_ratio_ci(numerators, denominators)


@pytest.mark.parametrize("kwargs", [{"level": 1.0}, {"resamples": 0}, {"resamples": 2.5}])
def test_ratio_ci_refuses_bad_settings(kwargs):
    with pytest.raises(StatsError):
        bootstrap_ratio_ci([1.0, 2.0], [3.0, 4.0], **kwargs)


# Two units; hand-worked below. A: (1, 4), (3, 6) -> 4/10; B: (0, 2), (1, 8) -> 1/10.
RATIO_A = {"u1": (1.0, 4.0), "u2": (3.0, 6.0)}
RATIO_B = {"u1": (0.0, 2.0), "u2": (1.0, 8.0)}


def test_ratio_permutation_exact_hand_worked():
    # d = 0.4 - 0.1 = 0.3. Swapping u1: A = (0 + 3) / (2 + 6) = 3/8, B = (1 + 1) / (4 + 8) = 1/6,
    # d* = 5/24. Swapping u2: A = 1/6, B = 3/8, d* = -5/24. Swapping both: d* = -0.3.
    # Two-sided: |d*| >= 0.3 for 2 of the 4 patterns; greater: 1 of 4; less: all 4.
    result = paired_ratio_permutation_test(RATIO_A, RATIO_B)
    assert isinstance(result, PairedRatioTestResult)
    assert result.test == TEST_RATIO_PERMUTATION
    assert (result.ratio_a, result.ratio_b) == (0.4, 0.1)
    assert result.statistic == 0.4 - 0.1
    assert (result.n, result.exact, result.resamples, result.p_value) == (2, True, 4, 0.5)
    assert (result.low, result.high, result.level) == (None, None, None)
    assert paired_ratio_permutation_test(RATIO_A, RATIO_B, alternative="greater").p_value == 0.25
    assert paired_ratio_permutation_test(RATIO_A, RATIO_B, alternative="less").p_value == 1.0


def _brute_force_ratio_p(a, b):
    """Two-sided exact p by enumerating swaps with plain Python sums (a second implementation)."""
    units = sorted(a)
    observed = sum(a[u][0] for u in units) / sum(a[u][1] for u in units) - sum(
        b[u][0] for u in units
    ) / sum(b[u][1] for u in units)
    hits = 0
    for swaps in itertools.product((False, True), repeat=len(units)):
        first = [b[u] if s else a[u] for u, s in zip(units, swaps, strict=True)]
        second = [a[u] if s else b[u] for u, s in zip(units, swaps, strict=True)]
        d = sum(n for n, _ in first) / sum(w for _, w in first) - sum(n for n, _ in second) / sum(
            w for _, w in second
        )
        hits += abs(d) >= abs(observed) - 1e-12
    return hits / 2 ** len(units)


@pytest.mark.parametrize("seed", range(5))
def test_ratio_permutation_matches_a_brute_force_enumeration(seed):
    rng = np.random.default_rng(seed)
    a = {f"s{i}": (float(rng.integers(0, 10)) / 2, float(rng.integers(5, 40))) for i in range(9)}
    b = {f"s{i}": (float(rng.integers(0, 14)) / 2, float(rng.integers(5, 40))) for i in range(9)}
    result = paired_ratio_permutation_test(a, b)
    assert result.exact and result.resamples == 2**9
    assert result.p_value == pytest.approx(_brute_force_ratio_p(a, b), abs=1e-15)


def test_ratio_permutation_sampled_is_never_zero():
    units = [f"s{i:02d}" for i in range(20)]
    a = {u: (1.0 + i % 3, 10.0 + i) for i, u in enumerate(units)}
    b = {u: (8.0 + i % 3, 10.0 + i) for i, u in enumerate(units)}
    result = paired_ratio_permutation_test(a, b)
    assert not result.exact  # 2**20 swap patterns exceed the 10,000 resamples
    assert result.p_value == pytest.approx(1 / 10_001)
    assert result.statistic < 0


def test_ratio_bootstrap_hand_worked():
    # Resamples of (u1, u2): {u1, u1} -> 2/8 - 0/4 = 0.25; mixed -> 0.4 - 0.1 = 0.3;
    # {u2, u2} -> 6/12 - 2/16 = 0.375. So the 95% interval is [0.25, 0.375], and no shifted
    # statistic d* - 0.3 (-0.05, 0, 0.075) reaches |0.3|: p = 1 / (1 + resamples).
    result = paired_ratio_bootstrap_test(RATIO_A, RATIO_B)
    assert result.test == TEST_RATIO_BOOTSTRAP
    assert (result.statistic, result.ratio_a, result.ratio_b) == (0.4 - 0.1, 0.4, 0.1)
    assert (result.low, result.high, result.level) == (0.25, 0.375, 0.95)
    assert result.p_value == 1 / 10_001 and not result.exact
    assert paired_ratio_bootstrap_test(RATIO_A, RATIO_B, alternative="less").p_value == 1.0


def test_ratio_bootstrap_with_constant_ratios_has_a_zero_width_interval():
    a = {"u1": (1.0, 2.0), "u2": (2.0, 4.0), "u3": (5.0, 10.0)}  # 1/2 everywhere
    b = {"u1": (1.0, 4.0), "u2": (3.0, 12.0), "u3": (0.5, 2.0)}  # 1/4 everywhere
    result = paired_ratio_bootstrap_test(a, b)
    assert (result.statistic, result.low, result.high) == (0.25, 0.25, 0.25)


def test_ratio_tests_on_identical_systems_give_p_one():
    rng = np.random.default_rng(4)
    a = {i: (float(rng.integers(0, 9)), float(rng.integers(5, 30))) for i in range(25)}
    for test in (paired_ratio_permutation_test, paired_ratio_bootstrap_test):
        result = test(a, dict(a))
        assert (result.statistic, result.p_value) == (0.0, 1.0)


def test_ratio_tests_are_deterministic_and_independent_of_key_order():
    rng = np.random.default_rng(2)
    a = {f"d{i}": (rng.uniform(0, 4), rng.uniform(5, 20)) for i in range(30)}
    b = {f"d{i}": (rng.uniform(0, 4), rng.uniform(5, 20)) for i in range(30)}
    reversed_a = dict(reversed(list(a.items())))
    for test in (paired_ratio_permutation_test, paired_ratio_bootstrap_test):
        assert test(a, b, seed=9) == test(reversed_a, b, seed=9)
        assert test(a, b, seed=9).p_value > 0


def test_pooled_ratios_and_means_of_unit_ratios_can_disagree_on_the_sign():
    # A: 0/2 and 10/100 -> pooled 10/102, mean of unit ratios 0.05.
    # B: 1/2 and 1/100 -> pooled 2/102, mean of unit ratios 0.255.
    a = {"short": (0.0, 2.0), "long": (10.0, 100.0)}
    b = {"short": (1.0, 2.0), "long": (1.0, 100.0)}
    pooled = paired_ratio_permutation_test(a, b)
    assert pooled.statistic == pytest.approx(8 / 102)
    unit_a = {k: n / d for k, (n, d) in a.items()}
    unit_b = {k: n / d for k, (n, d) in b.items()}
    per_unit = paired_permutation_test(unit_a, unit_b)
    assert per_unit.statistic == pytest.approx(0.05 - 0.255)
    assert pooled.statistic > 0 > per_unit.statistic


def test_ratio_tests_refuse_different_units():
    a = {"d1": (1.0, 2.0), "d2": (1.0, 2.0), "d3": (1.0, 2.0)}
    b = {"d1": (1.0, 2.0), "d2": (1.0, 2.0), "d4": (1.0, 2.0)}
    for test in (paired_ratio_permutation_test, paired_ratio_bootstrap_test):
        with pytest.raises(MismatchedDocumentsError) as caught:
            test(a, b)
        assert caught.value.only_left == {"d3"} and caught.value.only_right == {"d4"}


GOOD = {"d1": (1.0, 2.0), "d2": (2.0, 3.0)}


@pytest.mark.parametrize(
    ("b", "error", "message"),
    [
        ({"d1": (1.0, 2.0), "d2": (2.0, 0.0)}, NonPositiveDenominatorError, "'d2'"),
        ({"d1": (float("nan"), 2.0), "d2": (2.0, 3.0)}, NonFiniteValueError, "system B.*'d1'"),
        ({"d1": (True, 2.0), "d2": (2.0, 3.0)}, NonFiniteValueError, "'d1'"),
        ({"d1": (1.0, "2"), "d2": (2.0, 3.0)}, NonFiniteValueError, "'d1'"),
        ({"d1": (1.0, 2.0, 3.0), "d2": (2.0, 3.0)}, StatsError, "'d1' must be a .* pair"),
        ({"d1": 0.5, "d2": (2.0, 3.0)}, StatsError, "'d1' must be a .* pair"),
        ({"d1": "ab", "d2": (2.0, 3.0)}, StatsError, "'d1' must be a .* pair"),
    ],
)
def test_ratio_tests_refuse_bad_terms_naming_the_unit(b, error, message):
    for test in (paired_ratio_permutation_test, paired_ratio_bootstrap_test):
        with pytest.raises(error, match=message):
            test(GOOD, b)


def test_ratio_tests_refuse_too_few_units_and_bad_settings():
    with pytest.raises(TooFewPointsError, match="at least 2"):
        paired_ratio_permutation_test({"d1": (1.0, 2.0)}, {"d1": (0.0, 2.0)})
    with pytest.raises(StatsError, match="alternative"):
        paired_ratio_bootstrap_test(GOOD, GOOD, alternative="up")
    with pytest.raises(StatsError, match="level"):
        paired_ratio_bootstrap_test(GOOD, GOOD, level=1.5)
    with pytest.raises(StatsError, match="resamples"):
        paired_ratio_permutation_test(GOOD, GOOD, resamples=0)
