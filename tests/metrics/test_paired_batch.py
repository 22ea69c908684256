"""Many paired permutation tests at once give exactly what one test per pair gives."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.metrics.leaderboard import build_leaderboard
from scoring.metrics.stats import paired_permutation_test, paired_permutation_tests
from scoring.metrics.stats.errors import NonFiniteValueError, StatsError, TooFewPointsError
from scoring.metrics.stats.paired import _p_value, _SignedMeans, permutation_null

ALTERNATIVES = ("two-sided", "greater", "less")


def elementwise(diffs: np.ndarray, alternative: str, resamples: int, seed: int) -> float:
    """The p-value as one test computed it before batching: each pattern's mean elementwise."""
    null, exact = permutation_null(
        diffs.size,
        resamples,
        seed,
        lambda signs: (signs * diffs).mean(axis=1),
        from_bits=lambda bits: 1 - 2 * bits,
        draw=lambda rng, shape: rng.choice(np.array([-1.0, 1.0]), size=shape),
    )
    return _p_value(null, float(diffs.mean()), alternative, exact=exact)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_batch_equals_one_test_per_row_on_random_differences(alternative):
    rng = np.random.default_rng(3)
    rows = rng.normal(scale=0.2, size=(7, 300)) + np.linspace(-0.03, 0.03, 7)[:, None]
    results = paired_permutation_tests(rows, alternative=alternative, resamples=2000, seed=9)
    assert len(results) == 7
    for row, result in zip(rows, results, strict=True):
        assert result.p_value == elementwise(row, alternative, 2000, 9)
        assert result.statistic == float(row.mean())
        assert (result.n, result.resamples, result.exact, result.seed) == (300, 2000, False, 9)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_ties_at_the_cut_are_counted_as_one_test_counts_them(alternative):
    # 17 documents: sampled, not enumerated. [1, 0, ...]: every pattern's mean is +-1/17, a
    # tie with the observed mean (p = 1 two-sided); zeros: identical systems; a constant row
    # and a row whose sums are equal in exact arithmetic but not in floating point.
    n = 17
    rows = np.array(
        [
            [1.0] + [0.0] * (n - 1),
            [0.0] * n,
            [0.1] * n,
            [0.1, 0.2, 0.3] * 5 + [0.3, 0.3],
            [0.7, -0.7] * 8 + [1e-17],
        ]
    )
    results = paired_permutation_tests(rows, alternative=alternative, resamples=3000, seed=4)
    for row, result in zip(rows, results, strict=True):
        assert result.p_value == elementwise(row, alternative, 3000, 4)
    if alternative == "two-sided":
        assert results[0].p_value == 1.0
        assert results[1].p_value == 1.0


def test_small_samples_are_enumerated_exactly():
    rows = np.array([[0.1, 0.1, 0.4], [1.0, 1.0, 1.0], [0.3, -0.2, 0.0]])
    results = paired_permutation_tests(rows, resamples=1000)
    assert [r.exact for r in results] == [True, True, True]
    assert [r.resamples for r in results] == [8, 8, 8]
    # (0.1, 0.1, 0.4): only all-plus and all-minus reach |sum| >= 0.6, so p = 2/8.
    assert results[0].p_value == 2 / 8
    for row, result in zip(rows, results, strict=True):
        assert result.p_value == elementwise(row, "two-sided", 1000, 0)


def test_one_pair_is_the_single_test():
    a = {f"d{i}": v for i, v in enumerate(np.linspace(0.1, 0.9, 40))}
    b = {f"d{i}": v for i, v in enumerate(np.linspace(0.9, 0.1, 40) ** 2)}
    single = paired_permutation_test(a, b, resamples=500, seed=2)
    (batched,) = paired_permutation_tests([[a[d] - b[d] for d in sorted(a)]], resamples=500, seed=2)
    assert batched == single
    assert single.p_value == elementwise(
        np.array([a[d] - b[d] for d in sorted(a)]), "two-sided", 500, 2
    )


def test_bad_input_is_refused():
    with pytest.raises(NonFiniteValueError, match="paired test"):
        paired_permutation_tests([[0.1, float("nan"), 0.2]])
    with pytest.raises(TooFewPointsError):
        paired_permutation_tests([[0.1]])
    with pytest.raises(StatsError, match="2-D"):
        paired_permutation_tests([0.1, 0.2, 0.3])
    with pytest.raises(StatsError, match="alternative"):
        paired_permutation_tests([[0.1, 0.2]], alternative="sideways")
    with pytest.raises(StatsError, match="resamples"):
        paired_permutation_tests([[0.1, 0.2]], resamples=0)


def test_leaderboard_rows_over_different_documents_are_each_tested_alone():
    # Eight systems over 60 documents; two cover only some of them, so the adjacent pairs
    # share different documents and are tested in separate batches.
    rng = np.random.default_rng(11)
    documents = [f"d{i:02d}" for i in range(60)]
    covered = {f"s{j}": set(documents) for j in range(8)}
    covered["s3"] = set(documents[:45])
    covered["s6"] = set(documents[10:])
    scores = {
        system: {"m": {d: float(rng.random() * (0.5 + j / 20)) for d in sorted(docs)}}
        for j, (system, docs) in enumerate(covered.items())
    }
    board = build_leaderboard(
        scores, documents=documents, covered=covered, metrics=["m"], sort="m", resamples=700,
        seed=5, order=documents,
    )  # fmt: skip
    assert len({r.comparison.n for r in board.rows[:-1]}) > 1  # several batches
    for upper, lower in zip(board.rows, board.rows[1:], strict=False):
        shared = covered[upper.system] & covered[lower.system]
        expected = paired_permutation_test(
            {d: scores[upper.system]["m"][d] for d in shared},
            {d: scores[lower.system]["m"][d] for d in shared},
            resamples=700,
            seed=5,
            order=documents,
        )
        comparison = upper.comparison
        assert comparison.versus == lower.system
        assert (comparison.p_value, comparison.n, comparison.difference) == (
            expected.p_value,
            expected.n,
            expected.statistic,
        )


def test_a_statistic_that_rounding_moves_across_the_cut_is_recomputed():
    # Where the product and the elementwise mean of a pattern differ by rounding, put the
    # cut of a one-sided test exactly on the elementwise value: the single test counts that
    # pattern; the batch must too, so it recomputes the statistics next to the cut.
    rng = np.random.default_rng(3)
    rows = rng.normal(scale=0.2, size=(3, 300))
    signs = np.random.default_rng(9).choice(np.array([-1.0, 1.0]), size=(500, 300))
    for row in rows:
        product, elementwise_null = (signs @ row) / 300, (signs * row).mean(axis=1)
        i = int(np.flatnonzero(product > elementwise_null)[0])
        observed = elementwise_null[i] - 1e-12  # |observed| < 1, so the tolerance is 1e-12
        while observed + 1e-12 < elementwise_null[i]:
            observed = np.nextafter(observed, np.inf)
        while observed + 1e-12 > elementwise_null[i]:
            observed = np.nextafter(observed, -np.inf)
        if observed + 1e-12 != elementwise_null[i]:
            continue  # no float puts the cut exactly there; the next row will
        observed = float(observed)
        null = _SignedMeans(row[None, :], [observed], "less")(signs)[:, 0]
        assert null[i] == elementwise_null[i]
        assert _p_value(null, observed, "less", exact=False) == _p_value(
            elementwise_null, observed, "less", exact=False
        )
        break
    else:
        pytest.fail(f"no row of {len(rows)} let the cut sit on a rounded statistic")
