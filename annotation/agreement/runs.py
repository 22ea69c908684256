"""What span and FAM agreement runs share on the job kernel: one chunk (the computation), its
outcome stored with the inputs' digest, failure (the result cleared) and the restart of a run."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

from celery.exceptions import SoftTimeLimitExceeded
from django.db import models, transaction

from annotation.jobs.kernel import JobKind, job_chunk_done, job_fail, job_send_on_commit

from .models import RunStatus

log = logging.getLogger(__name__)

#: Seconds a run's computation may take before it is asked to stop (a hard limit a minute later).
SOFT_TIME_LIMIT = 600
#: What a run stopped by its time limit says.
TIMED_OUT = "stopped: the computation took too long"

#: A queued run younger than this is reused by a new request over the same input (it reads
#: the annotations when it runs); an older one is presumed lost and a new run is queued.
QUEUED_REUSE = timedelta(minutes=15)

Run = TypeVar("Run", bound=models.Model)


@dataclass(frozen=True)
class Outcome:
    """What a run's computation found: the figures, or why there are none; and the digest of
    the inputs it read (None when it failed before reading them)."""

    result: dict | None = None
    error: str = ""
    digest: str | None = None


def _plan(run) -> None:
    """Both agreement kinds' plan: one chunk, the computation."""
    run.chunks.model.objects.create(run=run, index=0)


def _failed(run) -> None:
    """A failed run shows no figures (it runs in the transaction that marks it failed)."""
    run.result = None


def agreement_kind(
    *, name: str, run_model, chunk_model, compute: Callable[[Any], Outcome], related=()
) -> JobKind:
    """The job type of an agreement run: one chunk that computes it and stores the outcome.

    Args:
        name: the type's name.
        run_model: the run model (a ``JobBase``).
        chunk_model: its chunk model (``run`` -> the run).
        compute: reads the run's inputs and computes (``compute(run) -> Outcome``).
        related: relations to load with the run.

    Returns:
        The type (to register).
    """

    def chunk(piece) -> int:
        run = run_model.objects.select_related(*related).get(pk=piece.run_id)
        try:
            outcome = compute(run)
        except SoftTimeLimitExceeded:
            log.exception("%s: %s", run, TIMED_OUT)
            agreement_run_fail(kind=kind, run=run, error=TIMED_OUT)
            return 0
        _store(kind, piece, run, outcome)
        return 1

    kind = JobKind(
        name=name,
        job_model=run_model,
        chunk_model=chunk_model,
        plan=_plan,
        chunk=chunk,
        failed=_failed,
        describe=lambda piece: "the computation",
        label="computation",
        soft_time_limit=SOFT_TIME_LIMIT,
    )
    return kind


@transaction.atomic
def _store(kind: JobKind, piece, run, outcome: Outcome) -> None:
    """Store the outcome and mark the chunk done in one transaction (the kernel then marks a
    run with figures succeeded)."""
    if outcome.error:
        agreement_run_fail(kind=kind, run=run, error=outcome.error, digest=outcome.digest)
    else:
        type(run).objects.filter(pk=run.pk).update(
            result=outcome.result, inputs_digest=outcome.digest
        )
    job_chunk_done(chunk=piece)


@transaction.atomic
def agreement_run_fail(*, kind: JobKind, run: Run, error: str, digest: str | None = None) -> Run:
    """Record that a run failed and why (its result is cleared).

    Args:
        kind: the run's job type.
        run: a span or FAM agreement run.
        error: the message the API shows.
        digest: the digest of the inputs it read, if it read them (else the stored one is kept).

    Returns:
        The failed run.
    """
    if digest:
        type(run).objects.filter(pk=run.pk).update(inputs_digest=digest)
    return job_fail(kind=kind, job=run, error=error)


@transaction.atomic
def agreement_run_restart(*, kind: JobKind, run: Run, queue: bool = True) -> Run:
    """Queue a finished run again, to be computed anew from the annotations as they are then
    (its figures stay until the new ones replace them) and, with ``queue``, send it to the
    workers on commit. An unfinished run is left to the computation under way.

    Args:
        kind: the run's job type.
        run: a span or FAM agreement run.
        queue: send it on commit (False: the caller runs it).

    Returns:
        The run, locked and queued (or unfinished as it was).
    """
    run = type(run).objects.select_for_update().get(pk=run.pk)
    if not run.finished:
        return run
    run.chunks.all().delete()
    run.status = RunStatus.QUEUED
    run.error = ""
    run.started_at = run.finished_at = run.progress_at = None
    run.chunks_total = run.chunks_done = run.dispatches = 0
    run.broker_failed = False
    run.save()
    if queue:
        job_send_on_commit(kind, run.pk)
    return run
