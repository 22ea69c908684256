"""The job kernel: a long job type is plan + chunk + finish; the kernel does everything else.

A job type registers a :class:`JobKind` naming its run model (a :class:`~.models.JobBase`), its
chunk model (a :class:`~.models.ChunkBase` with ``job`` -> the run, ``related_name="chunks"``)
and three functions:

- ``plan(job)`` creates the job's chunk rows (called once, under the job's row lock);
- ``chunk(chunk)`` computes one chunk idempotently and returns a count; it may call
  :func:`job_chunk_done` inside its own write transaction (else the kernel marks it done after);
- ``finish(job)`` runs in the transaction that marks the job succeeded.

The kernel owns the rest: the on-commit send that survives a broker failure
(:func:`job_send_on_commit`), planning (an error fails the job, whatever its type), the fan-out
of the chunks as a chord with the type's priority, the "already finished" guard of every chunk,
the bounded re-sends, completion, failure, cancel, an in-process runner
(:func:`job_run_inline`), and recovery (:func:`job_watchdog_sweep`, run by Celery beat): chunks
beat while they compute; a chunk whose worker was lost, or chunks the broker lost, are sent
again; a job without a sign of life for ``LOUPE_JOB_STALL_SECONDS`` fails with the reason; a job
that failed only because the broker was unreachable is queued again once it answers.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache, partial
from typing import Any

from celery import chord, current_app, signature
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Max
from django.utils import timezone

from config.exceptions import ConflictError

from .models import FINISHED, JobStatus

log = logging.getLogger(__name__)

RUN, CHUNK, DONE, FAILED = (
    "loupe.jobs.run",
    "loupe.jobs.chunk",
    "loupe.jobs.done",
    "loupe.jobs.failed",
)
# Kombu's Redis priorities: 0 is popped first; a background job's tasks wait behind the rest.
BACKGROUND_PRIORITY = 9


@dataclass(frozen=True)
class JobKind:
    """A job type: its rows and its plan, chunk and finish functions.

    Attributes:
        name: the registry key the tasks carry (``"scoring"``, ``"bias"``, ...).
        job_model: the run model (a ``JobBase``).
        chunk_model: the chunk model (a ``ChunkBase`` with ``job`` -> ``job_model``).
        plan: creates the chunk rows of a job that has none (may set counters on the job).
        chunk: computes one chunk (idempotent) and returns how much it did.
        finish: runs in the transaction that marks the job succeeded (merge, store results).
        after: runs after that transaction commits (warm caches, follow-up jobs).
        complete: replaces the default completion (it must end in :func:`job_complete`).
        waits_for: true while the job must wait (say, for its dataset's scoring job).
        failed: runs in the transaction that marks the job failed.
        describe: names a chunk in messages (default: "<label> <index>").
        label: what a chunk is called in messages ("chunk", "pair").
        priority: the Celery priority of its tasks (0 first, 9 last).
        soft_time_limit: seconds a chunk may take before it is asked to stop.
        max_dispatches: how many rounds of chunks are sent before the job fails.
        max_attempts: how many times one chunk may start without finishing.
    """

    name: str
    job_model: Any
    chunk_model: Any
    plan: Callable[[Any], None]
    chunk: Callable[[Any], int]
    finish: Callable[[Any], None] | None = None
    after: Callable[[Any], None] | None = None
    complete: Callable[[Any], bool] | None = None
    waits_for: Callable[[Any], bool] | None = None
    failed: Callable[[Any], None] | None = None
    describe: Callable[[Any], str] | None = None
    label: str = "chunk"
    priority: int = 0
    soft_time_limit: int = 900
    max_dispatches: int = 4
    max_attempts: int = 4

    def chunk_name(self, chunk) -> str:
        """How messages name ``chunk``."""
        return self.describe(chunk) if self.describe else f"{self.label} {chunk.index}"

    def options(self) -> dict:
        """Celery send options of the type's tasks: its priority and time limits."""
        return {
            "priority": self.priority,
            "soft_time_limit": self.soft_time_limit,
            "time_limit": self.soft_time_limit + 60,
        }


KINDS: dict[str, JobKind] = {}


def job_kind_register(kind: JobKind) -> JobKind:
    """Register a job type (at import of its app's ``jobs`` module).

    Args:
        kind: the type.

    Returns:
        The type, to keep as a module constant.

    Raises:
        ValueError: another type has the name.
    """
    known = KINDS.get(kind.name)
    if known is not None and known.job_model is not kind.job_model:
        raise ValueError(f"job type {kind.name!r} is registered twice")
    KINDS[kind.name] = kind
    return kind


def job_kind_get(name: str) -> JobKind:
    """The registered type called ``name`` (KeyError names the known ones)."""
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"no job type {name!r}; known: {sorted(KINDS)}") from None


@cache
def _parent(chunk_model):
    """The chunk model's foreign key to its job (a ``JobBase``): ``job``, or ``run``, ..."""
    from .models import JobBase

    for field in chunk_model._meta.get_fields():
        model = getattr(field, "related_model", None)
        if field.many_to_one and model is not None and issubclass(model, JobBase):
            return field
    raise TypeError(f"{chunk_model.__name__} has no foreign key to a job")


def _chunk_with_job(kind: JobKind, chunk_id: int):
    parent = _parent(kind.chunk_model).name
    return kind.chunk_model.objects.select_related(parent).filter(pk=chunk_id).first()


def _job_of(chunk):
    return getattr(chunk, _parent(type(chunk)).name)


def _chunks(kind: JobKind, job):
    """The job's chunk rows (whatever the reverse accessor is called: chunks, pairs, ...)."""
    return kind.chunk_model.objects.filter(**{_parent(kind.chunk_model).name: job.pk})


def _get(kind: JobKind, job_id: int):
    job = kind.job_model.objects.filter(pk=job_id).first()
    if job is None:
        log.warning("%s job %s no longer exists; nothing to do", kind.name, job_id)
    return job


def _locked(job):
    return type(job).objects.select_for_update().get(pk=job.pk)


# -- sending --------------------------------------------------------------------------------


def job_send(kind: JobKind, job_id: int, *, dispatch: int = 0, countdown: float | None = None):
    """Send the job's run task; a broker that cannot be reached fails the job, not the caller.

    Args:
        kind: the job's type.
        job_id: the job's primary key.
        dispatch: the job's dispatches when sent (a redelivered older message sends nothing).
        countdown: seconds to wait before it runs.

    Returns:
        True when sent; False when the broker could not be reached (the job is failed with
        ``broker_failed`` set, and the watchdog queues it again once the broker answers).
    """
    try:
        # Nobody waits on the run task's result: without ignore_result, sending subscribes the
        # sender to it on a Redis result backend, which retries a lost connection 20 times
        # (about 40 s of a web request) before the broker's own error comes through.
        signature(RUN, args=(kind.name, job_id, dispatch)).apply_async(
            countdown=countdown, ignore_result=True, **kind.options()
        )
    except Exception as error:  # kombu raises several kinds of connection errors
        log.exception("could not queue %s job %s", kind.name, job_id)
        job = kind.job_model.objects.filter(pk=job_id).first()
        if job is not None:
            job_fail(
                kind=kind,
                job=job,
                error=f"could not reach the task broker: {type(error).__name__}: {error}",
                broker=True,
            )
        return False
    return True


def job_send_on_commit(kind: JobKind, job_id: int) -> None:
    """Send the job's run task once the current transaction commits (see :func:`job_send`).

    Args:
        kind: the job's type.
        job_id: the job's primary key.
    """
    transaction.on_commit(partial(job_send, kind, job_id))


def _fan_out(kind: JobKind, job, chunks: list) -> int:
    """Send ``chunks`` as a chord whose callback completes the job; count the dispatch."""
    options = kind.options()
    header = [signature(CHUNK, args=(kind.name, job.pk, c.pk), **options) for c in chunks]
    done = signature(DONE, args=(kind.name, job.pk), priority=kind.priority)
    chord(header)(done.on_error(signature(FAILED, args=(kind.name, job.pk))))
    kind.job_model.objects.filter(pk=job.pk).update(
        dispatches=F("dispatches") + 1, progress_at=timezone.now()
    )
    return len(header)


# -- planning and dispatch ------------------------------------------------------------------


@transaction.atomic
def job_plan(*, kind: JobKind, job) -> list:
    """Plan the job's chunks (once) and mark it running.

    Args:
        kind: the job's type.
        job: the job.

    Returns:
        The chunks not done yet, in order.
    """
    job = _locked(job)
    if job.finished:
        return []
    if not _chunks(kind, job).exists():
        kind.plan(job)
        job.chunks_total = _chunks(kind, job).count()
    if job.status == JobStatus.QUEUED:
        job.status = JobStatus.RUNNING
        job.started_at = timezone.now()
    job.progress_at = timezone.now()
    job.save()
    return list(_chunks(kind, job).filter(done_at__isnull=True).order_by("index"))


def job_dispatch(*, kind: JobKind, job_id: int, dispatch: int = 0) -> int:
    """The run task: plan the job (once) and send its unfinished chunks as a chord.

    A message whose dispatch was already sent (redelivered after its worker died) sends
    nothing. Planning errors fail the job with the error, for every type.

    Args:
        kind: the job's type.
        job_id: the job's primary key (re-fetched; a deleted or finished job is a no-op).
        dispatch: the job's dispatches when the message was sent.

    Returns:
        How many chunks were sent.
    """
    job = _get(kind, job_id)
    if job is None or job.finished or job.dispatches > dispatch:
        return 0
    if kind.waits_for is not None and kind.waits_for(job):
        # It looks again in a few seconds (the worker is free meanwhile), alive for the watchdog.
        kind.job_model.objects.filter(pk=job_id).update(progress_at=timezone.now())
        job_send(kind, job_id, dispatch=dispatch, countdown=settings.LOUPE_JOB_WAIT_SECONDS)
        return 0
    if job.dispatches >= kind.max_dispatches:
        unfinished = _chunks(kind, job).filter(done_at__isnull=True)
        missing = list(unfinished.values_list("index", flat=True))
        job_fail(
            kind=kind,
            job=job,
            error=f"{kind.label}s {missing} did not finish after {job.dispatches} dispatches",
        )
        return 0
    try:
        chunks = job_plan(kind=kind, job=job)
    except Exception as error:
        job_fail(kind=kind, job=job, error=f"{type(error).__name__}: {error}")
        raise
    if not chunks:
        _complete_or_resend(kind, job)
        return 0
    return _fan_out(kind, job, chunks)


# -- chunks ---------------------------------------------------------------------------------


class _Heartbeat:
    """Updates a chunk's ``heartbeat_at`` every ``every`` seconds from a thread of its own."""

    def __init__(self, model, pk: int, every: float) -> None:
        self._model, self._pk, self._every = model, pk, every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"heartbeat-{pk}", daemon=True)

    def _run(self) -> None:
        try:
            while not self._stop.wait(self._every):
                self._model.objects.filter(pk=self._pk).update(heartbeat_at=timezone.now())
        except Exception:  # a lost database: the watchdog sees the silence
            log.exception("heartbeat of chunk %s stopped", self._pk)
        finally:
            connection.close()

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


@transaction.atomic
def job_chunk_done(*, chunk, chunk_fields: dict | None = None, **counts: int) -> bool:
    """Mark a chunk done and advance its job's progress, the first time only.

    Call it inside the transaction that writes the chunk's results, so both commit together.
    Both updates are one transaction even without one: a worker that dies between them would
    leave the chunk done and the job a chunk short, for good.

    Args:
        chunk: the chunk.
        chunk_fields: further fields of the chunk to set with ``done_at``.
        **counts: job counters to increase (``scores_written=12``).

    Returns:
        True when this call marked it done.
    """
    now = timezone.now()
    first = (
        type(chunk)
        .objects.filter(pk=chunk.pk, done_at__isnull=True)
        .update(done_at=now, **(chunk_fields or {}))
    )
    if first:
        increments = {name: F(name) + value for name, value in counts.items()}
        parent = _parent(type(chunk))
        parent.related_model.objects.filter(pk=getattr(chunk, parent.attname)).update(
            chunks_done=F("chunks_done") + 1, progress_at=now, **increments
        )
    return bool(first)


def _chunk_execute(kind: JobKind, chunk, *, beat: bool) -> int:
    type(chunk).objects.filter(pk=chunk.pk).update(
        attempts=F("attempts") + 1, started_at=timezone.now(), heartbeat_at=timezone.now()
    )
    if beat:
        with _Heartbeat(type(chunk), chunk.pk, settings.LOUPE_JOB_BEAT_SECONDS):
            result = kind.chunk(chunk)
    else:
        result = kind.chunk(chunk)
    job_chunk_done(chunk=chunk)
    return int(result or 0)


def job_chunk_run(*, kind: JobKind, job_id: int, chunk_id: int) -> int:
    """The chunk task: compute one chunk unless it, or its job, is finished.

    Args:
        kind: the job's type.
        job_id: the job's primary key.
        chunk_id: the chunk's primary key.

    Returns:
        What the type's chunk function returned (0 when nothing was done).
    """
    chunk = _chunk_with_job(kind, chunk_id)
    if chunk is None or chunk.done_at is not None:
        return 0
    job = _job_of(chunk)
    if job.pk != job_id or job.finished:
        return 0
    if chunk.attempts >= kind.max_attempts:
        job_fail(
            kind=kind,
            job=job,
            error=f"{kind.chunk_name(chunk)} was started {chunk.attempts} times and never "
            "finished (its worker died each time)",
        )
        return 0
    return _chunk_execute(kind, chunk, beat=True)


# -- completion, failure, cancel ------------------------------------------------------------


def job_complete(*, kind: JobKind, job, hooks: bool = True, after: bool = True) -> bool:
    """Mark the job succeeded if every chunk is done, running ``finish`` in that transaction
    and ``after`` once it commits.

    Args:
        kind: the job's type.
        job: the job.
        hooks: run ``finish`` and ``after`` (False: only the state).
        after: run ``after`` (False: in-process runs, which send no follow-up tasks).

    Returns:
        True when the job is (now) finished; False when chunks are still missing.
    """
    with transaction.atomic():
        job = _locked(job)
        if job.finished:
            return True
        if _chunks(kind, job).filter(done_at__isnull=True).exists():
            return False
        job.status = JobStatus.SUCCEEDED
        job.chunks_done = job.chunks_total
        job.finished_at = job.progress_at = timezone.now()
        job.error = ""
        job.save()
        if hooks and kind.finish is not None:
            kind.finish(job)  # sees the job succeeded; an error rolls the success back
    if hooks and after and kind.after is not None:
        kind.after(job)
    return True


def _complete_or_resend(kind: JobKind, job) -> bool:
    finished = (kind.complete or partial(job_complete, kind=kind))(job=job)
    if not finished:
        job = _get(kind, job.pk)
        if job is not None and not job.finished:
            log.warning("%s job %s has unfinished chunks; sending them again", kind.name, job.pk)
            job_send(kind, job.pk, dispatch=job.dispatches)
    return finished


def job_done(*, kind: JobKind, job_id: int) -> bool:
    """The chord callback: complete the job when every chunk is done.

    Each chunk of the chord returned, so it is done; chunks still open belong to another
    dispatch (the watchdog's re-send of a lost worker's chunk), whose callback completes the
    job, or which the watchdog sends again.

    Args:
        kind: the job's type.
        job_id: the job's primary key (re-fetched; a finished job is a no-op).

    Returns:
        Whether the job is finished.
    """
    job = _get(kind, job_id)
    if job is None or job.finished:
        return True
    finished = (kind.complete or partial(job_complete, kind=kind))(job=job)
    if not finished:
        log.info("%s job %s: chunks of another dispatch still open", kind.name, job_id)
    return finished


@transaction.atomic
def job_fail(*, kind: JobKind, job, error: str, broker: bool = False):
    """Record that a job failed and why (a succeeded or cancelled job stays so).

    Args:
        kind: the job's type.
        job: the job.
        error: the message shown on the pages and the API.
        broker: it failed only because the broker could not be reached.

    Returns:
        The job as stored.
    """
    job = _locked(job)
    if job.status in (JobStatus.SUCCEEDED, JobStatus.CANCELLED):
        return job
    job.status = JobStatus.FAILED
    job.error = error[:5000]
    job.broker_failed = broker
    job.finished_at = timezone.now()
    if kind.failed is not None:
        kind.failed(job)
    job.save()
    return job


@transaction.atomic
def job_cancel(*, kind: JobKind, job, reason: str = "cancelled"):
    """Cancel an unfinished job: its queued and later chunks do nothing.

    Args:
        kind: the job's type.
        job: the job.
        reason: the text stored as its error.

    Returns:
        The job as stored.
    """
    job = _locked(job)
    if not job.finished:
        job.status = JobStatus.CANCELLED
        job.error = reason[:5000]
        job.finished_at = timezone.now()
        job.save()
    return job


def job_run_inline(*, kind: JobKind, job, hooks: bool = True):
    """Run a job in this process, chunk by chunk (management commands' ``--sync``).

    Args:
        kind: the job's type.
        job: the job (queued, or left running by a worker).
        hooks: run the type's ``finish`` (see :func:`job_complete`); ``after``, which sends
            follow-up tasks to the workers, never runs here.

    Returns:
        The finished job.

    Raises:
        Exception: what planning or a chunk raised (the job is failed with it first, when
        this call owned it).
    """
    owned = job.status == JobStatus.QUEUED  # a running job belongs to a worker too
    try:
        for chunk in job_plan(kind=kind, job=job):
            _chunk_execute(kind, _chunk_with_job(kind, chunk.pk), beat=False)
    except Exception as error:
        if owned:
            job_fail(kind=kind, job=job, error=f"{type(error).__name__}: {error}")
        raise
    job_complete(kind=kind, job=job, hooks=hooks, after=False)
    job.refresh_from_db()
    return job


# -- recovery -------------------------------------------------------------------------------


def _queue_size() -> int | None:
    """Messages waiting in the default queue (every priority), or None if it cannot be read."""
    try:
        with current_app.connection_for_read() as conn:
            queue = settings.CELERY_TASK_DEFAULT_QUEUE
            return conn.default_channel.queue_declare(queue, passive=True).message_count
    except Exception:
        return None


def _last_sign(kind: JobKind, job) -> datetime:
    beat = _chunks(kind, job).filter(done_at__isnull=True).aggregate(at=Max("heartbeat_at"))["at"]
    signs = [t for t in (job.progress_at, job.started_at, job.created_at, beat) if t is not None]
    return max(signs)


def _recover(kind: JobKind, job_id: int, now: datetime, workers_busy: bool) -> str | None:
    """One job's look: re-send what was lost, or fail it when it stalled. Returns what it did."""
    lost_after = timedelta(seconds=settings.LOUPE_JOB_LOST_SECONDS)
    resend_after = timedelta(seconds=settings.LOUPE_JOB_RESEND_SECONDS)
    stall_after = timedelta(seconds=settings.LOUPE_JOB_STALL_SECONDS)
    with transaction.atomic():
        job = kind.job_model.objects.select_for_update(skip_locked=True).filter(pk=job_id).first()
        if job is None or job.status not in (JobStatus.QUEUED, JobStatus.RUNNING):
            return None
        quiet = now - _last_sign(kind, job)
        open_chunks = _chunks(kind, job).filter(done_at__isnull=True)
        lost = list(open_chunks.filter(started_at__isnull=False, heartbeat_at__lt=now - lost_after))
        unsent = [] if workers_busy else list(open_chunks.filter(started_at__isnull=True))
        if job.recoveries >= settings.LOUPE_JOB_MAX_RECOVERIES and (lost or quiet > stall_after):
            error = f"gave up after {job.recoveries} recoveries: {job.recovery_note}"
            job_fail(kind=kind, job=job, error=error)
            return "failed"
        if lost or (job.status == JobStatus.RUNNING and unsent and quiet > resend_after):
            resent = lost + unsent
            type(resent[0]).objects.filter(pk__in=[c.pk for c in resent]).update(
                started_at=None, heartbeat_at=None
            )
            why = "a worker was lost" if lost else "the broker lost them"
            noun = kind.label if len(resent) == 1 else f"{kind.label}s"
            note = f"re-sent {len(resent)} {noun} after {why}"
            _record_recovery(job, note, now)
            transaction.on_commit(partial(_fan_out, kind, job, resent))
            return note
        if job.status == JobStatus.RUNNING and not open_chunks.exists() and quiet > resend_after:
            # Every chunk is done but the chord's callback never came (its counter was lost).
            _record_recovery(job, "completed after its callback was lost", now)
            done = signature(DONE, args=(kind.name, job.pk), priority=kind.priority)
            transaction.on_commit(partial(_send_quietly, done))
            return "completed"
        if job.status == JobStatus.QUEUED and quiet > resend_after and not workers_busy:
            _record_recovery(job, "queued again after the broker lost it", now)
            transaction.on_commit(partial(job_send, kind, job.pk, dispatch=job.dispatches))
            return "requeued"
        if quiet > stall_after and not workers_busy:
            seconds = int(quiet.total_seconds())
            job_fail(
                kind=kind,
                job=job,
                error=f"no progress for {seconds} s (limit LOUPE_JOB_STALL_SECONDS="
                f"{settings.LOUPE_JOB_STALL_SECONDS}): no worker took its work; are the "
                "workers running?",
            )
            return "failed"
    return None


def _send_quietly(task) -> None:
    try:
        task.apply_async()
    except Exception:  # the broker is down again: the next sweep tries again
        log.exception("watchdog could not send %s", task)


def _record_recovery(job, note: str, now: datetime) -> None:
    job.recoveries += 1
    job.recovery_note = note[:300]
    job.progress_at = now
    job.save(update_fields=["recoveries", "recovery_note", "progress_at"])
    log.warning("%s: %s", job, note)


def _requeue(kind: JobKind, job_id: int) -> bool:
    """Queue again a job that failed because the broker could not be reached."""
    with transaction.atomic():
        job = kind.job_model.objects.select_for_update(skip_locked=True).filter(pk=job_id).first()
        if job is None or job.status != JobStatus.FAILED or not job.broker_failed:
            return False
        job.status = JobStatus.QUEUED
        job.error, job.broker_failed, job.finished_at = "", False, None
        job.progress_at = timezone.now()
        job.recoveries += 1
        job.recovery_note = "queued again once the task broker answered"
        job.save()
    return job_send(kind, job_id, dispatch=job.dispatches)


def job_watchdog_sweep(*, now: datetime | None = None) -> dict[str, list]:
    """Look at every unfinished job of every type once (the beat task calls it).

    Each job is looked at on its own (an error in one is logged, the sweep goes on), under its
    row lock, skipping a job another sweep holds. Jobs failed only for the broker are queued
    again when it answers.

    Args:
        now: the time to judge by (default: now).

    Returns:
        ``{"<kind>:<id>": what was done}`` for the jobs it acted on.
    """
    now = now or timezone.now()
    size = _queue_size()
    busy = bool(size) and _anyone_progressed(now)
    acted: dict[str, list] = {}
    for kind in KINDS.values():
        open_ids = kind.job_model.objects.filter(
            status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
        ).values_list("pk", flat=True)
        for job_id in list(open_ids):
            try:
                done = _recover(kind, job_id, now, busy)
            except Exception:
                log.exception("watchdog: %s job %s", kind.name, job_id)
                continue
            if done:
                acted[f"{kind.name}:{job_id}"] = done
        broken = kind.job_model.objects.filter(status=JobStatus.FAILED, broker_failed=True)
        for job_id in list(broken.values_list("pk", flat=True)):
            try:
                if _requeue(kind, job_id):
                    acted[f"{kind.name}:{job_id}"] = "requeued"
            except Exception:
                log.exception("watchdog: requeue of %s job %s", kind.name, job_id)
    return acted


def _anyone_progressed(now: datetime) -> bool:
    """Some job of any type showed a sign of life lately: the workers are alive and busy."""
    since = now - timedelta(seconds=settings.LOUPE_JOB_STALL_SECONDS)
    for kind in KINDS.values():
        if (
            kind.job_model.objects.filter(progress_at__gte=since)
            .exclude(status__in=FINISHED)
            .exists()
        ):
            return True
        if kind.chunk_model.objects.filter(heartbeat_at__gte=since, done_at__isnull=True).exists():
            return True
    return False


def job_unfinished_refuse(
    *, jobs, label: str, of: str, stale_after: timedelta | None = None
) -> Any | None:
    """Refuse a second job while one of ``jobs`` is queued or running (a start service's 409).

    Args:
        jobs: the jobs that would clash (e.g. one dataset's APES runs).
        label: what one is called in the message ("APES run").
        of: what they belong to, for the message (the dataset's slug).
        stale_after: a queued job older than this is presumed lost and does not refuse.

    Returns:
        The newest unfinished job when it does not refuse (a stale queued one), else None.

    Raises:
        ConflictError: an unfinished job exists (HTTP 409; ``extra`` names it, to follow it).
    """
    pending = jobs.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING]).order_by("-id").first()
    if pending is None:
        return None
    stale = (
        stale_after is not None
        and pending.status == JobStatus.QUEUED
        and pending.created_at < timezone.now() - stale_after
    )
    if stale:
        return pending
    raise ConflictError(
        f"{label} {pending.pk} of {of} is already {pending.status}: wait for it to finish",
        extra={"run": pending.pk, "status": pending.status},
    )
