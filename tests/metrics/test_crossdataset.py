"""Cross-dataset evaluation (CDEvalSumm): U matrix, stiffness, stableness, ranking, paired test."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from scoring.metrics.crossdataset import (
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
    rank_systems,
    stiffness_permutation_test,
    units_of,
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
