"""Cross-dataset test runs (writes): start one (or reuse the one for the same request and scores),
plan its pairs, test a pair, finish or fail it; and run it in-process."""

from __future__ import annotations

import logging
from datetime import timedelta
from itertools import combinations

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.jobs.kernel import (
    BACKGROUND_PRIORITY,
    JobKind,
    job_chunk_done,
    job_complete,
    job_fail,
    job_kind_register,
    job_plan,
    job_run_inline,
    job_send_on_commit,
)
from config.exceptions import ApplicationError, ConflictError
from scoring.metrics.stats import DEFAULT_SEED

from .models import CrossDatasetPairTest, CrossDatasetTestRun, RunStatus
from .report import pair_tests_compute
from .selectors import (
    CrossDatasetParamsError,
    crossdataset_inputs_digest,
    crossdataset_read,
    crossdataset_request_check,
    crossdataset_request_key,
    crossdataset_scores,
    crossdataset_test_run_latest,
)

log = logging.getLogger(__name__)

#: A queued run younger than this is reused by a new request; an older one is presumed lost
#: (its task never reached a worker), failed, and replaced.
QUEUED_REUSE = timedelta(minutes=15)
NEVER_STARTED = "never started: its task did not reach a worker; a new run was queued"


@transaction.atomic
def crossdataset_test_run_start(
    *,
    metric: str,
    datasets: list[str] | None,
    missing: str,
    resamples: int,
    seed: int = DEFAULT_SEED,
    user=None,
    queue: bool = True,
) -> tuple[CrossDatasetTestRun, bool]:
    """Ask for the paired tests of an evaluation: reuse a run for the same request and scores,
    or queue one (its task goes to the workers when the transaction commits).

    The evaluation is checked first (bad parameters, a missing cell under ``error``, fewer
    than two systems are refused), so a run is only queued for tests that can be computed.

    Args:
        metric: a stored metric key.
        datasets: dataset slugs, or None for the default list.
        missing: ``error`` or ``exclude``.
        resamples: sign patterns per test when it is not exact (100 to 10,000).
        seed: the tests' seed.
        user: who asks.
        queue: send it to the workers on commit (False: the caller runs it in-process).

    Returns:
        ``(run, created)``: the succeeded run with the same request and inputs digest
        (``created`` False), or a new queued run.

    Raises:
        ConflictError: a run for the same request and scores is queued or running (HTTP 409;
            ``extra["run"]`` is its id, to follow it). A queued run older than
            :data:`QUEUED_REUSE` is presumed lost: it is failed and replaced.
        CrossDatasetParamsError: a bad parameter, scores the core refuses, or fewer than two
            systems to compare (HTTP 400).
    """
    chosen = crossdataset_request_check(
        metric=metric, datasets=datasets, missing=missing, resamples=resamples
    )
    report = crossdataset_read(
        metric=metric, datasets=chosen, missing=missing, tests=False, resamples=resamples
    )
    if len(report.matrices) < 2:
        raise CrossDatasetParamsError(
            f"{len(report.matrices)} system(s) on {', '.join(chosen) or 'no dataset'}: the "
            "paired tests need at least two",
            extra={"field": "datasets"},
        )
    key = crossdataset_request_key(
        metric=metric, datasets=chosen, missing=missing, resamples=resamples, seed=seed
    )
    digest = crossdataset_inputs_digest(metric=metric, datasets=chosen)
    for _ in range(3):
        latest = crossdataset_test_run_latest(key=key, inputs_digest=digest)
        if latest is not None and latest.status == RunStatus.SUCCEEDED:
            return latest, False
        if latest is not None and (
            latest.status == RunStatus.RUNNING
            or (
                latest.status == RunStatus.QUEUED
                and latest.created_at >= timezone.now() - QUEUED_REUSE
            )
        ):
            raise ConflictError(
                f"the paired tests of this evaluation are already {latest.status} (run "
                f"{latest.pk}): wait for them to finish",
                extra={"run": latest.pk, "status": latest.status},
            )
        if latest is not None and latest.status == RunStatus.QUEUED:
            crossdataset_test_run_fail(run=latest, error=NEVER_STARTED)
        run = CrossDatasetTestRun(
            key=key,
            inputs_digest=digest,
            metric=metric,
            datasets=chosen,
            missing=missing,
            resamples=resamples,
            seed=seed,
            created_by=user,
        )
        run.full_clean(exclude=["created_by"], validate_constraints=False)
        try:
            with transaction.atomic():
                run.save()
        except IntegrityError:  # another request queued the same run meanwhile: use it
            continue
        if queue:
            job_send_on_commit(CROSSDATASET, run.pk)
        return run, True
    raise ApplicationError("Could not queue the cross-dataset tests; try again.")


def _plan(run: CrossDatasetTestRun) -> None:
    """The cross-dataset kind's plan: fix the run's systems and excluded cells and make one
    row per pair (the scores changed since it was queued: the run fails with the reason).

    Args:
        run: the run (locked by the kernel).
    """
    try:
        report = crossdataset_read(
            metric=run.metric,
            datasets=list(run.datasets),
            missing=run.missing,
            tests=False,
            resamples=run.resamples,
        )
    except CrossDatasetParamsError as error:
        _fail(run, f"the evaluation cannot be computed any more: {error.message}")
        return
    systems = sorted(report.matrices)
    run.plan = {"systems": systems, "excluded": [list(cell) for cell in report.excluded]}
    CrossDatasetPairTest.objects.bulk_create(
        CrossDatasetPairTest(run=run, index=n, system_a=a, system_b=b)
        for n, (a, b) in enumerate(combinations(systems, 2))
    )


def crossdataset_test_run_plan(*, run: CrossDatasetTestRun) -> list[CrossDatasetPairTest]:
    """Fix the run's systems and excluded cells and make one row per pair (once); mark it
    running. A later call (a redelivered task, a re-dispatch) reuses the pairs planned.

    Args:
        run: the run.

    Returns:
        The pairs not done yet, in order (none for a finished run or one that just failed).
    """
    return job_plan(kind=CROSSDATASET, job=run)


def crossdataset_pair_compute(*, pair: CrossDatasetPairTest) -> int:
    """Test one pair (the permutation test and the Wilcoxon tests) and store its result
    (idempotent: a redelivered pair recomputes it).

    The attempt is counted in its own transaction first, so a worker killed mid-test leaves a
    trace (see ``tasks.MAX_PAIR_ATTEMPTS``). The two systems' scores are read again and the
    run's excluded cells dropped, as planned.

    Args:
        pair: the pair's row.

    Returns:
        1 when this call stored the result, 0 when the pair was already done.
    """
    run = pair.run
    names = {pair.system_a, pair.system_b}
    cells, _ = crossdataset_scores(metric=run.metric, datasets=list(run.datasets), names=names)
    excluded = {tuple(cell) for cell in run.plan.get("excluded", [])}
    kept = {
        name: {cell: scores for cell, scores in cells.get(name, {}).items() if cell not in excluded}
        for name in names
    }
    result = pair_tests_compute(
        pair.system_a,
        pair.system_b,
        kept[pair.system_a],
        kept[pair.system_b],
        resamples=run.resamples,
        seed=run.seed,
    )
    with transaction.atomic():
        locked = CrossDatasetPairTest.objects.select_for_update().get(pk=pair.pk)
        if locked.done_at is not None:
            return 0
        job_chunk_done(chunk=locked, chunk_fields={"result": result})
    return 1


def _fail(run: CrossDatasetTestRun, error: str) -> None:
    run.status = RunStatus.FAILED
    run.error = error[:2000]
    run.finished_at = timezone.now()


def _pair(pair: CrossDatasetPairTest) -> int:
    return crossdataset_pair_compute(pair=pair)


CROSSDATASET = job_kind_register(
    JobKind(
        name="crossdataset",
        job_model=CrossDatasetTestRun,
        chunk_model=CrossDatasetPairTest,
        plan=_plan,
        chunk=_pair,
        describe=lambda pair: f"{pair.system_a} vs {pair.system_b}",
        label="pair",
        priority=BACKGROUND_PRIORITY,
    )
)


def crossdataset_test_run_finish(*, run: CrossDatasetTestRun) -> bool:
    """Mark the run succeeded once every pair is done.

    Args:
        run: the run.

    Returns:
        True when the run is finished (now or before); False when pairs are left.
    """
    return job_complete(kind=CROSSDATASET, job=run)


def crossdataset_test_run_fail(*, run: CrossDatasetTestRun, error: str) -> None:
    """Record why the run failed (a finished run is left as it is).

    Args:
        run: the run.
        error: the reason.
    """
    job_fail(kind=CROSSDATASET, job=run, error=error)


def crossdataset_test_run_inline(*, run: CrossDatasetTestRun) -> CrossDatasetTestRun:
    """Run every step in this process, as the workers would (tests, small evaluations).

    Args:
        run: a queued run.

    Returns:
        The run, re-read.
    """
    return job_run_inline(kind=CROSSDATASET, job=run)
