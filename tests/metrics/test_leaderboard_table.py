"""The leaderboard table on hand-made scores: means, intervals, order, paired tests, coverage."""

from __future__ import annotations

import pytest

from scoring.metrics.errors import MetricsError
from scoring.metrics.leaderboard import Cell, Comparison, Leaderboard, Row, build_leaderboard
from scoring.metrics.stats import TEST_PERMUTATION, bootstrap_ci, paired_permutation_test

DOCS = ("d1", "d2", "d3")
RESAMPLES = 500
# Systems a and b cover d1..d3, c only d1 and d2. d4 is out of scope (another category).
#   m:  a = (0.2, 0.4, 0.9) mean 0.5;  b = (0.1, 0.3, 0.5) mean 0.3;  c = (0.6, 0.8) mean 0.7
#   n:  a = (1.0, 0.0, 0.5) mean 0.5;  b = (0.25, 0.25, 0.25) mean 0.25;  c = (0.0, 0.5) 0.25
SCORES = {
    "a": {
        "m": {"d1": 0.2, "d2": 0.4, "d3": 0.9, "d4": 0.0},
        "n": {"d1": 1.0, "d2": 0.0, "d3": 0.5},
    },
    "b": {"m": {"d1": 0.1, "d2": 0.3, "d3": 0.5, "d4": 1.0}, "n": dict.fromkeys(DOCS, 0.25)},
    "c": {"m": {"d1": 0.6, "d2": 0.8}, "n": {"d1": 0.0, "d2": 0.5}},
}
COVERED = {"a": {*DOCS, "d4"}, "b": {*DOCS, "d4"}, "c": {"d1", "d2"}}


def build(scores=SCORES, covered=COVERED, **options) -> Leaderboard:
    options = {"documents": DOCS, "metrics": ["m", "n"], "sort": "m", **options}
    return build_leaderboard(scores, covered=covered, resamples=RESAMPLES, **options)


def row(board: Leaderboard, system) -> Row:
    return next(r for r in board.rows if r.system == system)


def order(board: Leaderboard) -> list:
    return [r.system for r in board.rows]


def test_means_are_the_hand_computed_means():
    board = build()
    expected = {("a", "m"): 0.5, ("b", "m"): 0.3, ("c", "m"): 0.7}
    expected |= {("a", "n"): 0.5, ("b", "n"): 0.25, ("c", "n"): 0.25}
    for (system, metric), mean in expected.items():
        cell = row(board, system).cells[metric]
        assert cell.mean == pytest.approx(mean, abs=1e-15)
    assert [row(board, s).cells["m"].n for s in "abc"] == [3, 3, 2]  # d4 is ignored
    assert [row(board, s).n_documents for s in "abc"] == [3, 3, 2]
    assert (board.metrics, board.sort, board.n_documents) == (("m", "n"), "m", 3)
    assert (board.resamples, board.seed, board.level, board.alpha) == (RESAMPLES, 0, 0.95, 0.05)


def test_intervals_equal_bootstrap_ci_of_the_same_values():
    board = build(seed=11, level=0.9)
    for r in board.rows:
        for metric, cell in r.cells.items():
            values = [SCORES[r.system][metric][d] for d in DOCS if d in COVERED[r.system]]
            ci = bootstrap_ci(values, level=0.9, resamples=RESAMPLES, seed=11)
            assert cell.n == ci.n
            assert cell.mean == pytest.approx(ci.mean, abs=1e-12)
            assert cell.ci_low == pytest.approx(ci.low, abs=1e-12)
            assert cell.ci_high == pytest.approx(ci.high, abs=1e-12)
            assert cell.ci_low <= cell.mean <= cell.ci_high


def test_a_constant_column_has_a_degenerate_interval():
    cell = row(build(), "b").cells["n"]
    assert (cell.mean, cell.ci_low, cell.ci_high, cell.n) == (0.25, 0.25, 0.25, 3)


def test_a_single_document_cell_has_no_interval():
    scores = {"a": {"m": {"d1": 0.4, "d2": 0.6}}, "solo": {"m": {"d3": 0.35}}}
    board = build(scores, {"a": {"d1", "d2"}, "solo": {"d3"}}, metrics=["m"])
    assert row(board, "solo").cells["m"] == Cell(0.35, None, None, 1)
    assert row(board, "solo").cells["m"].as_dict() == {
        "mean": 0.35,
        "ci_low": None,
        "ci_high": None,
        "n": 1,
    }


def test_a_row_with_missing_scores_is_named_and_not_comparable():
    # b has outputs for d1..d3 but its job scored only d1 and d2 for m (d3 failed); a has all.
    scores = {"a": {"m": {"d1": 0.2, "d2": 0.4, "d3": 0.9}}, "b": {"m": {"d1": 0.5, "d2": 0.5}}}
    covered = {"a": set(DOCS), "b": set(DOCS)}
    board = build(scores, covered, metrics=["m"])
    assert board.comparable is False
    assert board.notes == (
        "b: m is scored on 2 of its 3 documents; its scoring is incomplete, so this column "
        "does not compare it with the others on the same documents.",
    )
    # A metric that applies to no document of a system (FAR for an abstractive one) is fine.
    scores = {"a": {"m": {"d1": 0.2}, "far": {"d1": 0.5}}, "abs": {"m": {"d1": 0.3}}}
    board = build(scores, {"a": {"d1"}, "abs": {"d1"}}, documents=["d1"], metrics=["m", "far"])
    assert board.comparable is True and board.notes == ()


def test_rows_are_sorted_by_the_sort_metric_best_first():
    assert order(build()) == ["c", "a", "b"]  # m: 0.7, 0.5, 0.3
    # By n: a 0.5, then b and c tie at 0.25 and are ordered by their key.
    assert order(build(sort="n")) == ["a", "b", "c"]


def test_ties_are_broken_by_system_key_and_missing_values_go_last():
    one = {"d1": 0.5, "d2": 0.5}
    scores = {"zed": {"m": one}, "amy": {"m": one}, "top": {"m": {"d1": 0.9, "d2": 0.7}}}
    scores |= {"none": {}, "bad": {"m": {"d1": 0.0, "d2": 0.1}}, "also-none": {"n": one}}
    covered = {s: {"d1", "d2"} for s in (*scores, "nothing")}
    board = build(scores, covered, documents=["d1", "d2"])
    assert order(board) == ["top", "amy", "zed", "bad", "also-none", "none", "nothing"]
    assert row(board, "none").cells == {"m": None, "n": None}
    assert row(board, "also-none").cells["n"].mean == 0.5
    # No test against a row without a score for the sort metric: the reason says so.
    comparison = row(board, "bad").comparison
    assert (comparison.versus, comparison.p_value, comparison.significant) == (
        "also-none",
        None,
        False,
    )
    assert comparison.reason == "also-none has no m score to compare with"
    assert row(board, "none").comparison is None


def test_each_row_is_tested_against_the_next_on_shared_documents():
    board = build(alpha=0.3)
    for upper, lower in zip(board.rows, board.rows[1:], strict=False):
        shared = sorted(set(COVERED[upper.system]) & set(COVERED[lower.system]) & set(DOCS))
        a = {d: SCORES[upper.system]["m"][d] for d in shared}
        b = {d: SCORES[lower.system]["m"][d] for d in shared}
        expected = paired_permutation_test(a, b, resamples=RESAMPLES, seed=0)
        comparison = upper.comparison
        assert (comparison.versus, comparison.metric, comparison.test) == (
            lower.system,
            "m",
            TEST_PERMUTATION,
        )
        assert (comparison.p_value, comparison.n) == (expected.p_value, expected.n)
        assert comparison.difference == expected.statistic
        assert comparison.significant == (expected.p_value < 0.3)
        assert comparison.reason is None
    assert board.rows[-1].comparison is None


def test_paired_p_values_hand_worked():
    # c vs a on {d1, d2}: differences (0.4, 0.4); the 4 sign flips give means 0.4, 0, 0, -0.4,
    #   of which 2 are as extreme as 0.4: p = 2/4 (exact).
    # a vs b on {d1, d2, d3}: differences (0.1, 0.1, 0.4), sum 0.6; of the 8 sign flips only
    #   all-plus and all-minus reach |sum| >= 0.6: p = 2/8.
    board = build(alpha=0.3)
    c_vs_a, a_vs_b = row(board, "c").comparison, row(board, "a").comparison
    assert (c_vs_a.versus, c_vs_a.n, c_vs_a.p_value) == ("a", 2, 0.5)
    assert c_vs_a.difference == pytest.approx(0.4, abs=1e-15)
    assert c_vs_a.significant is False
    assert (a_vs_b.versus, a_vs_b.n, a_vs_b.p_value) == ("b", 3, 0.25)
    assert a_vs_b.difference == pytest.approx(0.2, abs=1e-15)
    assert a_vs_b.significant is True  # 0.25 < 0.3
    # Significance is strict: p = alpha is not significant.
    assert row(build(alpha=0.25), "a").comparison.significant is False


def test_a_clear_difference_over_many_documents_is_significant():
    docs = [f"doc{i:02d}" for i in range(20)]
    scores = {"hi": {"m": dict.fromkeys(docs, 0.9)}, "lo": {"m": dict.fromkeys(docs, 0.1)}}
    board = build(scores, dict.fromkeys(scores, docs), documents=docs, metrics=["m"])
    comparison = row(board, "hi").comparison
    # Every difference is 0.8: only the all-plus and all-minus sign patterns reach |mean| 0.8.
    # 2**20 patterns exceed the resamples, so they are sampled: p = (1 + hits) / (1 + 500).
    assert comparison.p_value < 0.01 and comparison.significant is True
    assert comparison.n == 20


@pytest.mark.parametrize(("shared", "n"), [({"d1"}, 1), (set(), 0)])
def test_fewer_than_two_shared_documents_gives_no_p_value(shared, n):
    scores = {"x": {"m": {"d1": 0.9, "d2": 0.8}}, "y": {"m": {d: 0.1 for d in shared | {"d3"}}}}
    board = build(scores, {"x": {"d1", "d2"}, "y": shared | {"d3"}}, metrics=["m"])
    assert order(board) == ["x", "y"]
    assert row(board, "x").comparison == Comparison(
        "y",
        "m",
        TEST_PERMUTATION,
        None,
        False,
        n,
        None,
        reason=f"{n} shared documents; a paired test needs at least 2",
    )
    assert row(board, "x").comparison.as_dict()["system"] == "y"


def test_coverage_notes_name_the_systems_covering_fewer_documents():
    board = build(names={"c": "System C"})
    assert board.comparable is False
    assert board.common_documents == 2
    assert board.notes[0] == "System C has outputs for 2 of 3 documents."
    assert len(board.notes) == 2 and "2 documents are common to all" in board.notes[1]
    assert "c has outputs" in build().notes[0]  # the key when there is no display name


def test_comparable_when_every_system_covers_the_same_documents():
    covered = {"a": set(DOCS), "b": {*DOCS, "d4"}}  # d4 is out of scope, so it does not count
    board = build({s: SCORES[s] for s in "ab"}, covered)
    assert board.comparable is True
    assert board.notes == ()
    assert board.common_documents == 3


def test_same_partial_coverage_is_comparable_but_noted():
    covered = dict.fromkeys("ab", {"d1", "d2"})
    board = build({s: SCORES[s] for s in "ab"}, covered)
    assert board.comparable is True
    assert board.notes == (
        "a has outputs for 2 of 3 documents.",
        "b has outputs for 2 of 3 documents.",
    )


def test_common_only_restricts_every_cell_to_the_common_documents():
    # Common documents: d1, d2. m: a = (0.2 + 0.4) / 2 = 0.3 (was 0.5 over d1..d3),
    # b = (0.1 + 0.3) / 2 = 0.2 (was 0.3), c = 0.7 (unchanged); n: a = (1 + 0) / 2 = 0.5.
    full, common = build(), build(common_only=True)
    assert row(full, "a").cells["m"].mean == pytest.approx(0.5, abs=1e-15)
    means = {s: row(common, s).cells["m"].mean for s in "abc"}
    assert means == pytest.approx({"a": 0.3, "b": 0.2, "c": 0.7}, abs=1e-15)
    assert {row(common, s).cells["m"].n for s in "abc"} == {2}
    assert [row(common, s).n_documents for s in "abc"] == [2, 2, 2]
    assert row(common, "a").cells["n"].mean == 0.5
    assert common.notes[-1] == "Only the 2 documents every system covers are used (common only)."
    # The paired test a vs b now uses only d1 and d2: differences (0.1, 0.1), p = 2/4.
    assert (row(common, "a").comparison.n, row(common, "a").comparison.p_value) == (2, 0.5)
    assert common.comparable is False and common.n_documents == 3


def test_documents_outside_the_scope_are_ignored():
    # Only d1 and d3 are in scope (say, one category): a m = (0.2 + 0.9) / 2, b = (0.1 + 0.5) / 2.
    board = build(documents={"d1", "d3"}, sort="n")
    assert row(board, "a").cells["m"].mean == pytest.approx(0.55, abs=1e-15)
    assert row(board, "b").cells["m"].mean == pytest.approx(0.3, abs=1e-15)
    assert row(board, "c").cells["m"] == Cell(0.6, None, None, 1)  # only d1 is in scope
    assert board.n_documents == 2 and board.common_documents == 1
    assert [row(board, s).n_documents for s in "abc"] == [2, 2, 1]
    # d4 is in the scores of a and b but never in scope: the means above exclude it.
    only_d4 = build(documents={"d4"}, metrics=["m"])
    assert row(only_d4, "a").cells["m"] == Cell(0.0, None, None, 1)
    assert row(only_d4, "b").cells["m"] == Cell(1.0, None, None, 1)
    assert row(only_d4, "c").cells["m"] is None and order(only_d4) == ["b", "a", "c"]


@pytest.mark.parametrize("sort", ["x", "M", ""])
def test_an_unknown_sort_metric_raises(sort):
    with pytest.raises(MetricsError, match="cannot sort"):
        build(sort=sort)


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, 1.5])
def test_alpha_outside_zero_one_raises(alpha):
    with pytest.raises(MetricsError, match="alpha"):
        build(alpha=alpha)


def test_no_systems_gives_an_empty_leaderboard():
    for documents in ([], DOCS):
        board = build_leaderboard({}, documents=documents, covered={}, metrics=["m"], sort="m")
        assert board.rows == () and board.notes == ()
        assert board.comparable is True and board.common_documents == 0
        assert board.n_documents == len(documents)


def test_the_same_seed_gives_the_same_leaderboard():
    first = build(seed=5, common_only=True)
    assert build(seed=5, common_only=True) == first
    assert build(seed=5) == build(seed=5)
