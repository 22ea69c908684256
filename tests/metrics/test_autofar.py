"""AutoFAR core: support discovery (Table 6), FAR correlations (Table 7), regression (Table 8)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from scoring.metrics.autofar import (
    AutoFarInputError,
    DiscoveryCounts,
    SingularFitError,
    autofar_fit,
    autofar_predict,
    autofar_report,
    autofar_system_fit,
    discovery_counts,
    discovery_score,
    fam_discovery_counts,
    fam_support,
    far_correlation,
    greedy_rouge1_support,
    lead_support,
    published,
    system_agreement,
)
from scoring.metrics.errors import MetricsError
from scoring.metrics.fam import validate_fam
from scoring.metrics.suggest import machine_fam_from_scores, ranking

# --- Table 6: support-sentence discovery ---------------------------------------------------


def test_discovery_pools_counts_over_documents_by_hand():
    # doc 1: machine {0, 2}, human {0, 1, 2} -> 2 hits; doc 2: machine {3}, human {1} -> 0.
    m1 = validate_fam({0: [[0]], 1: [[2]]}, n_sentences=4, n_facets=2)
    h1 = validate_fam({0: [[0, 1]], 1: [[2]]}, n_sentences=4, n_facets=2)
    m2 = validate_fam({0: [[3]]}, n_sentences=4, n_facets=1)
    h2 = validate_fam({0: [[1]]}, n_sentences=4, n_facets=1)
    counts = [fam_discovery_counts(m1, h1), fam_discovery_counts(m2, h2)]
    assert counts == [DiscoveryCounts(2, 2, 3), DiscoveryCounts(0, 1, 1)]
    score = discovery_score("rouge1-f", counts, top_n=1)
    # hits 2, predicted 3, gold 4: P = 2/3, R = 1/2, F1 = (2/3) / (7/6) = 4/7
    assert (score.hits, score.predicted, score.gold, score.documents) == (2, 3, 4, 2)
    assert score.precision == pytest.approx(2 / 3)
    assert score.recall == pytest.approx(1 / 2)
    assert score.f1 == pytest.approx(4 / 7)
    assert score.reason is None
    assert score.as_dict()["scorer"] == "rouge1-f"


def test_discovery_of_machine_fams_matches_the_bench_micro_reading():
    # bench_suggestions.evaluate(..., "micro"): per document, the union of every facet's
    # top-k (ranking) against the union of the human support sentences, pooled.
    rng = np.random.default_rng(3)
    matrices = [rng.uniform(0.1, 1.0, size=(f, s)) for f, s in ((2, 5), (3, 4), (1, 6))]
    humans = [
        validate_fam({0: [[1]], 1: [[0, 4]]}, n_sentences=5, n_facets=2),
        validate_fam({0: [[2]], 2: [[3]]}, n_sentences=4, n_facets=3),
        validate_fam({0: [[5]]}, n_sentences=6, n_facets=1),
    ]
    for k in (1, 2, 3):
        counts = [
            fam_discovery_counts(machine_fam_from_scores(m, top_n=k), h)
            for m, h in zip(matrices, humans, strict=True)
        ]
        hits = n_pred = n_gold = 0
        for m, h in zip(matrices, humans, strict=True):
            pred = frozenset(int(i) for row in ranking(m, k) for i in row)
            gold = fam_support(h)
            hits, n_pred, n_gold = hits + len(pred & gold), n_pred + len(pred), n_gold + len(gold)
        score = discovery_score("tfidf", counts, top_n=k)
        assert score.precision == pytest.approx(hits / n_pred)
        assert score.recall == pytest.approx(hits / n_gold)


def test_discovery_undefined_and_zero_cases():
    with pytest.raises(AutoFarInputError, match="no document"):
        discovery_score("tfidf", [])
    nothing = discovery_score("tfidf", [discovery_counts([], [1])])
    assert nothing.precision is None and nothing.f1 is None and nothing.recall == 0.0
    assert "precision is undefined" in nothing.reason
    no_gold = discovery_score("tfidf", [discovery_counts([1], [])])
    assert no_gold.recall is None and "recall is undefined" in no_gold.reason
    miss = discovery_score("tfidf", [discovery_counts([0], [1])])
    assert (miss.precision, miss.recall, miss.f1) == (0.0, 0.0, 0.0)
    assert discovery_counts([1, 1, 2], [2, 2]) == DiscoveryCounts(1, 2, 1)
    with pytest.raises(AutoFarInputError, match="not a sentence index"):
        discovery_counts([True], [1])
    with pytest.raises(AutoFarInputError, match="not the same document"):
        fam_discovery_counts(
            validate_fam({}, n_sentences=3, n_facets=1), validate_fam({}, n_sentences=4, n_facets=1)
        )


# --- Table 7: correlation of machine-FAM FAR with human FAR ---------------------------------

# System means: machine (0, 0.5, 1), human (0, 1, 0.5). Pearson = 0.25 / sqrt(0.5 * 0.5) = 0.5,
# Spearman (ranks 1,2,3 vs 1,3,2) = 0.5, Kendall (2 concordant, 1 discordant pair) = 1/3.
MACHINE = {"A": {"d1": 0.0, "d2": 0.0}, "B": {"d1": 0.25, "d2": 0.75}, "C": {"d1": 1.0, "d2": 1.0}}
HUMAN = {"A": {"d1": 0.0, "d2": 0.0}, "B": {"d1": 1.0, "d2": 1.0}, "C": {"d1": 0.5, "d2": 0.5}}


def test_far_correlation_by_hand_with_paired_bootstrap_interval():
    result = far_correlation("rouge1-f", MACHINE, HUMAN, top_n=2, resamples=1000)
    assert (result.n_systems, result.n_documents, result.top_n) == (3, 2, 2)
    assert result.machine_means == {"A": 0.0, "B": 0.5, "C": 1.0}
    assert result.pearson.correlation.value == pytest.approx(0.5)
    assert result.spearman.correlation.value == pytest.approx(0.5)
    assert result.kendall.correlation.value == pytest.approx(1 / 3)
    # Only B's machine mean moves under resampling: 0.25 (d1 twice), 0.5, or 0.75 (d2 twice),
    # each end with probability 1/4, so the 2.5% and 97.5% quantiles are the ends.
    # x = (0, 1/4, 1): r = (1/8) / sqrt(78/144 * 1/2) = 1.5 / sqrt(39);
    # x = (0, 3/4, 1): r = (3/8) / sqrt(78/144 * 1/2) = 4.5 / sqrt(39).
    assert result.pearson.interval.low == pytest.approx(1.5 / math.sqrt(39))
    assert result.pearson.interval.high == pytest.approx(4.5 / math.sqrt(39))
    # The ranks never change: Spearman and Kendall have degenerate intervals.
    spearman, kendall = result.spearman.interval, result.kendall.interval
    assert (spearman.low, spearman.high) == pytest.approx((0.5, 0.5))
    assert (kendall.low, kendall.high) == pytest.approx((1 / 3, 1 / 3))
    data = result.as_dict()
    assert data["pearson"]["low"] == pytest.approx(1.5 / math.sqrt(39))
    json.dumps(data, allow_nan=False)
    again = far_correlation("rouge1-f", MACHINE, HUMAN, top_n=2, resamples=1000)
    assert again == result  # seeded
    bare = far_correlation("rouge1-f", MACHINE, HUMAN, top_n=2, resamples=0)
    assert bare.pearson.correlation == result.pearson.correlation
    assert bare.pearson.interval is None and bare.as_dict()["pearson"]["low"] is None


def test_far_correlation_undefined_with_reason():
    constant = {s: {"d1": 0.5, "d2": 0.5} for s in HUMAN}
    result = far_correlation("tfidf", MACHINE, constant, resamples=50)
    for method in ("pearson", "spearman", "kendall"):
        coefficient = getattr(result, method)
        assert coefficient.correlation.value is None
        assert "constant" in coefficient.correlation.reason
        assert coefficient.interval is None
    one = far_correlation("tfidf", {"A": MACHINE["A"]}, {"A": HUMAN["A"]})
    assert one.pearson.correlation.value is None
    assert "1 system(s)" in one.pearson.correlation.reason
    json.dumps(one.as_dict(), allow_nan=False)


def test_far_correlation_refuses_bad_inputs():
    with pytest.raises(AutoFarInputError, match="no system"):
        far_correlation("tfidf", {}, {})
    with pytest.raises(AutoFarInputError, match="different systems"):
        far_correlation("tfidf", MACHINE, {"A": HUMAN["A"]})
    with pytest.raises(AutoFarInputError, match="other documents"):
        far_correlation("tfidf", MACHINE, HUMAN | {"C": {"d1": 0.5}})
    with pytest.raises(AutoFarInputError, match="not a finite number"):
        far_correlation("tfidf", MACHINE | {"A": {"d1": float("nan"), "d2": 0.0}}, HUMAN)
    assert issubclass(AutoFarInputError, MetricsError)


# --- Table 8: AutoFAR regression --------------------------------------------------------------

# One feature, one document per system: x = (0, 0.5, 1), y = (0, 1, 0.5).
X = {"rouge1-f": {"A": {"d": 0.0}, "B": {"d": 0.5}, "C": {"d": 1.0}}}
Y = {"A": {"d": 0.0}, "B": {"d": 1.0}, "C": {"d": 0.5}}


def test_three_system_regression_by_hand():
    fit = autofar_fit(X, Y)
    # Sxy = 0.25, Sxx = 0.5: slope 0.5, intercept 0.5 - 0.5 * 0.5 = 0.25. Fitted 0.25, 0.5,
    # 0.75; residuals 0.25, -0.5, 0.25: SSE 0.375, RMSE sqrt(0.125); SST 0.5, R^2 = 0.25.
    assert fit.model.intercept == pytest.approx(0.25)
    assert fit.model.weights["rouge1-f"] == pytest.approx(0.5)
    assert fit.model.rmse == pytest.approx(math.sqrt(0.125))
    assert fit.model.r2 == pytest.approx(0.25)
    assert fit.model.n_rows == 3
    # Leave A out: line through (0.5, 1), (1, 0.5) = 1.5 - x, predicts 1.5 at 0.
    # Leave B out: through (0, 0), (1, 0.5) = 0.5x, predicts 0.25 at 0.5.
    # Leave C out: through (0, 0), (0.5, 1) = 2x, predicts 2 at 1.
    held = {h.system: h for h in fit.held_out}
    assert held["A"].predicted_far == pytest.approx(1.5)
    assert held["A"].intercept == pytest.approx(1.5)
    assert held["A"].weights["rouge1-f"] == pytest.approx(-1.0)
    assert held["B"].predicted_far == pytest.approx(0.25)
    assert held["C"].predicted_far == pytest.approx(2.0)
    assert held["C"].human_far == 0.5
    assert held["C"].rmse == pytest.approx(1.5)
    # Held-out errors 1.5, -0.75, 1.5: SSE 5.0625, RMSE sqrt(1.6875), R^2 = 1 - 5.0625/0.5.
    assert fit.validation_rmse == pytest.approx(math.sqrt(1.6875))
    assert fit.validation_r2 == pytest.approx(-9.125)
    assert fit.validation_reason is None
    # As the paper reports Table 8: each system's fitted mean against its human mean, and
    # Loupe's held-out means (1.5, 0.25, 2) the same way. In sample the fitted values are a
    # linear function of x = (0, 0.5, 1): Pearson 0.5, Spearman 0.5, Kendall 1/3 as Table 7.
    assert fit.in_sample.values() == pytest.approx((0.5, 0.5, 1 / 3))
    assert fit.in_sample.estimated == pytest.approx({"A": 0.25, "B": 0.5, "C": 0.75})
    # Held out p = (1.5, 0.25, 2) against y = (0, 1, 0.5): deviations (0.25, -1, 0.75) and
    # (-0.5, 0.5, 0): r = -0.625 / sqrt(1.625 * 0.5); ranks (2, 1, 3) against (1, 3, 2):
    # rho = 1 - 6 * 6 / 24 = -0.5; pairs AB discordant, AC concordant, BC discordant: -1/3.
    held_out = fit.held_out_agreement
    assert held_out.values() == pytest.approx((-0.625 / math.sqrt(0.8125), -0.5, -1 / 3))
    json.dumps(fit.as_dict(), allow_nan=False)


def test_system_level_fit_by_hand():
    # The same numbers, one row per system: the paper's Table 8 read at system level.
    x = {"rouge1-f": {"A": 0.0, "B": 0.5, "C": 1.0}}
    y = {"A": 0.0, "B": 1.0, "C": 0.5}
    fit = autofar_system_fit(x, y)
    assert fit.model.intercept == pytest.approx(0.25)
    assert fit.model.weights == pytest.approx({"rouge1-f": 0.5})
    assert (fit.model.n_rows, fit.model.rmse, fit.model.r2) == pytest.approx(
        (3, math.sqrt(0.125), 0.25)
    )
    assert fit.in_sample.estimated == pytest.approx({"A": 0.25, "B": 0.5, "C": 0.75})
    assert fit.in_sample.truth == y
    assert fit.in_sample.values() == pytest.approx((0.5, 0.5, 1 / 3))
    assert fit.held_out.estimated == pytest.approx({"A": 1.5, "B": 0.25, "C": 2.0})
    assert fit.held_out.values() == pytest.approx((-0.625 / math.sqrt(0.8125), -0.5, -1 / 3))
    assert fit.held_out_reason is None
    json.dumps(fit.as_dict(), allow_nan=False)
    # Two scorers on three systems: the fit passes through every point (r = 1), and a fold
    # has two systems for three coefficients, so there is no held-out figure.
    exact = autofar_system_fit(x | {"t": {"A": 1.0, "B": 0.0, "C": 0.25}}, y)
    assert exact.in_sample.values() == pytest.approx((1.0, 1.0, 1.0))
    assert exact.model.rmse == pytest.approx(0.0, abs=1e-12)
    assert exact.held_out is None and "2 rows for 3 coefficients" in exact.held_out_reason
    with pytest.raises(SingularFitError, match="3 rows for 4"):
        autofar_system_fit(x | {"t": x["rouge1-f"], "u": y}, y)
    with pytest.raises(AutoFarInputError, match="covers other systems"):
        autofar_system_fit({"r": {"A": 0.1}}, y)
    with pytest.raises(AutoFarInputError, match="no scorer"):
        autofar_system_fit({}, y)
    with pytest.raises(AutoFarInputError, match="finite"):
        autofar_system_fit({"r": {"A": 0.0, "B": float("inf"), "C": 1.0}}, y)


def test_system_agreement_ties_rank_together_whatever_the_summation_order():
    # A and B have the same mean FAR (0.6 / 3), but summing A's documents in order gives
    # 0.6000000000000001 and B's 0.6: without rounding A would rank above B.
    machine = {"A": {"d1": 0.1, "d2": 0.2, "d3": 0.3}, "B": {"d1": 0.3, "d2": 0.2, "d3": 0.1}}
    machine["C"] = {"d1": 0.0, "d2": 0.0, "d3": 0.0}
    human = {"A": {"d1": 1.0, "d2": 1.0, "d3": 1.0}, "B": {"d1": 2.0, "d2": 2.0, "d3": 2.0}}
    human["C"] = {"d1": 0.0, "d2": 0.0, "d3": 0.0}
    assert 0.1 + 0.2 + 0.3 != 0.3 + 0.2 + 0.1
    result = far_correlation("r", machine, human, resamples=20)
    # Ranks x (2.5, 2.5, 1), y (2, 3, 1): deviations (0.5, 0.5, -1), (0, 1, -1):
    # rho = 1.5 / sqrt(1.5 * 2); tau-b: AB tied in x, AC and BC concordant: 2 / sqrt(2 * 3).
    assert result.spearman.correlation.value == pytest.approx(1.5 / math.sqrt(3))
    assert result.kendall.correlation.value == pytest.approx(2 / math.sqrt(6))
    direct = system_agreement(
        {"A": 0.6000000000000001 / 3, "B": 0.2, "C": 0.0}, {"A": 1, "B": 2, "C": 0}
    )
    assert direct.values()[1:] == pytest.approx((1.5 / math.sqrt(3), 2 / math.sqrt(6)))
    assert direct.n_systems == 3
    two = system_agreement({"A": 0.1, "B": 0.2}, {"A": 0.3, "B": 0.4})
    assert two.values() == (None, None, None) and "at least 3" in two.pearson.reason
    json.dumps(direct.as_dict() | {"two": two.as_dict()}, allow_nan=False)
    with pytest.raises(AutoFarInputError, match="different systems"):
        system_agreement({"A": 0.1}, {"B": 0.1})
    with pytest.raises(AutoFarInputError, match="no system"):
        system_agreement({}, {})


# --- Table 6's baselines: Lead-3 and greedy ROUGE-1 F1 -------------------------------------


def test_lead_support():
    assert lead_support(10) == frozenset({0, 1, 2})
    assert lead_support(2) == frozenset({0, 1})
    assert lead_support(5, 1) == frozenset({0})
    for bad in ((-1, 3), (4, 0), (True, 3), (4, 2.0)):
        with pytest.raises(AutoFarInputError):
            lead_support(*bad)


def test_greedy_rouge1_by_hand():
    # Reference tokens: the cat sat the dog ran (6, "the" twice).
    # Step 1: "the cat sat" and "the dog ran" both give P 1, R 1/2, F 2/3: the first wins.
    # Step 2: adding "the dog ran" gives 6 of 6 tokens: F 1. Step 3: "birds fly" adds 2
    # unmatched tokens (P 6/8, R 1): F 6/7 < 1, so the selection stops.
    reference = ["The cat sat.", "The dog ran."]
    assert greedy_rouge1_support(reference, ["the cat sat", "the dog ran", "birds fly"]) == {0, 1}
    # "the cat" alone: P 1, R 2/3, F 0.8; adding "sat on the mat" (P 3/6, R 1) gives F 2/3,
    # adding "dogs bark" F 4/7: both lower, so one sentence.
    one = greedy_rouge1_support(["the cat sat"], ["the cat", "sat on the mat", "dogs bark"])
    assert one == {0}
    assert greedy_rouge1_support(["the cat sat"], ["dogs bark", ""]) == frozenset()
    # Stemming as rouge-score's: "cats" and "cat" match.
    assert greedy_rouge1_support(["cats sitting"], ["a dog", "the cat sits"]) == {1}
    with pytest.raises(AutoFarInputError, match="must be text"):
        greedy_rouge1_support(["x"], [None])


# --- the paper's figures --------------------------------------------------------------------


def test_published_table6_f1_is_the_harmonic_mean_of_its_p_and_r():
    # A check of the transcription: each printed F1 is 2PR / (P + R) of the printed P and R,
    # within the rounding of one decimal of a percentage.
    assert len(published.TABLE6) == 9
    for row in published.TABLE6.values():
        harmonic = 2 * row.precision * row.recall / (row.precision + row.recall)
        assert harmonic == pytest.approx(row.f1, abs=0.001), row.label


def test_published_table7_and_8_coefficients_are_those_of_six_untied_systems():
    # With six systems and no ties rho = 1 - sum d^2 / 35 (sum d^2 even) and
    # tau = (C - D) / 15 with C + D = 15 (so C - D odd).
    rows = [*published.TABLE7.values(), published.TABLE8_AUTOFAR, published.TABLE8_AUTOFAR_L]
    assert len(rows) == 14
    for row in rows:
        squares = (1 - row.spearman) * 35
        assert squares == pytest.approx(round(squares), abs=0.02) and round(squares) % 2 == 0
        difference = row.kendall * 15
        assert difference == pytest.approx(round(difference), abs=0.01)
        assert round(difference) % 2 == 1


def test_published_table8_coefficients_follow_from_its_columns():
    systems = list(published.TABLE8.values())
    far = [s.far for s in systems]
    for column, printed in (
        ([s.autofar for s in systems], published.TABLE8_AUTOFAR),
        ([s.autofar_l for s in systems], published.TABLE8_AUTOFAR_L),
    ):
        # Ranks are exact from the printed columns.
        agreement = system_agreement(dict(enumerate(column)), dict(enumerate(far)))
        assert agreement.values()[1:] == pytest.approx(
            (printed.spearman, printed.kendall), abs=5e-4
        )
        # Pearson's r is not: the columns are rounded to 0.001. The printed r lies in the range
        # r takes when every value moves within its rounding (+-0.0005).
        rng = np.random.default_rng(0)
        base = np.array([column, far])
        values = []
        for _ in range(5000):
            a, b = base + rng.uniform(-0.0005, 0.0005, size=base.shape)
            values.append(np.corrcoef(a, b)[0, 1])
        assert min(values) <= printed.pearson - 0.0005 and printed.pearson + 0.0005 <= max(values)


def test_regression_recovers_an_exact_linear_rule_and_predicts_new_documents():
    # human = 0.1 + 0.5 * a + 0.3 * b exactly, on 4 systems x 2 documents.
    a = {"S1": {"d1": 0.0, "d2": 0.2}, "S2": {"d1": 0.4, "d2": 0.1}}
    a |= {"S3": {"d1": 0.8, "d2": 0.6}, "S4": {"d1": 0.3, "d2": 1.0}}
    b = {"S1": {"d1": 0.5, "d2": 0.0}, "S2": {"d1": 1.0, "d2": 0.2}}
    b |= {"S3": {"d1": 0.1, "d2": 0.7}, "S4": {"d1": 0.9, "d2": 0.4}}
    human = {s: {d: 0.1 + 0.5 * a[s][d] + 0.3 * b[s][d] for d in a[s]} for s in a}
    fit = autofar_fit({"a": a, "b": b}, human)
    assert fit.model.features == ("a", "b")
    assert fit.model.intercept == pytest.approx(0.1)
    assert fit.model.weights == pytest.approx({"a": 0.5, "b": 0.3})
    assert fit.model.rmse == pytest.approx(0.0, abs=1e-12)
    assert fit.model.r2 == pytest.approx(1.0)
    assert fit.validation_rmse == pytest.approx(0.0, abs=1e-12)
    for item in fit.held_out:
        expected = sum(human[item.system].values()) / 2
        assert item.predicted_far == pytest.approx(expected)
    # New documents: 0.1 + 0.5 * 0.6 + 0.3 * 0.2 = 0.46 and 0.1 + 0 + 0.3 = 0.4; mean 0.43.
    new = autofar_predict(
        fit.model, {"b": {"S9": {"x": 0.2, "y": 1.0}}, "a": {"S9": {"x": 0.6, "y": 0.0}}}
    )
    assert new.per_document["S9"]["x"] == pytest.approx(0.46)
    assert new.per_document["S9"]["y"] == pytest.approx(0.4)
    assert new.system_means["S9"] == pytest.approx(0.43)
    report = autofar_report([], [], fit)
    assert report["table8"]["model"]["weights"] == pytest.approx({"a": 0.5, "b": 0.3})
    json.dumps(autofar_report([], [], None) | {"p": new.as_dict()}, allow_nan=False)


def test_regression_degenerate_inputs():
    one = autofar_fit(
        {"r": {"A": {"d1": 0.0, "d2": 1.0}}}, {"A": {"d1": 0.2, "d2": 0.4}}
    )  # one system: a fit, no validation
    assert one.model.weights["r"] == pytest.approx(0.2)
    assert one.held_out == () and one.validation_rmse is None
    assert "1 system" in one.validation_reason
    with pytest.raises(SingularFitError, match="constant or collinear"):
        autofar_fit({"r": {s: {"d": 0.5} for s in "ABC"}}, Y)
    with pytest.raises(SingularFitError, match="no unique solution"):
        autofar_fit({"r": X["rouge1-f"], "t": X["rouge1-f"]}, Y)
    with pytest.raises(SingularFitError, match="2 rows for 3"):
        two = {"A": {"d": 0.0}, "B": {"d": 1.0}}
        autofar_fit({"r": two, "t": {"A": {"d": 1.0}, "B": {"d": 0.0}}}, two)
    # Without A, the other systems' feature is constant: that fold has no unique solution.
    fold = autofar_fit({"r": {"A": {"d": 0.0}, "B": {"d": 0.5}, "C": {"d": 0.5}}}, Y)
    assert fold.model.rmse >= 0 and fold.validation_rmse is None
    assert "without system 'A'" in fold.validation_reason
    flat = autofar_fit(X, {s: {"d": 0.5} for s in "ABC"})
    assert flat.model.r2 is None and "SST = 0" in flat.model.r2_reason
    with pytest.raises(AutoFarInputError, match="no scorer"):
        autofar_fit({}, Y)
    with pytest.raises(AutoFarInputError, match="different systems"):
        autofar_fit(X, {"A": {"d": 0.0}})
    with pytest.raises(AutoFarInputError, match="uses scorers"):
        autofar_predict(autofar_fit(X, Y).model, {"tfidf": {"A": {"d": 0.1}}})
