"""The leaderboard core's PolyTope parts, by hand: document figures, pooled cells with ratio CIs,
ranking tests, breakdown sums and correlations at system and instance level."""

from __future__ import annotations

import pytest

from scoring.metrics.leaderboard import (
    breakdown_dict,
    breakdown_sum,
    correlate_human_scores,
    polytope_cell,
    polytope_document,
    rank_by_polytope,
    segment_from_values,
    severity_by_label,
)
from scoring.metrics.polytope import (
    CombinationNotAllowedError,
    EmptySummaryError,
    PolytopeSegmentScore,
    UnknownSubtypeError,
)
from scoring.metrics.stats import bootstrap_ratio_ci

TEN = "Alpha beta gamma delta epsilon. Zeta eta theta iota kappa ."


def seg(name, words, critical=0, major=0, minor=0):
    return PolytopeSegmentScore(name, words, critical, major, minor)


def test_a_document_from_its_marked_errors():
    errors = [
        {"type": "Addition", "label": "Subject", "side": "summary", "start": 0, "end": 5},
        {"type": "Omission", "label": "Place & Name", "side": "source", "start": 3, "end": 9},
        {"type": "Word Form", "label": "Object", "side": "none", "start": None, "end": None},
        # A stored severity is never read: Duplication x Subject is Major by the matrix.
        {"type": "Duplication", "label": "Subject", "severity": "Minor"},
    ]
    found = polytope_document(TEN, errors)
    # 10 words ("." alone is no word); Critical 5 + Major (Omission x Place) 2.5 + Minor 0.5
    # + Major 2.5 = 10.5; score 100 * (10 - 10.5) / 10 = -5.
    assert found.values() == {
        "polytope": -5.0,
        "polytope_penalty": 10.5,
        "polytope_words": 10.0,
        "polytope_critical": 1.0,
        "polytope_major": 2.0,
        "polytope_minor": 1.0,
    }
    assert found.counts() == {
        "Addition": {"Subject": 1},
        "Omission": {"Place & Name": 1},
        "Duplication": {"Subject": 1},
        "Word Form": {"Object": 1},
    }


def test_a_clean_document_scores_100_and_bad_input_is_named():
    clean = polytope_document("One two three.", [])
    assert clean.values()["polytope"] == 100.0 and clean.counts() == {}
    with pytest.raises(EmptySummaryError):
        polytope_document("... --", [])
    with pytest.raises(UnknownSubtypeError) as refused:
        polytope_document(TEN, [{"type": "Addition", "label": "Subject"}, {"type": "Typo"}])
    assert refused.value.index == 1
    with pytest.raises(CombinationNotAllowedError):
        polytope_document(TEN, [{"type": "Positive-Negative Aspect", "label": "Subject"}])


def test_stored_values_come_back_as_the_same_segment():
    found = polytope_document(TEN, [{"type": "Addition", "label": "Subject"}])
    back = segment_from_values("d1", found.values())
    assert (back.words, back.critical, back.penalty, back.score) == (10, 1, 5.0, 50.0)


def test_pooled_cell_by_hand():
    assert polytope_cell({}) is None
    one = polytope_cell({"d1": seg("d1", 10, critical=1)})
    assert (one.score, one.ci_low, one.ci_high, one.n) == (50.0, None, None, 1)
    # (5 over 10) and (2.5 + 0.5 over 20): pooled 100 * (1 - 8 / 30), not the mean 67.5.
    cell = polytope_cell({"d1": seg("d1", 10, critical=1), "d2": seg("d2", 20, major=1, minor=1)})
    assert cell.score == pytest.approx(100 * 22 / 30)
    assert (cell.words, cell.penalty, cell.errors, cell.clean) == (30, 8.0, 3, 0)
    # Two units: a resample is d1 twice (ratio 0.5), d2 twice (0.15) or both (8/30), with
    # chances 1/4, 1/4, 1/2, so the 2.5% and 97.5% quantiles are 0.15 and 0.5.
    assert (cell.ci_low, cell.ci_high) == pytest.approx((50.0, 85.0))
    ratio = bootstrap_ratio_ci([5.0, 3.0], [10, 20], resamples=1000)
    assert cell.ci_low == pytest.approx(100 * (1 - ratio.high))
    # Every unit at the same rate: the interval is the point.
    flat = polytope_cell({"a": seg("a", 10, critical=1), "b": seg("b", 20, critical=2)})
    assert flat.ci_low == flat.ci_high == flat.score == 50.0


def test_the_cell_does_not_depend_on_the_mapping_order():
    units = {f"d{i}": seg(f"d{i}", 10 + i, critical=i % 3, minor=i % 2) for i in range(12)}
    backwards = dict(reversed(list(units.items())))
    assert polytope_cell(units) == polytope_cell(backwards)


def test_ranking_and_the_paired_ratio_test_by_hand():
    a = {"d1": seg("d1", 10, critical=1), "d2": seg("d2", 20, major=1, minor=1)}
    b = {"d1": seg("d1", 10), "d2": seg("d2", 20, critical=1)}
    c = {"d1": seg("d1", 10, minor=2)}
    segments = {"a": a, "b": b, "c": c, "none": {}}
    cells = {s: polytope_cell(v) for s, v in segments.items()}
    order, tests = rank_by_polytope(cells, segments, ["a", "b", "c", "none"], names={"none": "N"})
    # c: 1 penalty over 10 words (90); b: 5 over 30 (83.3); a: 8 over 30 (73.3).
    assert order == ["c", "b", "a", "none"]
    assert tests["c"].p_value is None and tests["c"].n == 1 and "needs 2" in tests["c"].reason
    # b against a on d1 and d2: the 4 swap patterns give |differences| 0.1, 0.1, 7/30, 7/30 of
    # the observed 0.1, so every one is at least as extreme: p = 1.
    assert tests["b"].difference == pytest.approx(10.0)
    assert tests["b"].p_value == pytest.approx(1.0) and tests["b"].n == 2
    assert not tests["b"].significant
    assert "N has no annotated output" in tests["a"].reason
    assert tests["none"] is None


def test_breakdown_sums_and_the_severity_by_label_table():
    found = breakdown_sum(
        [
            {"Addition": {"Subject": 1}, "Word Form": {"Object": 2}},
            {"Addition": {"Subject": 2}, "Omission": {"Place & Name": 1}},
            {},
        ]
    )
    assert found.total == 6
    table = severity_by_label(found)
    assert table["critical"]["Subject"] == 3  # Addition x Subject is Critical
    assert table["major"]["Place & Name"] == 1  # Omission x Place & Name is Major
    assert table["minor"]["Object"] == 2
    assert sum(sum(row.values()) for row in table.values()) == 6
    served = breakdown_dict(found)
    assert served["matrix"] == {
        "Addition": {"Subject": 3},
        "Omission": {"Place & Name": 1},
        "Word Form": {"Object": 2},
    }
    assert served["subtypes"]["Addition"] == 3 and served["aspects"] == {
        "Accuracy": 4,
        "Fluency": 2,
    }
    assert breakdown_sum([]).total == 0
    with pytest.raises(CombinationNotAllowedError):
        breakdown_sum([{"Positive-Negative Aspect": {"Subject": 1}}])
    with pytest.raises(ValueError, match="count"):
        breakdown_sum([{"Addition": {"Subject": -1}}])


def test_correlations_at_system_and_instance_level_by_hand():
    # Three systems, two documents each. Metric means 1, 2, 3 against human system scores
    # 1, 3, 2: Pearson r = 0.5 (deviations -1, 0, 1 and -1, 1, 0: sum 1 over sqrt(2 * 2)).
    metric = {"m": {"a": {1: 0.5, 2: 1.5}, "b": {1: 2.0, 2: 2.0}, "c": {1: 3.0, 2: 3.0}}}
    documents = {"a": {1: 10.0, 2: 20.0}, "b": {1: 30.0, 2: 40.0}, "c": {1: 50.0}}
    systems = {"a": 1.0, "b": 3.0, "c": 2.0}
    system, instance = correlate_human_scores(metric, documents, systems, name="h")
    # c's system point uses only document 1, the one its humans scored: metric mean 3.0.
    assert (system.level, system.n, system.n_systems) == ("system", 3, 3)
    assert system.pearson.value == pytest.approx(0.5)
    # Instance level: 5 pairs (0.5, 10), (1.5, 20), (2, 30), (2, 40), (3, 50).
    x, y = [0.5, 1.5, 2.0, 2.0, 3.0], [10.0, 20.0, 30.0, 40.0, 50.0]
    mx, my = sum(x) / 5, sum(y) / 5
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    assert (instance.level, instance.n, instance.n_systems) == ("instance", 5, 3)
    assert instance.pearson.value == pytest.approx(sxy / (sxx * syy) ** 0.5)
    assert instance.as_dict()["pearson"]["n"] == 5


def test_too_few_points_or_a_constant_side_give_reasons_not_errors():
    metric = {"m": {"a": {1: 0.1, 2: 0.2, 3: 0.3}}}
    one_system = correlate_human_scores(metric, {"a": {1: 90.0, 2: 80.0}}, {"a": 85.0}, name="h")
    system, instance = one_system
    assert system.pearson.value is None and "at least 3 systems" in system.pearson.reason
    assert instance.n == 2 and "at least 3 outputs" in instance.pearson.reason
    flat = correlate_human_scores(metric, {"a": {1: 90.0, 2: 90.0, 3: 90.0}}, {}, name="h")
    assert flat[1].pearson.value is None and "constant" in flat[1].pearson.reason
    assert flat[0].n == 0  # no system-level point without the system's own score
    assert correlate_human_scores({}, {"a": {1: 1.0}}, {}, name="h") == ()
