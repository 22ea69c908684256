"""Celery tasks of the job kernel: run, chunk, done and failed of every job type; the watchdog."""

from __future__ import annotations

import logging

from celery import shared_task

from .kernel import (
    job_chunk_run,
    job_dispatch,
    job_done,
    job_fail,
    job_kind_get,
    job_watchdog_sweep,
)

log = logging.getLogger(__name__)


@shared_task(name="loupe.jobs.run", acks_late=True, ignore_result=True)
def job_run_task(kind: str, job_id: int, dispatch: int = 0) -> int:
    """Plan a job (once) and send its unfinished chunks (see ``kernel.job_dispatch``).

    Args:
        kind: the job type's name.
        job_id: the job's primary key.
        dispatch: the job's dispatches when this message was sent.

    Returns:
        How many chunks were sent.
    """
    return job_dispatch(kind=job_kind_get(kind), job_id=job_id, dispatch=dispatch)


@shared_task(name="loupe.jobs.chunk", acks_late=True)
def job_chunk_task(kind: str, job_id: int, chunk_id: int) -> int:
    """Compute one chunk, beating while it runs (see ``kernel.job_chunk_run``).

    Args:
        kind: the job type's name.
        job_id: the job's primary key.
        chunk_id: the chunk's primary key.

    Returns:
        What the type's chunk function returned.
    """
    return job_chunk_run(kind=job_kind_get(kind), job_id=job_id, chunk_id=chunk_id)


@shared_task(name="loupe.jobs.done", acks_late=True)
def job_done_task(results: list[int], kind: str, job_id: int) -> bool:
    """Chord callback: complete the job or send its unfinished chunks again.

    Args:
        results: the chunks' results.
        kind: the job type's name.
        job_id: the job's primary key.

    Returns:
        Whether the job is finished.
    """
    return job_done(kind=job_kind_get(kind), job_id=job_id)


@shared_task(name="loupe.jobs.failed")
def job_failed_task(request, exc, traceback, kind: str, job_id: int) -> None:
    """Chord error callback: record why the job failed.

    Args:
        request: the failed task's request.
        exc: its exception.
        traceback: its traceback.
        kind: the job type's name.
        job_id: the job's primary key.
    """
    job_type = job_kind_get(kind)
    job = job_type.job_model.objects.filter(pk=job_id).first()
    if job is not None:
        job_fail(kind=job_type, job=job, error=f"{type(exc).__name__}: {exc}")


@shared_task(name="loupe.jobs.watchdog", acks_late=False, soft_time_limit=60, time_limit=90)
def job_watchdog_task() -> dict:
    """Celery beat's periodic look at every unfinished job (see ``kernel.job_watchdog_sweep``).

    Returns:
        What it did, by job.
    """
    return job_watchdog_sweep()
