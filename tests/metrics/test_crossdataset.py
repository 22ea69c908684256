"""Cross-dataset evaluation (CDEvalSumm): U matrix, stiffness, stableness (both normalisations),
ranking, the permutation test and the paper's Wilcoxon signed-rank test (against SciPy)."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from scoring.metrics.crossdataset import (
    MEASURE_STABLENESS,
    MEASURE_STIFFNESS,
    NORMALISATION_NOTE,
    READING_CELLS,
    READING_DOCUMENTS,
    READINGS,
    TEST_STIFFNESS_PERMUTATION,
    BadScoreError,
    CrossDatasetError,
    EmptyCellError,
    MismatchedCellsError,
    MismatchedUnitsError,
    MissingCellError,
    NoCellsError,
    NonPositiveDiagonalError,
    UnknownDatasetError,
    cell_mean,
    cells_from_nested,
    cross_dataset_matrix,
    cross_dataset_wilcoxon,
    rank_systems,
    signed_rank_test,
    stiffness_permutation_test,
    units_of,
)
from scoring.metrics.crossdataset.wilcoxon import (
    METHOD_ALL_ZERO,
    METHOD_ASYMPTOTIC,
    METHOD_EXACT,
    METHOD_EXACT_TIES,
)
from scoring.metrics.errors import MetricsError
from scoring.metrics.stats import paired_permutation_test

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "crossdataset" / "example.json"


def _example():
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    return data["datasets"], {
        name: cells_from_nested(nested) for name, nested in data["systems"].items()
    }


def _matrices():
    datasets, systems = _example()
    return {
        name: cross_dataset_matrix(cells, system=name, datasets=datasets)
        for name, cells in systems.items()
    }


# ---------------------------------------------------------------- the example (hand-worked)
#
# Each cell of the example holds two documents scored U + delta and U - delta, so every cell
# mean is its U value. Rows are train, columns test, datasets A, B, C.
#
# S1: U = [[.50, .20, .30], [.25, .40, .15], [.25, .20, .60]]
#     sum = 1.00 + .80 + 1.05 = 2.85, stiffness = 2.85 / 9 = 0.316666...
#     columns divided by .50, .40, .60: [[1, .5, .5], [.5, 1, .25], [.5, .5, 1]]
#     sum = 2 + 1.75 + 2 = 5.75, stableness = 5.75 / 9 = 0.638888...
#     in-dataset = (.50 + .40 + .60) / 3 = 0.5
# S2: U = [[.40, .30, .30], [.30, .30, .30], [.20, .15, .30]]
#     sum = 1.00 + .90 + .65 = 2.55, stiffness = 2.55 / 9 = 0.283333...
#     columns divided by .40, .30, .30: [[1, 1, 1], [.75, 1, 1], [.5, .5, 1]]
#     sum = 3 + 2.75 + 2 = 7.75, stableness = 7.75 / 9 = 0.861111...
#     in-dataset = (.40 + .30 + .30) / 3 = 0.333333...
# S3: U = [[.60, .25, .40], [.30, .50, .20], [.45, .25, .40]]
#     sum = 1.25 + 1.00 + 1.10 = 3.35, stiffness = 3.35 / 9 = 0.372222...
#     columns divided by .60, .50, .40: [[1, .5, 1], [.5, 1, .5], [.75, .5, 1]]
#     sum = 2.5 + 2 + 2.25 = 6.75, stableness = 6.75 / 9 = 0.75
#     in-dataset = (.60 + .50 + .40) / 3 = 0.5
# Ranks: stiffness S3 > S1 > S2; stableness S2 > S3 > S1; in-dataset S1 = S3 (both 1) > S2 (3).

HAND = {
    "S1": {
        "u": [[0.50, 0.20, 0.30], [0.25, 0.40, 0.15], [0.25, 0.20, 0.60]],
        "normalised": [[1, 0.5, 0.5], [0.5, 1, 0.25], [0.5, 0.5, 1]],
        "stiffness": 2.85 / 9,
        "stableness": 5.75 / 9,
        "in_dataset": 0.5,
    },
    "S2": {
        "u": [[0.40, 0.30, 0.30], [0.30, 0.30, 0.30], [0.20, 0.15, 0.30]],
        "normalised": [[1, 1, 1], [0.75, 1, 1], [0.5, 0.5, 1]],
        "stiffness": 2.55 / 9,
        "stableness": 7.75 / 9,
        "in_dataset": 1 / 3,
    },
    "S3": {
        "u": [[0.60, 0.25, 0.40], [0.30, 0.50, 0.20], [0.45, 0.25, 0.40]],
        "normalised": [[1, 0.5, 1], [0.5, 1, 0.5], [0.75, 0.5, 1]],
        "stiffness": 3.35 / 9,
        "stableness": 6.75 / 9,
        "in_dataset": 0.5,
    },
}


@pytest.mark.parametrize("system", sorted(HAND))
def test_example_matrices_match_the_hand_worked_values(system):
    matrix = _matrices()[system]
    hand = HAND[system]
    assert matrix.datasets == ("A", "B", "C")
    for got, want in zip(matrix.u, hand["u"], strict=True):
        assert got == pytest.approx(want, abs=1e-12)
    for got, want in zip(matrix.normalised, hand["normalised"], strict=True):
        assert got == pytest.approx(want, abs=1e-12)
    assert matrix.stiffness == pytest.approx(hand["stiffness"], abs=1e-12)
    assert matrix.stableness == pytest.approx(hand["stableness"], abs=1e-12)
    assert matrix.in_dataset == pytest.approx(hand["in_dataset"], abs=1e-12)
    assert matrix.n_documents == ((2, 2, 2),) * 3
    assert matrix.excluded == ()
    assert matrix.cell("B", "C") == pytest.approx(hand["u"][1][2])
    assert matrix.normalised_cell("B", "A") == pytest.approx(hand["normalised"][1][0])


def test_example_ranking_by_the_three_measures():
    matrices = _matrices()
    ranking = rank_systems([matrices["S1"], matrices["S2"], matrices["S3"]])
    assert ranking.datasets == ("A", "B", "C")
    assert ranking.order("stiffness") == ("S3", "S1", "S2")
    assert ranking.order("stableness") == ("S2", "S3", "S1")
    assert ranking.order("in_dataset") == ("S1", "S3", "S2")  # a tie keeps the given order
    ranks = {
        r.system: (r.rank_stiffness, r.rank_stableness, r.rank_in_dataset) for r in ranking.systems
    }
    assert ranks == {"S1": (2, 3, 1), "S2": (3, 1, 3), "S3": (1, 2, 1)}
    with pytest.raises(ValueError, match="measure"):
        ranking.order("rouge")


def test_example_paired_test_statistic_is_the_stiffness_difference():
    _, systems = _example()
    # 18 units (9 cells x 2 documents): more than the exact limit, so sign flips are sampled.
    outcome = stiffness_permutation_test(systems["S3"], systems["S1"], resamples=2000, seed=1)
    assert outcome.result.statistic == pytest.approx((3.35 - 2.85) / 9, abs=1e-12)
    assert outcome.result.test == TEST_STIFFNESS_PERMUTATION
    assert (outcome.result.n, outcome.cells, outcome.result.exact) == (18, 9, False)
    assert 0 < outcome.result.p_value <= 1
    again = stiffness_permutation_test(systems["S3"], systems["S1"], resamples=2000, seed=1)
    assert again == outcome


# ---------------------------------------------------------------- per-cell means and edges


def test_cell_mean_hand_worked():
    mean = cell_mean({"d1": 0.2, "d2": 0.4, "d3": 0.9}, train="A", test="B")
    assert (mean.train, mean.test, mean.n) == ("A", "B", 3)
    assert mean.mean == pytest.approx(0.5, abs=1e-15)


def test_a_single_dataset_is_its_own_in_dataset_score():
    matrix = cross_dataset_matrix({("A", "A"): {"d": 0.4}}, system="s")
    assert (matrix.stiffness, matrix.stableness, matrix.in_dataset) == (0.4, 1.0, 0.4)


def test_empty_inputs_are_refused_with_typed_errors():
    with pytest.raises(NoCellsError, match="no \\(train, test\\) cell"):
        cross_dataset_matrix({}, system="s")
    with pytest.raises(EmptyCellError, match="trained on 'A' and tested on 'B'"):
        cross_dataset_matrix(_two_by_two({("A", "B"): {}, ("B", "A"): {"a": 1}}))
    with pytest.raises(NoCellsError):
        rank_systems([])
    assert issubclass(CrossDatasetError, MetricsError)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "0.3", None, True])
def test_a_bad_score_names_its_document(bad):
    with pytest.raises(BadScoreError, match="document 'd2'") as caught:
        cross_dataset_matrix({("A", "A"): {"d1": 0.3, "d2": bad}}, system="s")
    assert caught.value.cell == ("A", "A")


def _two_by_two(off: dict):
    cells = {("A", "A"): {"a": 0.4}, ("B", "B"): {"b": 0.5}}
    cells.update(off)
    return cells


def test_a_missing_cell_is_an_error_by_default():
    with pytest.raises(MissingCellError, match="\\('B', 'A'\\)") as caught:
        cross_dataset_matrix(_two_by_two({("A", "B"): {"b": 0.25}}), system="s")
    assert caught.value.cells == {("B", "A")}


def test_an_off_diagonal_cell_can_be_excluded_explicitly():
    # Present: U_AA = .4, U_BB = .5, U_AB = .25 -> stiffness (.4 + .5 + .25) / 3 = 1.15 / 3,
    # normalised: 1, 1 and .25 / .5 = .5 -> stableness 2.5 / 3; in-dataset (.4 + .5) / 2 = .45.
    matrix = cross_dataset_matrix(
        _two_by_two({("A", "B"): {"b": 0.25}}), system="s", missing="exclude"
    )
    assert matrix.excluded == (("B", "A"),)
    assert matrix.u[1][0] is None and matrix.normalised[1][0] is None
    assert matrix.n_documents == ((1, 1), (0, 1))
    assert matrix.stiffness == pytest.approx(1.15 / 3, abs=1e-12)
    assert matrix.stableness == pytest.approx(2.5 / 3, abs=1e-12)
    assert matrix.in_dataset == pytest.approx(0.45, abs=1e-12)


def test_a_diagonal_cell_is_required_even_when_excluding():
    cells = {("A", "A"): {"a": 0.4}, ("A", "B"): {"b": 0.3}}
    with pytest.raises(MissingCellError, match="diagonal") as caught:
        cross_dataset_matrix(cells, system="s", missing="exclude")
    assert caught.value.cells == {("B", "B")}


def test_a_zero_in_dataset_score_makes_normalisation_undefined():
    cells = _two_by_two({("A", "B"): {"b": 0.0}, ("B", "A"): {"a": 0.1}})
    cells[("B", "B")] = {"b": 0.0}
    with pytest.raises(NonPositiveDiagonalError, match="U\\['B', 'B'\\] = 0.0"):
        cross_dataset_matrix(cells, system="s")


def test_unknown_datasets_and_bad_rule_are_refused():
    cells = _two_by_two({("A", "B"): {"b": 0.2}, ("B", "A"): {"a": 0.2}})
    with pytest.raises(UnknownDatasetError, match="'B'"):
        cross_dataset_matrix(cells, datasets=["A"])
    with pytest.raises(UnknownDatasetError, match="repeats"):
        cross_dataset_matrix(cells, datasets=["A", "B", "A"])
    with pytest.raises(CrossDatasetError, match="missing must be one of"):
        cross_dataset_matrix(cells, missing="ignore")
    # A caller's order is kept: B first.
    assert cross_dataset_matrix(cells, datasets=["B", "A"]).u == ((0.5, 0.2), (0.2, 0.4))


def test_ranking_refuses_systems_on_different_cells():
    full = cross_dataset_matrix(
        _two_by_two({("A", "B"): {"b": 0.2}, ("B", "A"): {"a": 0.2}}), system="full"
    )
    partial = cross_dataset_matrix(
        _two_by_two({("A", "B"): {"b": 0.2}}), system="partial", missing="exclude"
    )
    with pytest.raises(MismatchedCellsError, match="different datasets or cells"):
        rank_systems([full, partial])
    with pytest.raises(MismatchedCellsError, match="twice"):
        rank_systems([full, full])


# ---------------------------------------------------------------- the paired test


def test_paired_test_exact_hand_worked():
    # One cell, two documents: d = (.5 - .3, .3 - .2) = (.2, .1), statistic .15.
    # Sign flips give means .15, -.05, .05, -.15: two of four reach |.15|, so p = 0.5;
    # one-sided "greater": only +.15 -> p = 0.25.
    a = {("A", "A"): {"x": 0.5, "y": 0.3}}
    b = {("A", "A"): {"x": 0.3, "y": 0.2}}
    outcome = stiffness_permutation_test(a, b)
    assert outcome.result.statistic == pytest.approx(0.15, abs=1e-15)
    assert outcome.result.p_value == 0.5
    assert (outcome.result.n, outcome.result.resamples, outcome.result.exact) == (2, 4, True)
    assert stiffness_permutation_test(a, b, alternative="greater").result.p_value == 0.25


def test_paired_test_weights_each_cell_equally():
    # Cell (A, A) has three documents with d = .3 each; cell (A, B) one document with d = -.3.
    # Cell means of d: .3 and -.3, so the statistic (their mean) is 0, not the unit mean .15.
    # Weights 1/6, 1/6, 1/6, 1/2: every sign pattern's sum is .05 * (s1 + s2 + s3) - .15 * s4;
    # |sum| >= 0 always, so the two-sided p is 1.
    a = {("A", "A"): {"x": 0.5, "y": 0.5, "z": 0.5}, ("A", "B"): {"w": 0.1}}
    b = {("A", "A"): {"x": 0.2, "y": 0.2, "z": 0.2}, ("A", "B"): {"w": 0.4}}
    outcome = stiffness_permutation_test(a, b)
    assert outcome.result.statistic == pytest.approx(0.0, abs=1e-15)
    assert outcome.result.p_value == 1.0
    assert outcome.cells == 2


def test_paired_test_on_one_cell_agrees_with_the_stats_permutation_test():
    a = {("A", "A"): {f"d{i}": 0.1 * i for i in range(6)}}
    b = {("A", "A"): {f"d{i}": 0.05 * i * i for i in range(6)}}
    ours = stiffness_permutation_test(a, b).result
    theirs = paired_permutation_test(
        {k[2]: v for k, v in units_of(a).items()}, {k[2]: v for k, v in units_of(b).items()}
    )
    assert ours.statistic == pytest.approx(theirs.statistic, abs=1e-15)
    assert ours.p_value == theirs.p_value


def test_paired_test_refuses_different_units_unless_shared_only():
    a = {("A", "A"): {"x": 0.5, "y": 0.3, "z": 0.9}}
    b = {("A", "A"): {"x": 0.3, "y": 0.2}, ("B", "A"): {"x": 0.1}}
    with pytest.raises(MismatchedUnitsError, match="shared_only=True") as caught:
        stiffness_permutation_test(a, b)
    assert caught.value.only_a == {("A", "A", "z")}
    assert caught.value.only_b == {("B", "A", "x")}
    outcome = stiffness_permutation_test(a, b, shared_only=True)
    assert (outcome.dropped_a, outcome.dropped_b, outcome.result.n) == (1, 1, 2)
    assert outcome.result.p_value == 0.5  # the hand-worked one-cell case above


def test_paired_test_needs_two_units_and_finite_scores():
    with pytest.raises(NoCellsError, match="at least 2"):
        stiffness_permutation_test({("A", "A"): {"x": 1.0}}, {("A", "A"): {"x": 0.0}})
    with pytest.raises(NoCellsError):
        stiffness_permutation_test({}, {})
    with pytest.raises(BadScoreError, match="'x'"):
        stiffness_permutation_test({("A", "A"): {"x": math.nan}}, {("A", "A"): {"x": 0.0}})
    with pytest.raises(MetricsError, match="alternative"):
        stiffness_permutation_test({}, {}, alternative="both")


# ---------------------------------------------------------------- the paper's normalisation


@pytest.mark.parametrize("system", sorted(HAND))
def test_the_printed_formulas_divide_the_sums_by_n(system):
    # CDEvalSumm prints stiffness = (1/N) sum_ij U_ij and stableness = (1/N) sum_ij U_ij / U_jj:
    # with N = 3 datasets, the sums worked above divided by 3 (S1: 2.85 / 3 = 0.95 and
    # 5.75 / 3 = 1.9167), N times Loupe's means over the 9 cells.
    matrix = _matrices()[system]
    hand = HAND[system]
    assert matrix.stiffness_printed == pytest.approx(hand["stiffness"] * 9 / 3, abs=1e-12)
    assert matrix.stableness_printed == pytest.approx(hand["stableness"] * 9 / 3, abs=1e-12)
    assert _matrices()["S1"].stiffness_printed == pytest.approx(0.95, abs=1e-12)
    assert _matrices()["S1"].stableness_printed == pytest.approx(5.75 / 3, abs=1e-12)


def test_the_printed_formulas_with_an_excluded_cell():
    # Present: .4, .5, .25 (sum 1.15) and normalised 1, 1, .5 (sum 2.5), over N = 2 datasets.
    matrix = cross_dataset_matrix(
        _two_by_two({("A", "B"): {"b": 0.25}}), system="s", missing="exclude"
    )
    assert matrix.stiffness_printed == pytest.approx(1.15 / 2, abs=1e-12)
    assert matrix.stableness_printed == pytest.approx(2.5 / 2, abs=1e-12)
    assert "N²" in NORMALISATION_NOTE and "as printed" in NORMALISATION_NOTE


# ---------------------------------------------------------------- the Wilcoxon test


def _exact_p(differences) -> float:
    """Two-sided p of the signed-rank test by enumerating every sign pattern of the midranks
    of the non-zero differences (given exactly, as Fractions): an implementation independent
    of SciPy's."""
    nonzero = [d for d in differences if d != 0]
    ordered = sorted(abs(d) for d in nonzero)
    rank = {}
    for value in set(ordered):
        first = ordered.index(value) + 1
        rank[value] = Fraction(2 * first + ordered.count(value) - 1, 2)
    ranks = [rank[abs(d)] for d in nonzero]
    observed = sum(r for r, d in zip(ranks, nonzero, strict=True) if d > 0)
    middle = sum(ranks) / 2
    hits = sum(
        1
        for signs in itertools.product((0, 1), repeat=len(ranks))
        if abs(sum(r for r, s in zip(ranks, signs, strict=True) if s) - middle)
        >= abs(observed - middle)
    )
    return hits / 2 ** len(ranks)


EVERY_PATTERN = scipy_stats.PermutationMethod(n_resamples=np.inf)


def test_wilcoxon_without_ties_is_scipys_exact_test():
    # d = a - b = 1, 2, ..., 7, -8 (eighths): R- = 8, R+ = 28.
    a = [0.125 * k for k in (2, 4, 6, 8, 10, 12, 14, 0)]
    b = [0.125 * k for k in (1, 2, 3, 4, 5, 6, 7, 8)]
    ours = signed_rank_test(a, b)
    theirs = scipy_stats.wilcoxon(a, b, method="exact")
    assert (ours.statistic, ours.p_value) == (float(theirs.statistic), float(theirs.pvalue))
    assert ours.statistic == 8.0
    assert ours.p_value == pytest.approx(
        _exact_p([Fraction(k, 8) for k in (1, 2, 3, 4, 5, 6, 7, -8)])
    )
    assert (ours.n, ours.zeros, ours.method) == (8, 0, METHOD_EXACT)
    assert ours.mean_difference == pytest.approx(20 / 64, abs=1e-15)
    for alternative in ("greater", "less"):
        one = signed_rank_test(a, b, alternative=alternative)
        want = scipy_stats.wilcoxon(a, b, method="exact", alternative=alternative)
        assert (one.statistic, one.p_value) == (float(want.statistic), float(want.pvalue))


def test_wilcoxon_drops_zero_differences():
    # Two pairs are equal: zero_method "wilcox" drops them and tests the other five
    # (.5, -.25, .1, .0375, .625: no ties, so SciPy's exact distribution).
    a = [0.5, 0.3, 0.9, 0.25, 0.7, 0.1, 0.75]
    b = [0.5, 0.3, 0.4, 0.5, 0.6, 0.0625, 0.125]
    ours = signed_rank_test(a, b)
    theirs = scipy_stats.wilcoxon(a, b, zero_method="wilcox", method="exact")
    assert (ours.statistic, ours.p_value) == (float(theirs.statistic), float(theirs.pvalue))
    assert (ours.n, ours.zeros, ours.method) == (7, 2, METHOD_EXACT)
    # Ranks of |d|: .0375 1, .1 2, .25 3, .5 4, .625 5; R- = 3, so W = 3 and p = 2 P(R+ <= 3)
    # = 2 * 5 / 32 (the rank subsets summing to at most 3: {}, {1}, {2}, {3}, {1, 2}).
    assert ours.statistic == 3.0
    assert ours.p_value == 2 * 5 / 32
    exact = [Fraction(1, 2), Fraction(-1, 4), Fraction(1, 10), Fraction(3, 80), Fraction(5, 8)]
    assert ours.p_value == pytest.approx(_exact_p(exact), abs=1e-15)


def test_wilcoxon_keeps_ties_that_rounding_would_split():
    # In exact arithmetic d = .1 (five times), -.05, .2, -.15; in floats 0.45 - 0.35 is
    # 0.10000000000000003 and the other four 0.09999999999999998, which SciPy on a and b would
    # rank apart (p = 0.2109). Loupe rounds the differences first: the five are one tie.
    a = [0.3, 0.6, 0.7, 0.9, 0.45, 0.25, 0.5, 0.1]
    b = [0.2, 0.5, 0.6, 0.8, 0.35, 0.3, 0.3, 0.25]
    exact = [Fraction(1, 10)] * 5 + [Fraction(-1, 20), Fraction(1, 5), Fraction(-3, 20)]
    ours = signed_rank_test(a, b)
    theirs = scipy_stats.wilcoxon([0.1] * 5 + [-0.05, 0.2, -0.15], method=EVERY_PATTERN)
    assert ours.statistic == float(theirs.statistic) == 8.0
    assert ours.method == METHOD_EXACT_TIES
    assert ours.p_value == pytest.approx(float(theirs.pvalue), abs=1e-15)
    assert ours.p_value == pytest.approx(_exact_p(exact), abs=1e-15)
    split = scipy_stats.wilcoxon(a, b, method=EVERY_PATTERN)
    assert float(split.pvalue) != pytest.approx(ours.p_value)


def test_wilcoxon_of_many_pairs_is_the_normal_approximation():
    rng = np.random.default_rng(7)
    a = rng.uniform(0.2, 0.6, 80).round(3)
    b = (a + rng.normal(0.02, 0.05, 80)).round(3)
    ours = signed_rank_test(a.tolist(), b.tolist())
    d = np.round(a - b, 9)
    theirs = scipy_stats.wilcoxon(d, method="asymptotic", correction=False)
    assert ours.method == METHOD_ASYMPTOTIC
    assert ours.statistic == float(theirs.statistic)
    assert ours.p_value == pytest.approx(float(theirs.pvalue), rel=1e-12)


def test_wilcoxon_edge_cases():
    same = signed_rank_test([0.2, 0.4], [0.2, 0.4])
    assert (same.p_value, same.statistic, same.zeros, same.method) == (1.0, 0.0, 2, METHOD_ALL_ZERO)
    one = signed_rank_test([0.5], [0.25])  # one pair: both signs equally likely, p = 1
    assert one.p_value == 1.0
    with pytest.raises(MetricsError, match="differ in length"):
        signed_rank_test([0.1, 0.2], [0.1])
    with pytest.raises(MetricsError, match="at least one pair"):
        signed_rank_test([], [])
    with pytest.raises(MetricsError, match=r"a\[1\] = nan"):
        signed_rank_test([0.1, math.nan], [0.1, 0.2])
    with pytest.raises(MetricsError, match="alternative"):
        signed_rank_test([0.1], [0.2], alternative="both")


# The example's cell differences, from the hand-worked U and normalised matrices (HAND).
def _hand_differences(a: str, b: str, kind: str) -> list[Fraction]:
    return [
        Fraction(str(x)) - Fraction(str(y))
        for row_a, row_b in zip(HAND[a][kind], HAND[b][kind], strict=True)
        for x, y in zip(row_a, row_b, strict=True)
    ]


def test_wilcoxon_over_the_examples_cells_by_hand_and_by_scipy():
    # S1 - S2 over the U cells: .10, -.10, 0, -.05, .10, -.15, .05, .05, .30. The zero drops;
    # midranks .05 x 3 -> 2, .10 x 3 -> 5, .15 -> 7, .30 -> 8: R+ = 5 + 5 + 2 + 2 + 8 = 22,
    # R- = 5 + 2 + 7 = 14, so W = 14. Over the normalised cells: 0, -.5, -.5, -.25, 0, -.75,
    # 0, 0, 0: four differences, all negative, so p = 2 / 2**4 = 0.125.
    _, systems = _example()
    found = cross_dataset_wilcoxon(systems["S1"], systems["S2"])
    stiffness = found.get(MEASURE_STIFFNESS, READING_CELLS)
    assert (stiffness.statistic, stiffness.n, stiffness.zeros) == (14.0, 9, 1)
    assert stiffness.method == METHOD_EXACT_TIES
    assert stiffness.p_value == pytest.approx(_exact_p(_hand_differences("S1", "S2", "u")))
    assert stiffness.mean_difference == pytest.approx((2.85 - 2.55) / 9, abs=1e-12)
    stableness = found.get(MEASURE_STABLENESS, READING_CELLS)
    assert (stableness.statistic, stableness.zeros) == (0.0, 5)
    assert stableness.p_value == 0.125
    assert stableness.mean_difference == pytest.approx((5.75 - 7.75) / 9, abs=1e-12)
    assert found.cells == 9
    for a, b in (("S1", "S2"), ("S1", "S3"), ("S2", "S3")):
        found = cross_dataset_wilcoxon(systems[a], systems[b])
        for measure, kind in ((MEASURE_STIFFNESS, "u"), (MEASURE_STABLENESS, "normalised")):
            exact = _hand_differences(a, b, kind)
            theirs = scipy_stats.wilcoxon(
                [float(d) for d in exact if d], zero_method="wilcox", method=EVERY_PATTERN
            )
            ours = found.get(measure, READING_CELLS)
            assert ours.statistic == float(theirs.statistic)
            assert ours.p_value == pytest.approx(float(theirs.pvalue), abs=1e-15)
            assert ours.p_value == pytest.approx(_exact_p(exact), abs=1e-15)


def test_wilcoxon_over_the_examples_documents_by_scipy():
    # The other reading: the 18 (train, test, document) units. Stiffness pairs the scores;
    # stableness divides each by its own system's in-dataset mean (S1: .5, .4, .6 for A, B, C;
    # S2: .4, .3, .3). 18 pairs with ties: the normal approximation.
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    diagonal = {"S1": {"A": 0.5, "B": 0.4, "C": 0.6}, "S2": {"A": 0.4, "B": 0.3, "C": 0.3}}
    units = [
        (train, test, doc)
        for train in "ABC"
        for test in "ABC"
        for doc in sorted(data["systems"]["S1"][train][test])
    ]

    def score(system, unit):
        return data["systems"][system][unit[0]][unit[1]][unit[2]]

    _, systems = _example()
    found = cross_dataset_wilcoxon(systems["S1"], systems["S2"])
    for measure, value in (
        (MEASURE_STIFFNESS, lambda s, u: score(s, u)),
        (MEASURE_STABLENESS, lambda s, u: score(s, u) / diagonal[s][u[1]]),
    ):
        d = np.round([value("S1", u) - value("S2", u) for u in units], 12)
        theirs = scipy_stats.wilcoxon(d[d != 0], method="asymptotic", correction=False)
        ours = found.get(measure, READING_DOCUMENTS)
        assert (ours.n, ours.method) == (18, METHOD_ASYMPTOTIC)
        assert ours.statistic == float(theirs.statistic)
        assert ours.p_value == pytest.approx(float(theirs.pvalue), rel=1e-9)


def test_wilcoxon_refuses_different_cells_or_units_unless_shared_only():
    a = {("A", "A"): {"x": 0.5, "y": 0.3}, ("B", "B"): {"x": 0.4}, ("A", "B"): {"x": 0.2}}
    b = {("A", "A"): {"x": 0.3, "y": 0.2}, ("B", "B"): {"x": 0.5}}
    with pytest.raises(MismatchedCellsError, match="shared_only=True"):
        cross_dataset_wilcoxon(a, b)
    found = cross_dataset_wilcoxon(a, b, shared_only=True)
    assert (found.cells, found.dropped_a, found.dropped_b) == (2, 1, 0)
    assert found.get(MEASURE_STIFFNESS, READING_DOCUMENTS).n == 3
    b[("A", "B")] = {"z": 0.1}
    with pytest.raises(MismatchedUnitsError):
        cross_dataset_wilcoxon(a, b)
    with pytest.raises(NoCellsError, match="share no"):
        cross_dataset_wilcoxon({("A", "A"): {"x": 0.5}}, {("B", "B"): {"x": 0.5}}, shared_only=True)
    with pytest.raises(MetricsError, match="alternative"):
        cross_dataset_wilcoxon(a, b, alternative="both")
    assert {(t.measure, t.reading) for t in found.tests} == {
        (m, r) for m in (MEASURE_STIFFNESS, MEASURE_STABLENESS) for r in READINGS
    }
    with pytest.raises(KeyError):
        found.get("in_dataset", READING_CELLS)
