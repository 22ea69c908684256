"""What span and FAM agreement runs share: their status changes and their Celery task's body."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import TypeVar

from celery.exceptions import SoftTimeLimitExceeded
from django.db import models, transaction
from django.utils import timezone

from config.celery import long_job

from .models import RunStatus

log = logging.getLogger(__name__)

#: The Celery options of both run tasks (a long job: acks_late, prefetch 1, soft+hard limits).
LONG_JOB = long_job(soft_time_limit=600)

#: A queued run younger than this is reused by a new request over the same input (it reads
#: the annotations when it runs); an older one is presumed lost and a new run is queued.
QUEUED_REUSE = timedelta(minutes=15)

Run = TypeVar("Run", bound=models.Model)


def _locked(run: Run) -> Run:
    return type(run).objects.select_for_update().get(pk=run.pk)


@transaction.atomic
def agreement_run_start(*, run: Run, restart_finished: bool) -> Run | None:
    """Mark a waiting (or interrupted, redelivered) run as running.

    Args:
        run: a span or FAM agreement run.
        restart_finished: whether a finished run is run again (else it is left alone).

    Returns:
        The run, locked and running; None when it finished and is not to run again.
    """
    run = _locked(run)
    if run.finished and not restart_finished:
        return None
    run.status = RunStatus.RUNNING
    run.started_at = timezone.now()
    run.finished_at = None
    run.save(update_fields=["status", "started_at", "finished_at"])
    return run


@transaction.atomic
def agreement_run_fail(*, run: Run, error: str, digest: str | None = None) -> Run:
    """Record that a run failed and why (its result is cleared).

    Args:
        run: a span or FAM agreement run.
        error: the message the API shows.
        digest: the digest of the inputs it read, if it read them (else the stored one is kept).

    Returns:
        The failed run.
    """
    run = _locked(run)
    run.status = RunStatus.FAILED
    run.error = error
    run.result = None
    run.inputs_digest = digest or run.inputs_digest
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "error", "result", "inputs_digest", "finished_at"])
    return run


@transaction.atomic
def agreement_run_succeed(*, run: Run, result: dict, digest: str) -> Run:
    """Store a run's result and the digest of the inputs it read.

    Args:
        run: a span or FAM agreement run.
        result: the JSON-ready figures.
        digest: the inputs' digest.

    Returns:
        The succeeded run.
    """
    run = _locked(run)
    run.status = RunStatus.SUCCEEDED
    run.result = result
    run.inputs_digest = digest
    run.error = ""
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "result", "inputs_digest", "error", "finished_at"])
    return run


def agreement_run_task_body(
    *,
    model: type[Run],
    run_id: int,
    compute: Callable[..., Run],
    fail: Callable[..., Run],
    related: tuple[str, ...] = (),
) -> str:
    """Re-fetch a run, compute it, and record an unexpected error on it (raised again for the
    worker's log); a timeout is recorded as such.

    Args:
        model: the run's model.
        run_id: the run's primary key (a deleted run is a no-op).
        compute: the service computing it (``compute(run=...)``).
        fail: the service failing it (``fail(run=..., error=...)``).
        related: relations to load with the run.

    Returns:
        The run's final status (``"missing"`` for a deleted run).

    Raises:
        SoftTimeLimitExceeded: the computation took too long (the run is failed first).
        Exception: whatever the computation raised unexpectedly (the run is failed first).
    """
    run = model.objects.select_related(*related).filter(pk=run_id).first()
    if run is None:
        log.warning("%s %s no longer exists; nothing to compute", model.__name__, run_id)
        return "missing"
    try:
        return compute(run=run).status
    except SoftTimeLimitExceeded:
        fail(run=run, error="stopped: the computation took too long")
        raise
    except Exception as error:
        fail(run=run, error=f"{type(error).__name__}: {error}")
        raise
