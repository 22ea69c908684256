"""Celery tasks: a cross-dataset test run fans its pairs out with a chord; a callback ends it."""

from __future__ import annotations

import logging

from celery import shared_task

from config.celery import BACKGROUND, chord_failure_task, chord_fan_out, long_job

from .models import CrossDatasetPairTest, CrossDatasetTestRun

log = logging.getLogger(__name__)

LONG_JOB = long_job(soft_time_limit=900, background=True)
# How often a run re-sends pairs that never finished before it gives up.
MAX_DISPATCHES = 4
# A pair started this often without finishing kills its worker each time (say, out of
# memory): the run fails naming it instead of sending it round for ever.
MAX_PAIR_ATTEMPTS = 4


def _run(run_id: int) -> CrossDatasetTestRun | None:
    run = CrossDatasetTestRun.objects.filter(pk=run_id).first()
    if run is None:
        log.warning("cross-dataset test run %s no longer exists; nothing to do", run_id)
    return run


@shared_task(name="loupe.crossdataset.run", **LONG_JOB)
def crossdataset_test_run_task(run_id: int) -> int:
    """Plan the run's pairs (once) and send the unfinished ones to the workers as a chord.

    Args:
        run_id: the run's primary key (re-fetched; a deleted or finished run is a no-op).

    Returns:
        How many pairs were sent.
    """
    from .services import (
        crossdataset_test_run_fail,
        crossdataset_test_run_finish,
        crossdataset_test_run_plan,
    )

    run = _run(run_id)
    if run is None or run.finished:
        return 0
    if run.dispatches >= MAX_DISPATCHES:
        missing = list(run.pairs.filter(done_at__isnull=True).values_list("index", flat=True))
        crossdataset_test_run_fail(
            run=run, error=f"pairs {missing} did not finish after {run.dispatches} dispatches"
        )
        return 0
    try:
        pairs = crossdataset_test_run_plan(run=run)
    except Exception as error:
        crossdataset_test_run_fail(run=run, error=f"{type(error).__name__}: {error}")
        raise
    if not pairs:
        crossdataset_test_run_finish(run=run)
        return 0
    return chord_fan_out(
        [crossdataset_pair_task.s(run_id, pair.pk) for pair in pairs],
        done=crossdataset_test_run_done,
        failed=crossdataset_test_run_failed,
        key=run_id,
    )


@shared_task(name="loupe.crossdataset.pair", **LONG_JOB)
def crossdataset_pair_task(run_id: int, pair_id: int) -> int:
    """Test one pair and store it (idempotent: a redelivered pair recomputes it).

    Args:
        run_id: the run's primary key.
        pair_id: the pair's primary key.

    Returns:
        1 when the result was stored by this call, else 0.
    """
    from .services import crossdataset_pair_compute, crossdataset_test_run_fail

    pair = CrossDatasetPairTest.objects.select_related("run").filter(pk=pair_id).first()
    if pair is None or pair.run_id != run_id or pair.done_at is not None or pair.run.finished:
        return 0
    if pair.attempts >= MAX_PAIR_ATTEMPTS:
        crossdataset_test_run_fail(
            run=pair.run,
            error=f"pair {pair.system_a} vs {pair.system_b} was started {pair.attempts} times "
            "and never finished (its worker died each time)",
        )
        return 0
    return crossdataset_pair_compute(pair=pair)


@shared_task(name="loupe.crossdataset.run_done", **BACKGROUND)
def crossdataset_test_run_done(results: list[int], run_id: int) -> int:
    """Chord callback: finish the run, or re-send the pairs not done yet.

    Args:
        results: per pair, 1 when its task stored the result.
        run_id: the run's primary key.

    Returns:
        How many results this round stored.
    """
    from .services import crossdataset_test_run_finish

    run = _run(run_id)
    if run is not None and not crossdataset_test_run_finish(run=run):
        log.warning("cross-dataset test run %s has unfinished pairs; sending them again", run_id)
        crossdataset_test_run_task.delay(run_id)
    return sum(results)


def _run_failed(run_id: int, error: str) -> None:
    from .services import crossdataset_test_run_fail

    run = _run(run_id)
    if run is not None:
        crossdataset_test_run_fail(run=run, error=error)


crossdataset_test_run_failed = chord_failure_task(
    name="loupe.crossdataset.run_failed",
    record=_run_failed,
    doc="Chord error callback: record why the cross-dataset test run failed.",
)
