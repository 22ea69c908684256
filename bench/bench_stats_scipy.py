"""Time scoring.metrics.stats against scipy.stats.bootstrap and permutation_test; check the figures.

Each row runs one of Loupe's intervals or tests and the SciPy call that computes the same thing
on the same synthetic input: 11,490 documents (the CNN/DM test set's size), with the
leaderboard's 1,000 resamples and the core's default 10,000. Both sides get the same seed, and
SciPy a ``batch`` like Loupe's block of rows (it bounds memory). SciPy's bootstrap then draws
exactly Loupe's resamples (``rng.integers(0, n, (rows, n))``, the same stream in blocks of any
size); the script says whether the figures are equal, and by how much they differ when they
are not. SciPy's permutation tests draw their patterns another way, so only their exact
enumeration can agree with Loupe's (tests/metrics/test_stats_scipy.py).
The comments at the functions in ``scoring/metrics/stats`` quote these figures.

Run from the repository root: ``.venv/bin/python bench/bench_stats_scipy.py`` (5 to 8 min on
2 cores; other work on the machine moves the times, so compare the two sides of a row).
"""

from __future__ import annotations

import numpy as np
import scipy
from _common import best_of  # puts the repository on sys.path
from _stats import load_average, machine, revision
from scipy import stats as scipy_stats

from scoring.metrics.stats import (
    bootstrap_ci,
    bootstrap_ci_columns,
    bootstrap_ratio_ci,
    paired_permutation_test,
    paired_permutation_tests,
    paired_ratio_permutation_test,
)
from scoring.metrics.stats.bootstrap import _BLOCK_INDICES

N = 11_490  # documents
COLUMNS = 30  # leaderboard columns resampled together (say 10 systems x 3 metrics)
PAIRS = 9  # adjacent pairs of 10 systems tested together on one metric
REPEATS = 3
# Loupe's block of resamples (``resample_indices``): about a million indices. SciPy gets the
# same ``batch``, or its memory would grow with the resamples (10,000 x 11,490 int64 indices
# alone are 0.9 GB; a permutation test of 9 pairs without a batch needs over 16 GB).
# A side whose first run takes over this many seconds is timed once.
SLOW = 5.0
ROWS = max(1, _BLOCK_INDICES // N)


def _data(seed: int = 42):
    rng = np.random.default_rng(seed)
    scores = rng.beta(2.0, 5.0, size=(N, COLUMNS))  # ROUGE-like per-document scores
    a = scores[:, 0]
    b = np.clip(a + rng.normal(0.004, 0.05, size=N), 0.0, 1.0)
    words = rng.integers(20, 80, size=N).astype(float)  # PolyTope-like (penalty, words)
    penalty_a = rng.poisson(3.0, size=N).astype(float)
    penalty_b = rng.poisson(3.1, size=N).astype(float)
    return scores, a, b, words, penalty_a, penalty_b


def _timed(function):
    """Best of REPEATS runs of ``function()``, or its one run when that is slower than SLOW."""
    seconds, result = best_of(function, repeats=1)
    if seconds < SLOW:
        again, result = best_of(function, repeats=REPEATS - 1)
        seconds = min(seconds, again)
    return seconds, result


def _row(name: str, resamples: int, ours: float, theirs: float, agreement: str) -> None:
    ratio = theirs / ours
    print(
        f"| {name} | {resamples:,} | {ours:.3f} s | {theirs:.3f} s | "
        f"SciPy {ratio:.2f}x Loupe's time | {agreement} |"
    )


def _ulps(x: float, y: float) -> str:
    return "equal" if x == y else f"{abs(x - y) / np.spacing(max(abs(x), abs(y))):.0f} ulp apart"


def _scipy_bootstrap(samples, statistic, resamples: int, **options):
    """scipy.stats.bootstrap with seed 0 and Loupe's block of rows (percentile unless told)."""
    options = {"batch": ROWS, "method": "percentile", **options}
    return scipy_stats.bootstrap(
        samples, statistic, n_resamples=resamples, rng=np.random.default_rng(0), **options
    )


def _interval_row(name: str, resamples: int, ours, theirs) -> None:
    """A row of two timed intervals: ``ours`` and ``theirs`` are (seconds, result) pairs."""
    (t_ours, interval), (t_theirs, result) = ours, theirs
    low, high = result.confidence_interval
    _row(
        name,
        resamples,
        t_ours,
        t_theirs,
        f"low {_ulps(interval.low, low)}, high {_ulps(interval.high, high)}",
    )


def mean_interval(a: np.ndarray, resamples: int) -> None:
    t_ours, ours = _timed(lambda: bootstrap_ci(a, resamples=resamples, seed=0))
    _interval_row(
        "mean: `bootstrap_ci` / `bootstrap(method='percentile', batch=rows)`",
        resamples,
        (t_ours, ours),
        _timed(lambda: _scipy_bootstrap((a,), np.mean, resamples)),
    )
    t_bca, bca = _timed(lambda: _scipy_bootstrap((a,), np.mean, resamples, method="BCa"))
    low, high = bca.confidence_interval
    _row(
        "mean: SciPy's default BCa (same draws)",
        resamples,
        t_ours,
        t_bca,
        f"[{low:.6f}, {high:.6f}] vs percentile [{ours.low:.6f}, {ours.high:.6f}]",
    )


def column_intervals(scores: np.ndarray, resamples: int) -> None:
    t_ours, ours = _timed(lambda: bootstrap_ci_columns(scores, resamples=resamples, seed=0))
    # SciPy gathers every column's resampled values: its block keeps about a million entries.
    t_theirs, theirs = _timed(
        lambda: _scipy_bootstrap(
            (scores.T,), np.mean, resamples, batch=max(1, ROWS // COLUMNS), axis=-1
        )
    )
    worst = max(
        max(abs(ci.low - low), abs(ci.high - high))
        for ci, low, high in zip(ours, *theirs.confidence_interval, strict=True)
    )
    _row(
        f"{COLUMNS} columns: `bootstrap_ci_columns` / `bootstrap(axis=-1)`",
        resamples,
        t_ours,
        t_theirs,
        f"the same draws; largest bound difference {worst:.1e} (sums in another order)",
    )


def ratio_interval(num: np.ndarray, den: np.ndarray, resamples: int) -> None:
    _interval_row(
        "pooled ratio: `bootstrap_ratio_ci` / `bootstrap(paired=True)`",
        resamples,
        _timed(lambda: bootstrap_ratio_ci(num, den, resamples=resamples, seed=0)),
        _timed(
            lambda: _scipy_bootstrap(
                (num, den),
                lambda x, y, axis: x.sum(axis=axis) / y.sum(axis=axis),
                resamples,
                paired=True,
            )
        ),
    )


def _mean(x, axis):
    return np.mean(x, axis=axis)


def _scipy_permutation(samples, statistic, resamples: int, **options):
    """scipy.stats.permutation_test of paired samples, seed 0, Loupe's block of rows."""
    return scipy_stats.permutation_test(
        samples,
        statistic,
        permutation_type="samples",
        n_resamples=resamples,
        batch=ROWS,
        vectorized=True,
        rng=np.random.default_rng(0),
        **options,
    )


def permutation(a: np.ndarray, b: np.ndarray, resamples: int) -> None:
    left, right = dict(enumerate(a)), dict(enumerate(b))
    t_ours, ours = _timed(lambda: paired_permutation_test(left, right, resamples=resamples, seed=0))
    t_theirs, theirs = _timed(lambda: _scipy_permutation((a - b,), _mean, resamples))
    _row(
        "paired permutation: `paired_permutation_test` / `permutation_test('samples')`",
        resamples,
        t_ours,
        t_theirs,
        f"other draws: p {ours.p_value:.4f} vs {theirs.pvalue:.4f}",
    )


def permutations_batched(scores: np.ndarray, resamples: int) -> None:
    differences = np.ascontiguousarray((scores[:, :PAIRS] - scores[:, 1 : PAIRS + 1]).T)
    t_ours, ours = _timed(
        lambda: paired_permutation_tests(differences, resamples=resamples, seed=0)
    )
    t_theirs, theirs = _timed(lambda: _scipy_permutation((differences,), _mean, resamples, axis=-1))
    worst = max(abs(r.p_value - p) for r, p in zip(ours, theirs.pvalue, strict=True))
    _row(
        f"{PAIRS} pairs: `paired_permutation_tests` / `permutation_test(axis=-1)`",
        resamples,
        t_ours,
        t_theirs,
        f"other draws: largest p difference {worst:.4f}",
    )


def ratio_permutation(num_a, den_a, num_b, den_b, resamples: int) -> None:
    left = {i: (num_a[i], den_a[i]) for i in range(N)}
    right = {i: (num_b[i], den_b[i]) for i in range(N)}
    t_ours, ours = _timed(
        lambda: paired_ratio_permutation_test(left, right, resamples=resamples, seed=0)
    )
    num, den = np.concatenate([num_a, num_b]), np.concatenate([den_a, den_b])

    def statistic(x, y, axis):  # units as labels: 0..N-1 system A's terms, N..2N-1 B's
        return num[x].sum(axis=axis) / den[x].sum(axis=axis) - num[y].sum(axis=axis) / den[y].sum(
            axis=axis
        )

    t_theirs, theirs = _timed(
        lambda: _scipy_permutation((np.arange(N), np.arange(N, 2 * N)), statistic, resamples)
    )
    _row(
        "pooled-ratio permutation: `paired_ratio_permutation_test` / `permutation_test`",
        resamples,
        t_ours,
        t_theirs,
        f"other draws: p {ours.p_value:.4f} vs {theirs.pvalue:.4f}",
    )


def main() -> None:
    print(f"bench_stats_scipy: {machine()}; {revision()}; load {load_average()}")
    print(
        f"numpy {np.__version__}, SciPy {scipy.__version__}; {N:,} documents; "
        f"best of {REPEATS} runs (1 run when the first takes over {SLOW:.0f} s)"
    )
    print()
    print("| computation | resamples | Loupe | SciPy | ratio | figures |")
    print("| --- | --- | --- | --- | --- | --- |")
    scores, a, b, words, penalty_a, penalty_b = _data()
    for resamples in (1_000, 10_000):
        mean_interval(a, resamples)
        column_intervals(scores, resamples)
        ratio_interval(penalty_a, words, resamples)
        permutation(a, b, resamples)
        permutations_batched(scores, resamples)
        ratio_permutation(penalty_a, words, penalty_b, words, resamples)


if __name__ == "__main__":
    main()
