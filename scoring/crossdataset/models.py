"""Cross-dataset models: a run of the paired tests between systems and one row per pair tested.

The U matrices, stiffness and stableness are means: the API computes them on request. The paired
permutation tests resample every (train, test, document) unit thousands of times, so they run
on the workers, one Celery task per pair, and are stored here with the digest of their inputs.
"""

from django.conf import settings
from django.db import models

from annotation.jobs.models import ChunkBase, JobBase, JobStatus

# A run's states are a scoring job's: queued, running, succeeded, failed.
RunStatus = JobStatus


class CrossDatasetTestRun(JobBase):
    """The paired tests of one request (metric, datasets, rule, resamples, seed) on the scores
    whose digest is ``inputs_digest``.

    ``key`` is the digest of the request; ``plan`` fixes, when the run is planned, the systems
    and the cells excluded for every system. A GET of the evaluation shows the tests of the
    latest succeeded run with the same key and the current inputs digest.
    """

    key = models.CharField(max_length=64)
    inputs_digest = models.CharField(max_length=64)
    metric = models.CharField(max_length=24)
    datasets = models.JSONField(default=list)
    missing = models.CharField(max_length=8)
    resamples = models.PositiveIntegerField()
    seed = models.PositiveIntegerField(default=0)
    plan = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=RunStatus.values),
                name="crossdataset_run_status_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(chunks_done__lte=models.F("chunks_total")),
                name="crossdataset_run_pairs_done_le_total",
            ),
            models.UniqueConstraint(
                fields=["key", "inputs_digest"],
                condition=models.Q(status__in=["queued", "running"]),
                name="crossdataset_run_one_pending_per_request",
            ),
        ]
        indexes = [models.Index(fields=["key", "inputs_digest"], name="crossdataset_run_lookup")]

    @property
    def pairs_total(self) -> int:
        """The pairs planned (the kernel's chunks)."""
        return self.chunks_total

    @property
    def pairs_done(self) -> int:
        """The pairs tested (the kernel's chunks done)."""
        return self.chunks_done

    def __str__(self) -> str:
        return f"cross-dataset test run {self.pk} ({self.metric}, {self.status})"


class CrossDatasetPairTest(ChunkBase):
    """One pair's paired test in a run (upserted by its task; ``done_at`` marks it complete).

    ``result`` holds the test as the API shows it (statistic, p, units, cells, ...).
    """

    run = models.ForeignKey(CrossDatasetTestRun, on_delete=models.CASCADE, related_name="pairs")
    system_a = models.CharField(max_length=200)
    system_b = models.CharField(max_length=200)
    result = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["run", "index"]
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="crossdataset_pair_index_unique")
        ]

    def __str__(self) -> str:
        return f"{self.system_a} vs {self.system_b} (run {self.run_id})"
