"""Metric-human correlations for the leaderboard: hand-worked cases, scipy only as a cross-check."""

import json
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from scoring.metrics.errors import MetricsError
from scoring.metrics.leaderboard.correlations import (
    JudgmentInputError,
    MetricCorrelation,
    correlate_with_human,
)
from scoring.metrics.stats import NonFiniteValueError
from tests.metrics.spearman_reference import spearman_exact


def per_system(values: dict) -> dict:
    return {system: {None: value} for system, value in values.items()}


def one_document(systems: str, values: tuple) -> dict:
    """system -> {"d": value}, pairing the letters of ``systems`` with ``values``."""
    return {s: {"d": x} for s, x in zip(systems, values, strict=True)}


def coefficients(result: MetricCorrelation) -> tuple:
    return (result.pearson.value, result.spearman.value, result.kendall.value)


# Three systems whose metric means are 1, 2, 3 (over documents d1 and d2) against human 1, 3, 2.
# By hand: dx = (-1, 0, 1), dy = (-1, 1, 0), so r = 1 / sqrt(2 * 2) = 0.5; the values are their
# own ranks, so rho = 0.5; of the pairs (a,b) (a,c) (b,c) two are concordant and one is
# discordant, so tau = (2 - 1) / 3. With n = 3 the t statistic r * sqrt(1) / sqrt(1 - r^2) =
# 1 / sqrt(3) has one degree of freedom (a Cauchy law): p = 1 - 2 * atan(1 / sqrt(3)) / pi = 2/3.
METRIC = {
    "far": {"a": {"d1": 0.5, "d2": 1.5}, "b": {"d1": 2.0, "d2": 2.0}, "c": {"d1": 2.5, "d2": 3.5}}
}
HUMAN = per_system({"a": 1.0, "b": 3.0, "c": 2.0})


def test_three_systems_worked_by_hand():
    (result,) = correlate_with_human(METRIC, HUMAN, name="overall")
    assert (result.judgment, result.metric, result.level) == ("overall", "far", "system")
    assert (result.n_systems, result.n_documents) == (3, 2)
    assert result.pearson.value == pytest.approx(0.5)
    assert result.spearman.value == pytest.approx(0.5)
    assert result.kendall.value == pytest.approx(1 / 3)
    assert result.pearson.p_value == pytest.approx(2 / 3)
    assert result.pearson.level == "system" and result.pearson.n == 3
    assert result.pearson.reason is None


def test_four_systems_worked_by_hand():
    # x = 1..4, y = 2, 1, 4, 3: dx = (-1.5, -.5, .5, 1.5), dy = (-.5, -1.5, 1.5, .5);
    # sum dx*dy = 3, sum dx^2 = sum dy^2 = 5, so r = 0.6 = rho. Pairs: 4 concordant, 2 discordant.
    metric = {"rouge1_f": one_document("abcd", (1.0, 2.0, 3.0, 4.0))}
    human = per_system(dict(zip("abcd", (2.0, 1.0, 4.0, 3.0), strict=True)))
    (result,) = correlate_with_human(metric, human)
    assert coefficients(result) == pytest.approx((0.6, 0.6, 1 / 3))
    assert (result.judgment, result.n_systems, result.n_documents) == ("human", 4, 1)


def test_a_perfect_monotone_relation_gives_rank_coefficients_of_one():
    # y = x^2: dx = (-1.5, -.5, .5, 1.5), dy = (-6.5, -3.5, 1.5, 8.5);
    # r = 25 / sqrt(5 * 129), below 1 because the relation is not linear.
    metric = {"far": one_document("abcd", (1.0, 2.0, 3.0, 4.0))}
    human = per_system(dict(zip("abcd", (1.0, 4.0, 9.0, 16.0), strict=True)))
    (result,) = correlate_with_human(metric, human)
    assert result.pearson.value == pytest.approx(25 / math.sqrt(645))
    assert result.spearman.value == pytest.approx(1.0)
    assert result.kendall.value == pytest.approx(1.0)


def test_ranks_are_negated_so_agreement_stays_positive():
    metric = {"far": one_document("abc", (0.1, 0.2, 0.3))}
    ranks = per_system({"a": 3, "b": 2, "c": 1})  # c is best, and has the highest metric
    (as_rank,) = correlate_with_human(metric, ranks, kind="rank")
    (as_score,) = correlate_with_human(metric, ranks, kind="score")
    assert coefficients(as_rank) == pytest.approx((1.0, 1.0, 1.0))
    assert coefficients(as_score) == pytest.approx((-1.0, -1.0, -1.0))
    # The hand-worked case with ranks 3, 1, 2 (the negated scores 1, 3, 2 shifted) gives r = 0.5.
    (shifted,) = correlate_with_human(METRIC, per_system({"a": 3, "b": 1, "c": 2}), kind="rank")
    assert coefficients(shifted) == pytest.approx((0.5, 0.5, 1 / 3))


def test_too_few_systems_give_none_with_a_reason():
    metric = {"far": {"a": {"d": 0.1}, "b": {"d": 0.2}, "c": {"d": 0.3}}}
    human = per_system({"a": 1.0, "b": 2.0, "z": 3.0})  # z has no metric score, c no judgment
    (result,) = correlate_with_human(metric, human)
    assert result.n_systems == 2
    for method in ("pearson", "spearman", "kendall"):
        correlation = getattr(result, method)
        assert correlation.value is None and correlation.p_value is None
        assert "at least 3 systems" in correlation.reason and "got 2" in correlation.reason


def test_constant_human_values_give_none_with_a_reason():
    (result,) = correlate_with_human(METRIC, per_system({"a": 2.0, "b": 2.0, "c": 2.0}))
    assert coefficients(result) == (None, None, None)
    assert "human system values are all equal" in result.kendall.reason
    flat = {"far": {s: {"d1": 0.4} for s in "abc"}}
    (result,) = correlate_with_human(flat, HUMAN)
    assert "far's system values are all equal" in result.pearson.reason


# A per-document study, 3 systems (a, b, c) on 2 common documents; d3 lacks system c's metric
# score and system d has no judgment, so both are left out.
DOC_METRIC = {
    "far": {
        "a": {"d1": 1.0, "d2": 3.0, "d3": 0.0},
        "b": {"d1": 2.0, "d2": 1.0, "d3": 0.0},
        "c": {"d1": 3.0, "d2": 2.0},
        "d": {"d1": 9.0, "d2": 9.0},
    }
}
DOC_HUMAN = {
    "a": {"d1": 1.0, "d2": 3.0, "d3": 5.0},
    "b": {"d1": 3.0, "d2": 1.0, "d3": 1.0},
    "c": {"d1": 2.0, "d2": 2.0, "d3": 1.0},
}


def test_summary_level_on_a_tiny_matrix_worked_by_hand():
    system, summary = correlate_with_human(DOC_METRIC, DOC_HUMAN, name="faith")
    assert (system.level, summary.level) == ("system", "summary")
    assert (summary.n_systems, summary.n_documents) == (3, 2)
    # d1: metric (1, 2, 3) vs human (1, 3, 2): r = rho = 0.5, tau = 1/3 (as above).
    # d2: metric (3, 1, 2) vs human (3, 1, 2): all three are 1.
    assert summary.pearson.value == pytest.approx((0.5 + 1.0) / 2)
    assert summary.spearman.value == pytest.approx((0.5 + 1.0) / 2)
    assert summary.kendall.value == pytest.approx((1 / 3 + 1.0) / 2)
    assert summary.pearson.n == 2 and summary.pearson.p_value is None
    # System level over d1 and d2 only: metric means (2, 1.5, 2.5), human means (2, 2, 2).
    assert (system.n_systems, system.n_documents) == (3, 2)
    assert coefficients(system) == (None, None, None)
    assert "human system values are all equal" in system.pearson.reason


def test_per_document_system_level_uses_the_human_means_over_the_same_documents():
    human = {s: dict(v) for s, v in DOC_HUMAN.items()}
    human["c"]["d2"] = 4.0  # human means now (2, 2, 3) against metric means (2, 1.5, 2.5)
    system, summary = correlate_with_human(DOC_METRIC, human)
    # dx = (0, -1/2, 1/2), dy = (-1/3, -1/3, 2/3): sum dx*dy = 1/2, sum dx^2 = 1/2,
    # sum dy^2 = 2/3, so r = (1/2) / sqrt(1/3) = sqrt(3)/2.
    assert system.pearson.value == pytest.approx(math.sqrt(3) / 2)
    # Ranks x (2, 1, 3), y (1.5, 1.5, 3): dx = (0, -1, 1), dy = (-.5, -.5, 1), so
    # rho = 1.5 / sqrt(2 * 1.5) = sqrt(3)/2 as well.
    assert system.spearman.value == pytest.approx(math.sqrt(3) / 2)
    # d2 on its own: metric (3, 1, 2) vs human (3, 1, 4): dx = (1, -1, 0),
    # dy = (1/3, -5/3, 4/3), so r = 2 / sqrt(2 * 42/9) = 6 / sqrt(84); d1 still gives 0.5.
    d2 = 6 / math.sqrt(84)
    assert d2 == pytest.approx(scipy_stats.pearsonr([3, 1, 2], [3, 1, 4]).statistic)
    assert summary.pearson.value == pytest.approx((0.5 + d2) / 2)


def test_documents_constant_across_systems_are_left_out_of_the_summary_average():
    human = {s: dict(v, d2=7.0) for s, v in DOC_HUMAN.items()}  # every system 7 on d2
    _, summary = correlate_with_human(DOC_METRIC, human)
    assert summary.pearson.value == pytest.approx(0.5)  # d1 alone
    assert summary.pearson.n == 1 and summary.pearson.undefined == ("d2",)
    assert summary.n_documents == 2


def test_no_common_document_gives_none_with_a_reason():
    metric = {"far": {"a": {"d1": 0.1}, "b": {"d2": 0.2}, "c": {"d1": 0.3, "d2": 0.4}}}
    human = {s: {"d1": 1.0, "d2": 2.0} for s in "abc"}
    system, summary = correlate_with_human(metric, human)
    assert system.n_documents == 0 and system.n_systems == 3
    assert "no document" in system.pearson.reason and summary.spearman.value is None


def test_results_follow_the_metric_order_and_serialize_to_json():
    metrics = {"sar": DOC_METRIC["far"], "far": DOC_METRIC["far"]}
    results = correlate_with_human(metrics, DOC_HUMAN)
    assert [(r.metric, r.level) for r in results] == [
        ("sar", "system"),
        ("sar", "summary"),
        ("far", "system"),
        ("far", "summary"),
    ]
    data = results[1].as_dict()
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert set(data) == {
        "judgment",
        "metric",
        "level",
        "n_systems",
        "n_documents",
        "pearson",
        "spearman",
        "kendall",
    }
    assert data["pearson"] == {
        "value": pytest.approx(0.75),
        "p_value": None,
        "reason": None,
        "n": 2,
    }
    assert results[0].as_dict()["kendall"]["reason"].startswith("the human system values")


def test_no_judgment_at_all_is_too_few_systems():
    (result,) = correlate_with_human(METRIC, {})
    assert result.n_systems == 0 and "got 0" in result.pearson.reason


def test_malformed_input_raises_metrics_errors():
    with pytest.raises(NonFiniteValueError, match="'b'"):
        correlate_with_human(METRIC, per_system({"a": 1.0, "b": float("nan"), "c": 2.0}))
    nan_metric = {"far": {**METRIC["far"], "c": {"d1": float("inf"), "d2": 1.0}}}
    with pytest.raises(NonFiniteValueError, match="'d1'"):
        correlate_with_human(nan_metric, HUMAN)
    with pytest.raises(JudgmentInputError, match="kind"):
        correlate_with_human(METRIC, HUMAN, kind="stars")
    with pytest.raises(JudgmentInputError, match="one or the other"):
        correlate_with_human(METRIC, {"a": {None: 1.0}, "b": {"d1": 2.0}, "c": {None: 3.0}})
    with pytest.raises(JudgmentInputError, match="mixed"):
        correlate_with_human(METRIC, {"a": {None: 1.0, "d1": 2.0}})
    with pytest.raises(JudgmentInputError, match="non-empty"):
        correlate_with_human(METRIC, {"a": {}})
    with pytest.raises(JudgmentInputError, match="not a number"):
        correlate_with_human(METRIC, per_system({"a": "1", "b": 2.0, "c": 3.0}))
    with pytest.raises(JudgmentInputError, match="not a number"):
        correlate_with_human(METRIC, per_system({"a": True, "b": 2.0, "c": 3.0}))
    assert issubclass(JudgmentInputError, MetricsError)
    assert issubclass(NonFiniteValueError, MetricsError)


def test_random_matrix_matches_scipy():
    rng = np.random.default_rng(7)
    systems, documents = [f"s{i}" for i in range(6)], list(range(9))
    metric = {"far": {s: {d: float(rng.random()) for d in documents} for s in systems}}
    human = {s: {d: float(rng.integers(1, 6)) for d in documents} for s in systems}
    system, summary = correlate_with_human(metric, human)
    x = [np.mean([metric["far"][s][d] for d in documents]) for s in systems]
    y = [np.mean([human[s][d] for d in documents]) for s in systems]
    references = {
        "pearson": scipy_stats.pearsonr,
        "spearman": spearman_exact,  # 6 systems: our p-value is exact
        "kendall": scipy_stats.kendalltau,
    }
    for method, reference in references.items():
        expected = reference(x, y)
        assert getattr(system, method).value == pytest.approx(float(expected.statistic))
        assert getattr(system, method).p_value == pytest.approx(float(expected.pvalue))
        per_doc = []
        for d in documents:
            column_h = [human[s][d] for s in systems]
            if len(set(column_h)) > 1:
                column_m = [metric["far"][s][d] for s in systems]
                per_doc.append(float(reference(column_m, column_h).statistic))
        assert getattr(summary, method).value == pytest.approx(float(np.mean(per_doc)))
        assert getattr(summary, method).n == len(per_doc)
