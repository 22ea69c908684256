"""Row-wise coefficients and system-level correlations with intervals, against SciPy."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats as scipy_stats

from scoring.metrics.stats import (
    METHODS,
    StatsError,
    row_coefficients,
    summary_coefficients,
    summary_level,
    system_correlations,
)

# The reference: SciPy's coefficients (Kendall's tau-b), one pair of vectors at a time.
SCIPY = {
    "pearson": lambda x, y: scipy_stats.pearsonr(x, y).statistic,
    "spearman": lambda x, y: scipy_stats.spearmanr(x, y).statistic,
    "kendall": lambda x, y: scipy_stats.kendalltau(x, y).statistic,  # tau-b
}


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("points", [3, 7, 25])
def test_row_coefficients_are_scipys_with_and_without_ties(method, points):
    rng = np.random.default_rng(points)
    x = rng.normal(size=(200, points))
    y = x + rng.normal(size=(200, points))
    # Half the rows with many ties on both sides (values on a coarse grid), as LitePyramid has.
    x[100:] = np.round(x[100:] * 2) / 2
    y[100:] = np.round(y[100:])
    found = row_coefficients(x, y, method)
    for row in range(200):
        if np.ptp(x[row]) == 0 or np.ptp(y[row]) == 0:
            assert np.isnan(found[row])
        else:
            assert found[row] == pytest.approx(SCIPY[method](x[row], y[row]), abs=1e-12)


def test_row_coefficients_are_undefined_for_a_constant_row_and_refuse_an_unknown_method():
    x = np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]])
    y = np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]])
    for method in METHODS:
        assert np.isnan(row_coefficients(x, y, method)).all()
    with pytest.raises(StatsError, match="method must be one of"):
        row_coefficients(x, y, "tau")


def test_summary_level_is_the_mean_of_scipys_per_document_coefficients():
    rng = np.random.default_rng(5)
    systems, documents = [f"s{i}" for i in range(6)], [f"d{j:02d}" for j in range(30)]
    m = rng.integers(0, 5, size=(6, 30)).astype(float)  # coarse: ties and constant documents
    h = rng.integers(0, 3, size=(6, 30)).astype(float)
    h[:, 0] = 1.0  # a document every system got the same human score: no coefficient
    metric = {s: dict(zip(documents, m[i], strict=True)) for i, s in enumerate(systems)}
    human = {s: dict(zip(documents, h[i], strict=True)) for i, s in enumerate(systems)}
    for method in METHODS:
        expected = [
            SCIPY[method](m[:, j], h[:, j])
            for j in range(30)
            if np.ptp(m[:, j]) > 0 and np.ptp(h[:, j]) > 0
        ]
        result = summary_level(metric, human, method)
        assert result.value == pytest.approx(float(np.mean(expected)), abs=1e-12)
        assert result.n == len(expected) and "d00" in result.undefined
        order, values = summary_coefficients(metric, human, method)
        assert order == tuple(documents) and np.isnan(values[0])


def _naive_interval(left, right, method, *, resamples, seed, level=0.95):
    """The paired document bootstrap written out: the same draws, SciPy on every resample."""
    n = left.shape[0]
    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    values = []
    for rows in draws:
        x, y = left[rows].mean(axis=0), right[rows].mean(axis=0)
        if np.ptp(x) > 0 and np.ptp(y) > 0:
            values.append(SCIPY[method](x, y))
    tail = (1 - level) / 2
    return tuple(np.quantile(values, [tail, 1 - tail])), resamples - len(values)


def test_system_correlations_points_and_intervals_against_a_naive_bootstrap():
    rng = np.random.default_rng(11)
    quality = rng.normal(size=8)
    human = quality + rng.normal(scale=2.0, size=(40, 8))
    metric = quality + rng.normal(scale=2.0, size=(40, 8))
    noise = rng.normal(size=(40, 8))
    found = system_correlations(
        {"m": (metric, human), "noise": (noise, human)}, resamples=300, seed=4
    )
    assert set(found) == {"m", "noise"}
    for method in METHODS:
        result = found["m"][method]
        expected = SCIPY[method](metric.mean(axis=0), human.mean(axis=0))
        assert result.correlation.value == pytest.approx(expected, abs=1e-12)
        assert result.correlation.level == "system" and result.correlation.n == 8
        assert result.correlation.p_value is not None
        (low, high), undefined = _naive_interval(metric, human, method, resamples=300, seed=4)
        assert (result.interval.low, result.interval.high) == pytest.approx((low, high), abs=1e-12)
        assert result.interval.undefined == undefined
        assert (result.interval.resamples, result.interval.clusters) == (300, 40)
        json.dumps(result.as_dict(), allow_nan=False)
    again = system_correlations({"m": (metric, human)}, resamples=300, seed=4)
    assert again["m"] == found["m"]  # seeded: and the other column changes nothing


def test_system_correlations_undefined_with_reasons():
    human = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]])
    constant = np.full((2, 3), 0.5)
    found = system_correlations({"flat": (constant, human)}, resamples=20)
    for method in METHODS:
        assert found["flat"][method].correlation.value is None
        assert "constant" in found["flat"][method].correlation.reason
        assert found["flat"][method].interval is None
    two = system_correlations({"m": (human[:, :2], human[:, :2])}, resamples=20)
    assert two["m"]["kendall"].correlation.reason.startswith("2 system(s)")


def test_kendall_rows_in_several_blocks_are_the_same(monkeypatch):
    from scoring.metrics.stats import correlation

    rng = np.random.default_rng(3)
    x, y = np.round(rng.normal(size=(41, 7)), 1), np.round(rng.normal(size=(41, 7)), 1)
    whole = row_coefficients(x, y, "kendall")
    monkeypatch.setattr(correlation, "_KENDALL_CELLS", 100)  # 2 rows a block
    assert np.array_equal(row_coefficients(x, y, "kendall"), whole, equal_nan=True)
    expected = [scipy_stats.kendalltau(x[r], y[r]).statistic for r in range(41)]
    assert whole == pytest.approx(expected, abs=1e-12)
