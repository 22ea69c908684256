"""Reference for Spearman's rho with scipy's exact permutation p-value (small samples)."""

from types import SimpleNamespace

import numpy as np
from scipy import stats as scipy_stats


def spearman_exact(x, y) -> SimpleNamespace:
    """rho from ``scipy.stats.spearmanr``; p from ``scipy.stats.permutation_test`` over every
    pairing (exact), the reference for our p-values up to 8 points."""
    rho = scipy_stats.spearmanr(x, y).statistic
    exact = scipy_stats.permutation_test(
        (np.asarray(x, float),),
        lambda xs: scipy_stats.spearmanr(xs, y).statistic,
        permutation_type="pairings",
        n_resamples=np.inf,
        alternative="two-sided",
    )
    return SimpleNamespace(statistic=rho, pvalue=exact.pvalue)
