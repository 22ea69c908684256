"""Meta-evaluation (every metric against a per-document human study) and released scores against
Loupe's, checked against SciPy on the same vectors and against bootstraps written out here."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from scoring.metrics.leaderboard import (
    RELEASED_LOUPE_KEYS,
    compare_released,
    meta_evaluate,
    top_k_subset,
)
from scoring.metrics.leaderboard.correlations import JudgmentInputError
from tests.metrics.test_system_correlation import SCIPY

METHODS = tuple(SCIPY)


def _board(n_systems=9, n_documents=30, seed=0):
    """Systems s0.. (the first four abstractive), documents d00.., a metric that follows the
    human score with noise, and a coarse human score with ties (as LitePyramid's)."""
    rng = np.random.default_rng(seed)
    systems = [f"s{i}" for i in range(n_systems)]
    documents = [f"d{j:02d}" for j in range(n_documents)]
    quality = rng.normal(size=n_systems)
    human = np.round((quality + rng.normal(scale=1.5, size=(n_documents, n_systems))) * 2) / 4
    metric = quality + rng.normal(scale=1.5, size=(n_documents, n_systems))
    as_dict = lambda a: {  # noqa: E731
        s: {d: float(a[j, i]) for j, d in enumerate(documents)} for i, s in enumerate(systems)
    }
    kinds = {s: ("abstractive" if i < 4 else "extractive") for i, s in enumerate(systems)}
    return systems, documents, as_dict(metric), as_dict(human), kinds


def _rows(result):
    return {(r.metric, r.subset, r.level): r for r in result.rows}


def test_system_and_summary_level_by_subset_are_scipys():
    systems, documents, metric, human, kinds = _board()
    result = meta_evaluate({"m": metric}, human, kinds=kinds, name="h", top_k=(3, 5, 9, 20))
    means = {s: float(np.mean([human[s][d] for d in documents])) for s in systems}
    assert result.human_means == pytest.approx(means, abs=1e-15)
    ranked = sorted(systems, key=lambda s: -means[s])
    # k = 9 is all the systems and k = 20 more than all: neither is a subset of its own.
    assert result.subsets == {
        "all": tuple(systems),
        "abstractive": tuple(systems[:4]),
        "extractive": tuple(systems[4:]),
        "top-3": tuple(sorted(ranked[:3])),
        "top-5": tuple(sorted(ranked[:5])),
    }
    rows = _rows(result)
    for subset, members in result.subsets.items():
        x = [np.mean([metric[s][d] for d in documents]) for s in members]
        y = [means[s] for s in members]
        system = rows[("m", subset, "system")]
        assert (system.n_documents, len(system.systems)) == (30, len(members))
        for method in METHODS:
            found = system.coefficients[method]
            assert found.correlation.value == pytest.approx(SCIPY[method](x, y), abs=1e-12)
            assert found.interval.low <= found.interval.high
        summary = rows[("m", subset, "summary")]
        for method in METHODS:
            per_document = []
            for d in documents:
                a = [metric[s][d] for s in members]
                b = [human[s][d] for s in members]
                if len(set(a)) > 1 and len(set(b)) > 1:
                    per_document.append(SCIPY[method](a, b))
            found = summary.coefficients[method].correlation
            assert found.value == pytest.approx(float(np.mean(per_document)), abs=1e-12)
            assert found.n == len(per_document)
            assert len(found.undefined) == 30 - len(per_document)
    json.dumps(result.as_dict(), allow_nan=False)


def test_the_intervals_are_a_document_bootstrap_on_one_draw():
    systems, documents, metric, human, kinds = _board(n_systems=6, n_documents=25, seed=2)
    result = meta_evaluate(
        {"m": metric}, human, kinds=kinds, name="h", top_k=(), resamples=200, seed=7
    )
    rows = _rows(result)
    m = np.array([[metric[s][d] for s in systems] for d in documents])
    h = np.array([[human[s][d] for s in systems] for d in documents])
    draws = np.random.default_rng(7).integers(0, 25, size=(200, 25))
    for method in METHODS:
        system_values, summary_values = [], []
        per_document = np.array(
            [
                SCIPY[method](m[j], h[j]) if np.ptp(m[j]) > 0 and np.ptp(h[j]) > 0 else np.nan
                for j in range(25)
            ]
        )
        for rows_drawn in draws:
            x, y = m[rows_drawn].mean(axis=0), h[rows_drawn].mean(axis=0)
            if np.ptp(x) > 0 and np.ptp(y) > 0:
                system_values.append(SCIPY[method](x, y))
            drawn = per_document[rows_drawn]
            if np.isfinite(drawn).any():
                summary_values.append(np.nanmean(drawn))
        for level, values in (("system", system_values), ("summary", summary_values)):
            interval = rows[("m", "all", level)].coefficients[method].interval
            expected = np.quantile(values, [0.025, 0.975])
            assert (interval.low, interval.high) == pytest.approx(tuple(expected), abs=1e-12)
            assert interval.resamples == 200 and interval.clusters == 25


def test_a_rank_study_is_negated_and_its_best_are_the_lowest():
    systems, documents, metric, human, kinds = _board()
    ranks = {s: {d: 10 - v for d, v in values.items()} for s, values in human.items()}
    as_score = meta_evaluate({"m": metric}, human, kinds=kinds, name="h", top_k=(5,))
    as_rank = meta_evaluate({"m": metric}, ranks, kinds=kinds, name="h", kind="rank", top_k=(5,))
    assert as_rank.subsets == as_score.subsets
    for (key, row), other in zip(_rows(as_score).items(), as_rank.rows, strict=True):
        for method in METHODS:
            assert other.coefficients[method].correlation.value == pytest.approx(
                row.coefficients[method].correlation.value, abs=1e-12
            ), key
    assert as_rank.human_means["s0"] == pytest.approx(10 - as_score.human_means["s0"])


def test_too_few_systems_or_no_shared_document_give_reasons_not_errors():
    systems, documents, metric, human, kinds = _board(n_systems=5)
    partial = {s: metric[s] for s in systems[:2]}
    result = meta_evaluate({"few": partial}, human, kinds=kinds, name="h", top_k=())
    for row in result.rows:
        for coefficient in row.coefficients.values():
            assert coefficient.correlation.value is None and coefficient.interval is None
            assert "at least 3 systems" in coefficient.correlation.reason
    apart = {s: {f"{d}-{s}": 0.5 for d in documents} for s in systems}
    result = meta_evaluate({"apart": apart}, human, kinds=kinds, name="h", top_k=())
    assert "no document has apart" in result.rows[0].coefficients["kendall"].correlation.reason
    with pytest.raises(JudgmentInputError, match="per system"):
        meta_evaluate({}, {"s0": {None: 1.0}}, kinds=kinds, name="h")
    with pytest.raises(JudgmentInputError, match="not a finite number"):
        meta_evaluate({}, {"s0": {"d": math.nan}}, kinds=kinds, name="h")
    assert top_k_subset(10) == "top-10"


def test_released_rouge_against_loupes_own_prefers_rougelsum():
    loupe = {
        "rouge1_f": {"a": {1: 0.5, 2: 0.25}, "b": {1: 0.75, 2: 0.0}},
        "rougeL_f": {"a": {1: 0.4, 2: 0.2}, "b": {1: 0.6, 2: 0.1}},
    }
    released = {
        "rouge_1_f_score": {"a": {1: 0.52, 2: 0.2}, "b": {1: 0.7, 2: 0.05, 3: 0.9}},
        "rouge_l_f_score": {"a": {1: 0.45, 2: 0.2}, "b": {1: 0.6, 2: 0.12}},
        "js-2": {"a": {1: -0.6}},
    }
    keys = RELEASED_LOUPE_KEYS["realsumm"]
    found = {c.released_key: c for c in compare_released(loupe, released, release="r", keys=keys)}
    assert set(found) == {"rouge_1_f_score", "rouge_l_f_score"}  # js-2 has no counterpart
    one = found["rouge_1_f_score"]
    x, y = [0.5, 0.25, 0.75, 0.0], [0.52, 0.2, 0.7, 0.05]
    assert (one.loupe_key, one.n) == ("rouge1_f", 4)
    assert one.pearson.value == pytest.approx(scipy_stats.pearsonr(x, y).statistic, abs=1e-12)
    assert one.mean_abs_diff == pytest.approx(np.mean(np.abs(np.subtract(x, y))), abs=1e-15)
    assert one.mean_diff == pytest.approx(np.mean(np.subtract(x, y)), abs=1e-15)
    assert found["rouge_l_f_score"].loupe_key == "rougeL_f"  # no rougeLsum scored yet
    loupe["rougeLsum_f"] = loupe["rougeL_f"]
    found = {c.released_key: c for c in compare_released(loupe, released, release="r", keys=keys)}
    assert found["rouge_l_f_score"].loupe_key == "rougeLsum_f"
    json.dumps([c.as_dict() for c in found.values()], allow_nan=False)
