"""Fields every long job's run and chunk rows share (abstract: each job type keeps its table)."""

from django.db import models


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


FINISHED = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)


class JobBase(models.Model):
    """A run of a long job: its state, progress, error and recovery record.

    ``progress_at`` is the last sign of life (planned, dispatched, a chunk done or beating): the
    watchdog fails a job without one for ``LOUPE_JOB_STALL_SECONDS``. ``broker_failed`` marks a
    job that failed only because the broker could not be reached; it is queued again once it can.
    """

    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    chunks_total = models.PositiveIntegerField(default=0)
    chunks_done = models.PositiveIntegerField(default=0)
    dispatches = models.PositiveSmallIntegerField(
        default=0, help_text="How many times the chunks were sent to the workers."
    )
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    progress_at = models.DateTimeField(null=True, blank=True)
    broker_failed = models.BooleanField(default=False)
    recoveries = models.PositiveIntegerField(
        default=0, help_text="How many times the watchdog re-sent or re-queued the job's work."
    )
    recovery_note = models.CharField(max_length=300, blank=True)

    class Meta:
        abstract = True

    @property
    def finished(self) -> bool:
        """Succeeded, failed or cancelled."""
        return self.status in FINISHED

    @property
    def progress(self) -> float:
        """Done share of the chunks, in [0, 1]; 1 for a succeeded job without chunks."""
        if self.chunks_total:
            return self.chunks_done / self.chunks_total
        return 1.0 if self.status == JobStatus.SUCCEEDED else 0.0


class ChunkBase(models.Model):
    """A slice of a job's work run by one task; ``done_at`` marks it complete.

    A subclass declares ``job = models.ForeignKey(<its job model>, related_name="chunks")``.
    ``started_at``/``heartbeat_at`` are set by the worker running it: a started chunk whose
    heartbeat is older than ``LOUPE_JOB_LOST_SECONDS`` lost its worker and is sent again.
    """

    index = models.PositiveIntegerField()
    attempts = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
