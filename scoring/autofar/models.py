"""AutoFAR models: a fitted model (AutoFarFit), and AutoFAR-L runs fanned out over chunks."""

from django.conf import settings
from django.db import models

from annotation.corpus.models import Dataset
from annotation.jobs.models import ChunkBase, JobBase, JobStatus

RunStatus = JobStatus  # a run's states are a job's


class AutoFarFit(models.Model):
    """An AutoFAR fit (Mao et al. 2020, Table 8) on a dataset with human FAMs.

    ``features`` are the ``scorer@N`` the model kept (in ``weights`` order), ``k`` the FAR
    cut-off every FAR was computed at. ``report`` is ``autofar_report``'s JSON (Tables 6-8)
    plus ``table8_reason`` and ``meta``. ``digest`` is the SHA-256 of every input (documents,
    human FAMs, extracted indices, scorers, Ns, k): an unchanged dataset reuses the fit.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="autofar_fits")
    scorers = models.JSONField(help_text="Scorer names, e.g. ['rouge1-f', 'rouge2-f'].")
    top_ns = models.JSONField(help_text="The N's of the machine FAMs, e.g. [1, 2, 3].")
    k = models.PositiveSmallIntegerField(default=3)
    features = models.JSONField(help_text="The kept features 'scorer@N', in weight order.")
    intercept = models.FloatField()
    weights = models.JSONField(help_text="feature -> coefficient.")
    rmse = models.FloatField()
    r2 = models.FloatField(null=True, blank=True)
    validation_rmse = models.FloatField(null=True, blank=True)
    validation_r2 = models.FloatField(null=True, blank=True)
    validation_reason = models.TextField(blank=True)
    held_out = models.JSONField(default=list, help_text="Leave-one-system-out, per system.")
    report = models.JSONField(help_text="Tables 6-8 (autofar_report) with table8_reason, meta.")
    n_documents = models.PositiveIntegerField()
    n_systems = models.PositiveIntegerField()
    n_rows = models.PositiveIntegerField()
    digest = models.CharField(max_length=64)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "digest"], name="autofar_fit_digest_unique"),
            models.CheckConstraint(
                condition=models.Q(rmse__gte=0.0), name="autofar_fit_rmse_non_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"AutoFAR fit {self.pk} on {self.dataset_id}"


class AutoFarRun(JobBase):
    """One AutoFAR-L run: a fit applied to a target dataset's documents without human FAMs.

    Its chunks (documents) build the machine FAMs, compute every current extractive output's
    FAR under each feature and upsert the ``autofar_l`` key of each output's
    ``DocumentScore``. ``result`` holds the counts (documents, outputs predicted, documents
    without machine support, abstractive systems left out) once it finished.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="autofar_runs")
    fit = models.ForeignKey(AutoFarFit, on_delete=models.PROTECT, related_name="runs")
    documents_total = models.PositiveIntegerField(default=0)
    scores_written = models.PositiveIntegerField(default=0)
    result = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=RunStatus.values), name="autofar_run_status_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(chunks_done__lte=models.F("chunks_total")),
                name="autofar_run_chunks_done_le_total",
            ),
        ]

    def __str__(self) -> str:
        return f"AutoFAR-L run {self.pk} on {self.dataset_id} ({self.status})"


class AutoFarChunk(ChunkBase):
    """A slice of a run's documents computed by one Celery task; ``done_at`` marks it complete.

    ``counts`` holds what the chunk found (outputs predicted, documents without machine
    support, ...) so the run's result is summed from its chunks, never counted twice.
    """

    run = models.ForeignKey(AutoFarRun, on_delete=models.CASCADE, related_name="chunks")
    document_ids = models.JSONField()
    scores_written = models.PositiveIntegerField(default=0)
    counts = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["run", "index"]
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="autofar_chunk_index_unique")
        ]

    def __str__(self) -> str:
        return f"chunk {self.index} of AutoFAR-L run {self.run_id}"
