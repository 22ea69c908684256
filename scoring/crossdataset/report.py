"""The cross-dataset report (matrices, ranking, paired tests) from plain scores, shared by the API,
the page and ``manage.py crossdataset`` (with or without the database)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from scoring.metrics.crossdataset import (
    MEASURES,
    MISSING_EXCLUDE,
    MISSING_RULES,
    NORMALISATION_NOTE,
    TEST_STIFFNESS_PERMUTATION,
    TEST_WILCOXON,
    CrossDatasetError,
    CrossDatasetMatrix,
    CrossDatasetWilcoxon,
    cross_dataset_matrix,
    cross_dataset_wilcoxon,
    rank_systems,
    stiffness_permutation_test,
)
from scoring.metrics.errors import MetricsError
from scoring.metrics.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

# system name -> (train, test) -> document key -> score
SystemCells = Mapping[str, Mapping[tuple[str, str], Mapping[object, float]]]

# The paper's significance level (CDEvalSumm Sec. 4); the page marks the p-values below it.
ALPHA = 0.05

TEST_DESCRIPTION = (
    "Two tests per pair of systems, both two-sided, with no correction for multiple "
    "comparisons. The paper's (CDEvalSumm Sec. 4): the Wilcoxon signed-rank test, pair-wise at "
    "alpha = 0.05, its null hypothesis that the two systems' expected stiffness (stableness) is "
    "the same; computed by scipy.stats.wilcoxon (zero differences dropped; the exact "
    "distribution for up to 50 pairs, every sign pattern for up to 13 tied ones, else the "
    "normal approximation). The paper does not say what is paired: Loupe's reading pairs the "
    "cells of the two U matrices for stiffness and of the two normalised matrices for "
    "stableness (the normalised diagonal, 1 for both, drops out as zeros); the other reading, "
    "every (train, test, document) unit (its score, or its score / U_jj for stableness), is "
    "shown beside it. Loupe's own: a paired sign-flip permutation test of the stiffness "
    "difference over the units both systems cover, each weighted by 1 / (cells x documents in "
    "its cell), so its statistic is stiffness(A) - stiffness(B); units only one system covers "
    "are left out and counted (dropped_a, dropped_b)."
)


@dataclass(frozen=True)
class LeftOut:
    """A system (or a Loupe System row) the evaluation could not use, and why.

    Attributes:
        system: the CDEvalSumm system's name.
        slug: the Loupe System's slug ("" for a system read from a scores file).
        trained_on: the dataset it was trained on ("" when not given).
        reason: why it is left out.
    """

    system: str
    slug: str
    trained_on: str
    reason: str


@dataclass(frozen=True)
class CrossDatasetReport:
    """Everything the API, the page and the command show.

    Attributes:
        datasets: the datasets, in row (train) and column (test) order.
        missing: the missing-cell rule (``error`` or ``exclude``).
        matrices: one matrix per system, by system name.
        excluded: the cells left out for every system (``exclude`` only), row-major.
        left_out: the systems that could not be evaluated.
        ranking: the core's ranking (None when there is no system).
        tests: every pair's tests as plain data (:func:`pair_tests_compute`), in name order.
        resamples: sign patterns drawn by the paired tests when they are not exact.
        seed: the tests' seed.
    """

    datasets: tuple[str, ...]
    missing: str
    matrices: dict[str, CrossDatasetMatrix]
    excluded: tuple[tuple[str, str], ...]
    left_out: tuple[LeftOut, ...]
    ranking: object | None
    tests: tuple = ()
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED


def crossdataset_report(
    *,
    systems: SystemCells,
    datasets: Sequence[str],
    missing: str,
    left_out: Sequence[LeftOut] = (),
    tests: bool = True,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> CrossDatasetReport:
    """Build every system's matrix on the same cells, rank them and test each pair.

    With ``missing="error"`` every system must have every cell (the core's error names the
    missing ones). With ``missing="exclude"`` a system without one of its in-dataset (diagonal)
    cells is left out with the reason, and an off-diagonal cell any remaining system lacks is
    left out for every system, so all systems are compared on the same cells.

    Args:
        systems: system name -> ``(train, test)`` -> document key -> score.
        datasets: the datasets, in row/column order (each both a train and a test dataset).
        missing: ``"error"`` or ``"exclude"``.
        left_out: systems already left out by the caller (kept first in the report).
        tests: run the paired tests (the heat maps need none).
        resamples: random sign patterns per test when it is not exact.
        seed: the tests' seed.

    Returns:
        A :class:`CrossDatasetReport`.

    Raises:
        CrossDatasetError: a bad rule, a missing cell under ``"error"``, a cell naming a dataset
            outside ``datasets``, an empty cell, a bad score or a non-positive in-dataset score
            (each a ``MetricsError``, a 400 in the API).
    """
    if missing not in MISSING_RULES:
        raise CrossDatasetError(f"missing must be one of {MISSING_RULES}, got {missing!r}")
    order = tuple(datasets)
    left = list(left_out)
    kept: dict[str, Mapping] = {}
    for name in sorted(systems):
        cells = systems[name]
        lacking = [d for d in order if (d, d) not in cells]
        if lacking and missing == MISSING_EXCLUDE:
            left.append(
                LeftOut(
                    system=name,
                    slug="",
                    trained_on="",
                    reason="no in-dataset score on "
                    + ", ".join(lacking)
                    + " (trained and tested on the same dataset): the diagonal cells normalise "
                    "their columns, so they are required",
                )
            )
            continue
        kept[name] = cells
    excluded: tuple[tuple[str, str], ...] = ()
    if missing == MISSING_EXCLUDE:
        excluded = tuple(
            (train, test)
            for train in order
            for test in order
            if any((train, test) not in cells for cells in kept.values())
        )
    used = {
        name: {cell: scores for cell, scores in cells.items() if cell not in excluded}
        for name, cells in kept.items()
    }
    matrices = {
        name: cross_dataset_matrix(cells, system=name, datasets=order, missing=missing)
        for name, cells in used.items()
    }
    ranking = rank_systems(list(matrices.values())) if matrices else None
    results = []
    if tests:
        for a, b in combinations(sorted(matrices), 2):
            results.append(
                pair_tests_compute(a, b, used[a], used[b], resamples=resamples, seed=seed)
            )
    return CrossDatasetReport(
        datasets=order,
        missing=missing,
        matrices=matrices,
        excluded=excluded,
        left_out=tuple(left),
        ranking=ranking,
        tests=tuple(results),
        resamples=resamples,
        seed=seed,
    )


def _rounded(matrix) -> list[list[float | None]]:
    return [list(row) for row in matrix]


def report_data(report: CrossDatasetReport, *, metric: str) -> dict:
    """The report as plain JSON-ready data (the API's body and the command's ``--format json``).

    Args:
        report: a :class:`CrossDatasetReport`.
        metric: the metric's key, echoed.

    Returns:
        ``metric``, ``datasets``, ``missing``, ``excluded``, ``systems`` (per system: U,
        normalised, documents per cell, stiffness, stableness, in-dataset mean, the two
        measures as printed in the paper, ranks, excluded cells), ``left_out``, ``ranking``
        (best first by each measure), ``normalisation`` (which one is ranked and why),
        ``tests``, ``alpha`` and ``test_description``.
    """
    ranks = {r.system: r for r in report.ranking.systems} if report.ranking else {}
    systems = []
    for name, matrix in report.matrices.items():
        rank = ranks[name]
        systems.append(
            {
                "system": name,
                "u": _rounded(matrix.u),
                "normalised": _rounded(matrix.normalised),
                "n_documents": _rounded(matrix.n_documents),
                "stiffness": matrix.stiffness,
                "stableness": matrix.stableness,
                "in_dataset": matrix.in_dataset,
                "stiffness_printed": matrix.stiffness_printed,
                "stableness_printed": matrix.stableness_printed,
                "rank_stiffness": rank.rank_stiffness,
                "rank_stableness": rank.rank_stableness,
                "rank_in_dataset": rank.rank_in_dataset,
                "excluded": [list(cell) for cell in matrix.excluded],
            }
        )
    ranking = {
        measure: list(report.ranking.order(measure)) if report.ranking else []
        for measure in MEASURES
    }
    return {
        "metric": metric,
        "datasets": list(report.datasets),
        "missing": report.missing,
        "excluded": [list(cell) for cell in report.excluded],
        "systems": systems,
        "left_out": [
            {"system": x.system, "slug": x.slug, "trained_on": x.trained_on, "reason": x.reason}
            for x in report.left_out
        ],
        "ranking": ranking,
        "normalisation": NORMALISATION_NOTE,
        "tests": list(report.tests),
        "test": TEST_STIFFNESS_PERMUTATION,
        "wilcoxon_test": TEST_WILCOXON,
        "alpha": ALPHA,
        "test_description": TEST_DESCRIPTION,
    }


def pair_tests_compute(a: str, b: str, cells_a, cells_b, *, resamples: int, seed: int) -> dict:
    """Test one pair both ways (the permutation test and the Wilcoxon tests), as plain data.

    The workers' pair task and the in-process report both call this, on the cells (excluded
    ones already dropped) of the two systems.

    Args:
        a: system A's name.
        b: system B's name.
        cells_a: system A's ``(train, test)`` -> document key -> score.
        cells_b: system B's.
        resamples: sign patterns of the permutation test when it is not exact.
        seed: its seed.

    Returns:
        See :func:`pair_test_data`.
    """
    try:
        outcome = stiffness_permutation_test(
            cells_a, cells_b, shared_only=True, resamples=resamples, seed=seed
        )
    except CrossDatasetError as error:  # fewer than 2 shared units
        outcome = error
    try:
        wilcoxon = cross_dataset_wilcoxon(cells_a, cells_b, shared_only=True)
    except MetricsError as error:  # no shared cell or unit, a missing in-dataset cell
        wilcoxon = error
    return pair_test_data(a, b, outcome, wilcoxon)


def _wilcoxon_data(wilcoxon: CrossDatasetWilcoxon | MetricsError) -> tuple[list[dict], str]:
    if isinstance(wilcoxon, MetricsError):
        return [], str(wilcoxon)
    return [
        {
            "measure": test.measure,
            "reading": test.reading,
            "test": TEST_WILCOXON,
            "statistic": test.result.statistic,
            "p_value": test.result.p_value,
            "n": test.result.n,
            "zeros": test.result.zeros,
            "method": test.result.method,
            "alternative": test.result.alternative,
            "mean_difference": test.result.mean_difference,
        }
        for test in wilcoxon.tests
    ], ""


def pair_test_data(a: str, b: str, outcome, wilcoxon: CrossDatasetWilcoxon | MetricsError) -> dict:
    """One pair's tests as plain data; ``error`` / ``wilcoxon_error`` say why one was not run.

    Args:
        a: system A's name.
        b: system B's name.
        outcome: the core's ``CrossDatasetTestResult``, or the ``CrossDatasetError`` raised.
        wilcoxon: the core's ``CrossDatasetWilcoxon``, or the error raised.

    Returns:
        The permutation test's ``system_a``, ``system_b``, ``test``, ``statistic`` (the
        stiffness difference), ``p_value``, ``n``, ``cells``, ``exact``, ``resamples``,
        ``seed``, ``alternative``, ``dropped_a``, ``dropped_b``, ``error``; then ``wilcoxon``
        (one entry per measure and reading: ``measure``, ``reading``, ``test``, ``statistic``,
        ``p_value``, ``n``, ``zeros``, ``method``, ``alternative``, ``mean_difference``) and
        ``wilcoxon_error``.
    """
    tests, wilcoxon_error = _wilcoxon_data(wilcoxon)
    if isinstance(outcome, CrossDatasetError):
        data = {
            "system_a": a,
            "system_b": b,
            "test": TEST_STIFFNESS_PERMUTATION,
            "statistic": None,
            "p_value": None,
            "n": 0,
            "cells": 0,
            "exact": False,
            "resamples": 0,
            "seed": 0,
            "alternative": "two-sided",
            "dropped_a": 0,
            "dropped_b": 0,
            "error": str(outcome),
        }
    else:
        data = {
            "system_a": a,
            "system_b": b,
            "test": outcome.result.test,
            "statistic": outcome.result.statistic,
            "p_value": outcome.result.p_value,
            "n": outcome.result.n,
            "cells": outcome.cells,
            "exact": outcome.result.exact,
            "resamples": outcome.result.resamples,
            "seed": outcome.result.seed,
            "alternative": outcome.result.alternative,
            "dropped_a": outcome.dropped_a,
            "dropped_b": outcome.dropped_b,
            "error": "",
        }
    return {**data, "wilcoxon": tests, "wilcoxon_error": wilcoxon_error}
