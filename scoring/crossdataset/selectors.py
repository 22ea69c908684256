"""Cross-dataset selectors (reads): stored per-document scores to the core's U matrices.

A CDEvalSumm system is the set of Loupe ``System`` rows that share a ``name``; each row has one
``trained_on`` (a dataset slug) and output versions on several test datasets. ``U[train][test]``
is the mean, over the test dataset's scored documents, of the chosen metric's ``DocumentScore``
rows of the current output version of the row trained on ``train``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict

from django.db.models import Count, Max

from annotation.corpus.models import Dataset
from annotation.systems.models import System
from config.exceptions import ApplicationError
from scoring.leaderboards.selectors.board import METRICS
from scoring.metrics.crossdataset import MISSING_ERROR, MISSING_RULES, CrossDatasetError
from scoring.metrics.leaderboard import FAR_MEASURES, POLYTOPE
from scoring.metrics.stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from scoring.scores.models import DocumentScore
from scoring.scores.selectors import document_score_list, output_version_current_list

from .report import CrossDatasetReport, LeftOut, crossdataset_report

# The metrics the page offers first; the FAR family at any cut-off k (``far@5``) is accepted.
DEFAULT_METRIC = "rouge1_f"
FAR_KEY = re.compile(r"^(?P<measure>[a-z0-9]+)@(?P<k>[1-9][0-9]?)$")
MAX_RESAMPLES = 10_000
MIN_RESAMPLES = 100
# Which tests a run computes, part of its request key: a run stored before the Wilcoxon tests
# were added (1: the permutation test only) is not shown for a new request, which queues a run.
TESTS_COMPUTATION = 2


class CrossDatasetParamsError(ApplicationError):
    """A bad metric, dataset list, missing-cell rule, or scores the core refuses (HTTP 400)."""


def crossdataset_metrics() -> tuple[str, ...]:
    """The metric keys a cross-dataset evaluation may use (the leaderboard's, FAR at k = 3).

    Returns:
        Leaderboard metric keys, the FAR family as ``far@3`` etc., then PolyTope.
    """
    keys = [f"{m}@3" if m in FAR_MEASURES else m for m in METRICS]
    return tuple(dict.fromkeys([*keys, POLYTOPE]))


def crossdataset_check_metric(metric: str) -> str:
    """Refuse a metric key Loupe does not store.

    Args:
        metric: a leaderboard key (``rouge1_f``), or a FAR-family key at a cut-off (``far@5``).

    Returns:
        The key.

    Raises:
        CrossDatasetParamsError: an unknown key (the message lists the known ones).
    """
    far = FAR_KEY.match(metric or "")
    if far and far["measure"] in FAR_MEASURES and int(far["k"]) <= 50:
        return metric
    known = crossdataset_metrics()
    if metric in known and not FAR_KEY.match(metric):
        return metric
    raise CrossDatasetParamsError(
        f"unknown metric {metric!r}; use one of {', '.join(known)} (the FAR family at any "
        "k from 1 to 50, e.g. far@5)",
        extra={"field": "metric"},
    )


def crossdataset_datasets_default() -> list[str]:
    """Every dataset that is both a training and a test set, by slug.

    A training set is a dataset some system names as ``trained_on``; a test set is one on
    which such a system has outputs.

    Returns:
        Dataset slugs.
    """
    trained = set(System.objects.exclude(trained_on="").values_list("trained_on", flat=True))
    tested = set(
        Dataset.objects.filter(output_versions__system__trained_on__gt="")
        .values_list("slug", flat=True)
        .distinct()
    )
    return sorted(trained & tested)


def crossdataset_check_datasets(slugs: list[str] | None) -> list[str]:
    """The chosen datasets, checked: known slugs, no repeats (None: the default list).

    Args:
        slugs: dataset slugs in row/column order, or None.

    Returns:
        The slugs.

    Raises:
        CrossDatasetParamsError: an unknown or repeated slug.
    """
    if slugs is None:
        return crossdataset_datasets_default()
    if len(set(slugs)) != len(slugs):
        raise CrossDatasetParamsError(
            f"datasets repeats a dataset: {', '.join(slugs)}", extra={"field": "datasets"}
        )
    known = set(Dataset.objects.filter(slug__in=slugs).values_list("slug", flat=True))
    unknown = [s for s in slugs if s not in known]
    if unknown:
        raise CrossDatasetParamsError(
            f"no dataset {', '.join(map(repr, unknown))} in Loupe", extra={"field": "datasets"}
        )
    return list(slugs)


def _versions_plan(
    *, datasets: list[str]
) -> tuple[dict[int, tuple[str, str, str]], list[LeftOut], list[str]]:
    """The current output versions that make cells: version id -> (name, train, test).

    Returns:
        ``(cells by version id, left-out rows, names of the systems kept)``.
    """
    chosen = set(datasets)
    rows: dict[tuple[str, str], list[System]] = defaultdict(list)
    left: list[LeftOut] = []
    tested = System.objects.filter(versions__isnull=False).distinct().order_by("name", "slug")
    for system in tested:
        if not system.trained_on:
            reason = "no training dataset given (trained_on is blank)"
        elif system.trained_on not in chosen:
            reason = f"trained on {system.trained_on!r}, not one of the chosen datasets"
        else:
            rows[(system.name, system.trained_on)].append(system)
            continue
        left.append(LeftOut(system.name, system.slug, system.trained_on, reason))
    by_id: dict[int, System] = {}
    for (name, train), systems in rows.items():
        if len(systems) > 1:
            slugs = ", ".join(s.slug for s in systems)
            for s in systems:
                left.append(
                    LeftOut(
                        name,
                        s.slug,
                        train,
                        f"{len(systems)} systems named {name!r} are trained on {train!r} "
                        f"({slugs}); rename all but one",
                    )
                )
            continue
        by_id[systems[0].pk] = systems[0]
    version_cell: dict[int, tuple[str, str, str]] = {}
    for dataset in Dataset.objects.filter(slug__in=datasets):
        for version in output_version_current_list(dataset=dataset):
            system = by_id.get(version.system_id)
            if system is not None:
                version_cell[version.pk] = (system.name, system.trained_on, dataset.slug)
    return version_cell, left, sorted({s.name for s in by_id.values()})


def crossdataset_scores(
    *, metric: str, datasets: list[str], names: set[str] | None = None
) -> tuple[dict[str, dict[tuple[str, str], dict[int, float]]], list[LeftOut]]:
    """Per system name, its ``(train, test) -> document id -> score`` cells from the database.

    A cell exists when the row trained on ``train`` has a current output version on ``test``
    with at least one score of ``metric``. Rows with a blank ``trained_on``, one outside
    ``datasets``, or a name and ``trained_on`` another row shares are left out with the reason.

    Args:
        metric: the stored metric key.
        datasets: the chosen dataset slugs.
        names: read only these systems' scores (all when None).

    Returns:
        ``(cells by system name, left-out rows)``; names and rows in name then slug order.
    """
    version_cell, left, kept = _versions_plan(datasets=datasets)
    if names is not None:
        kept = [name for name in kept if name in names]
        version_cell = {v: cell for v, cell in version_cell.items() if cell[0] in names}
    cells: dict[str, dict[tuple[str, str], dict[int, float]]] = {name: {} for name in kept}
    for version_id, document_id, _, value in document_score_list(
        version_ids=version_cell, metrics=[metric]
    ):
        name, train, test = version_cell[version_id]
        cells[name].setdefault((train, test), {})[document_id] = value
    return cells, left


def crossdataset_inputs_digest(*, metric: str, datasets: list[str]) -> str:
    """A digest that changes whenever the scores an evaluation reads change.

    It covers which current output versions make which cells (system name, train, test) and,
    per version, how many ``metric`` scores it has and when the last was written.

    Args:
        metric: the stored metric key.
        datasets: the chosen dataset slugs.

    Returns:
        A SHA-256 hex digest.
    """
    version_cell, _, _ = _versions_plan(datasets=datasets)
    stamps = {
        row["version_id"]: (row["n"], row["last"].isoformat() if row["last"] else "")
        for row in DocumentScore.objects.filter(
            version_id__in=list(version_cell), metrics__has_key=metric
        )
        .values("version_id")
        .annotate(n=Count("id"), last=Max("computed_at"))
        .order_by()
    }
    parts = sorted(
        [version, *cell, *stamps.get(version, (0, ""))] for version, cell in version_cell.items()
    )
    text = json.dumps({"metric": metric, "datasets": datasets, "cells": parts})
    return hashlib.sha256(text.encode()).hexdigest()


def crossdataset_request_key(
    *, metric: str, datasets: list[str], missing: str, resamples: int, seed: int
) -> str:
    """The digest of a request's parameters (which paired tests it asks for, computed how:
    :data:`TESTS_COMPUTATION`).

    Returns:
        A SHA-256 hex digest.
    """
    text = json.dumps([metric, list(datasets), missing, resamples, seed, TESTS_COMPUTATION])
    return hashlib.sha256(text.encode()).hexdigest()


def crossdataset_test_run_latest(*, key: str, inputs_digest: str):
    """The newest run for this request and these inputs (succeeded first, else pending/failed).

    Args:
        key: see :func:`crossdataset_request_key`.
        inputs_digest: see :func:`crossdataset_inputs_digest`.

    Returns:
        A ``CrossDatasetTestRun`` or None.
    """
    from .models import CrossDatasetTestRun, RunStatus

    runs = CrossDatasetTestRun.objects.filter(key=key, inputs_digest=inputs_digest)
    done = runs.filter(status=RunStatus.SUCCEEDED).order_by("-finished_at", "-id").first()
    return done or runs.order_by("-created_at", "-id").first()


def crossdataset_test_run_get(*, run_id: int):
    """One test run with its pairs.

    Args:
        run_id: the run's primary key.

    Returns:
        The ``CrossDatasetTestRun``.

    Raises:
        CrossDatasetTestRun.DoesNotExist: no such run (404 in the API).
    """
    from .models import CrossDatasetTestRun

    return CrossDatasetTestRun.objects.prefetch_related("pairs").get(pk=run_id)


def crossdataset_test_run_data(run) -> dict:
    """A run as the API shows it: its state and, once it succeeded, the tests in pair order.

    Args:
        run: a ``CrossDatasetTestRun`` (or None: no run yet).

    Returns:
        ``run``, ``state`` (``none``, ``queued``, ``running``, ``succeeded``, ``failed``),
        ``pairs_done``, ``pairs_total``, ``recoveries``, ``recovery_note``, ``error`` and
        ``tests``.
    """
    if run is None:
        return {
            "run": None,
            "state": "none",
            "pairs_done": 0,
            "pairs_total": 0,
            "recoveries": 0,
            "recovery_note": "",
            "error": "",
            "tests": [],
        }
    tests = []
    if run.status == "succeeded":
        tests = [pair.result for pair in run.pairs.order_by("index")]
    return {
        "run": run.pk,
        "state": run.status,
        "pairs_done": run.pairs_done,
        "pairs_total": run.pairs_total,
        "recoveries": run.recoveries,
        "recovery_note": run.recovery_note,
        "error": run.error,
        "tests": tests,
    }


def crossdataset_request_check(
    *, metric: str, datasets: list[str] | None, missing: str, resamples: int
) -> list[str]:
    """Check a request's parameters.

    Args:
        metric: see :func:`crossdataset_check_metric`.
        datasets: slugs, or None for the default list.
        missing: ``error`` or ``exclude``.
        resamples: sign patterns per paired test (100 to 10,000).

    Returns:
        The chosen datasets.

    Raises:
        CrossDatasetParamsError: a bad parameter.
    """
    crossdataset_check_metric(metric)
    if missing not in MISSING_RULES:
        raise CrossDatasetParamsError(
            f"missing must be one of {', '.join(MISSING_RULES)}, got {missing!r}",
            extra={"field": "missing"},
        )
    if not MIN_RESAMPLES <= resamples <= MAX_RESAMPLES:
        raise CrossDatasetParamsError(
            f"resamples must be from {MIN_RESAMPLES} to {MAX_RESAMPLES}, got {resamples}",
            extra={"field": "resamples"},
        )
    return crossdataset_check_datasets(datasets)


def crossdataset_read(
    *,
    metric: str,
    datasets: list[str] | None = None,
    missing: str = MISSING_ERROR,
    tests: bool = True,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> CrossDatasetReport:
    """The cross-dataset evaluation of every system on the chosen datasets.

    Args:
        metric: a stored metric key (see :func:`crossdataset_check_metric`).
        datasets: dataset slugs in row/column order; None: every dataset that is both a
            training and a test set.
        missing: ``error`` (every cell required) or ``exclude`` (see
            :func:`scoring.crossdataset.report.crossdataset_report`).
        tests: run the paired tests between systems.
        resamples: sign patterns per paired test when it is not exact (100 to 10,000).
        seed: the tests' seed.

    Returns:
        A :class:`CrossDatasetReport` (no systems when no dataset qualifies).

    Raises:
        CrossDatasetParamsError: a bad parameter, or scores the core refuses (a missing cell
            under ``error``, a non-positive in-dataset score, ...), with the core's message.
    """
    chosen = crossdataset_request_check(
        metric=metric, datasets=datasets, missing=missing, resamples=resamples
    )
    cells, left = crossdataset_scores(metric=metric, datasets=chosen)
    try:
        return crossdataset_report(
            systems=cells,
            datasets=chosen,
            missing=missing,
            left_out=left,
            tests=tests,
            resamples=resamples,
            seed=seed,
        )
    except CrossDatasetError as error:
        raise CrossDatasetParamsError(
            f"{error} (metric {metric}; cells are current output versions with {metric} scores)",
            extra={"field": "missing" if "missing" in str(error) else "metric"},
        ) from error
