"""Score models: a ScoringJob, its ScoringChunks (the fan-out), the DocumentScores it upserts and
the ErrorBreakdowns of scored span annotations."""

import sys

from django.conf import settings
from django.db import models

from annotation.corpus.models import Dataset, Document
from annotation.fams.models import AnnotationSet, Fam
from annotation.systems.models import OutputVersion
from scoring.metrics.leaderboard import POLYTOPE, POLYTOPE_COUNTS, POLYTOPE_METRICS

# AutoFAR-L (scoring.autofar): a regression estimate of FAR, not clipped, so any finite value.
# The bound is the largest finite float, not infinity: SQLite's SQL has no infinity literal
# (Django writes ``inf``, which SQLite reads as a column name).
AUTOFAR_L = "autofar_l"
FLOAT_MAX = sys.float_info.max


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class JobTrigger(models.TextChoices):
    UPLOAD = "upload", "Outputs uploaded"
    FAMS = "fams", "Gold FAMs changed"
    SPANS = "spans", "Scored error spans changed"
    MANUAL = "manual", "Asked for (button, API or command)"


class ScoringJob(models.Model):
    """One request to (re)compute per-document scores for a dataset's current output versions.

    ``versions`` lists the output versions the job scores; ``ks`` the cut-offs of the FAR family.
    Progress comes from the job's chunks; the counters are kept here so pages can poll one row.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="scoring_jobs")
    versions = models.ManyToManyField(OutputVersion, related_name="scoring_jobs", blank=True)
    trigger = models.CharField(max_length=8, choices=JobTrigger.choices)
    ks = models.JSONField(default=list, help_text="FAR cut-offs to compute, e.g. [3].")
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    chunks_total = models.PositiveIntegerField(default=0)
    chunks_done = models.PositiveIntegerField(default=0)
    outputs_total = models.PositiveIntegerField(default=0)
    scores_written = models.PositiveIntegerField(default=0)
    dispatches = models.PositiveSmallIntegerField(
        default=0, help_text="How many times the chunks were sent to the workers."
    )
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=JobStatus.values), name="scoring_job_status_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(trigger__in=JobTrigger.values), name="scoring_job_trigger_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(chunks_done__lte=models.F("chunks_total")),
                name="scoring_job_chunks_done_le_total",
            ),
        ]

    def __str__(self) -> str:
        return f"scoring job {self.pk} on {self.dataset_id} ({self.status})"

    @property
    def progress(self) -> float:
        """Done share of the chunks, in [0, 1]; 1 for a finished job without chunks."""
        if self.chunks_total:
            return self.chunks_done / self.chunks_total
        return 1.0 if self.status == JobStatus.SUCCEEDED else 0.0

    @property
    def finished(self) -> bool:
        return self.status in (JobStatus.SUCCEEDED, JobStatus.FAILED)


class ScoringChunk(models.Model):
    """A slice of a job's outputs scored by one Celery task; ``done_at`` marks it complete."""

    job = models.ForeignKey(ScoringJob, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    output_ids = models.JSONField()
    scores_written = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=0)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["job", "index"]
        constraints = [
            models.UniqueConstraint(fields=["job", "index"], name="scoring_chunk_index_unique")
        ]

    def __str__(self) -> str:
        return f"chunk {self.index} of job {self.job_id}"


class DocumentScore(models.Model):
    """One metric's value for one document of one output version (upserted, never duplicated).

    ``metric`` is a leaderboard key (``rouge1_f``, ...), with ``@k`` for the FAR family
    (``far@3``). ``fam`` is the FAM the FAR family was computed against. Values are fractions
    in [0, 1] except PolyTope's: its segment score is in percent (at most 100, negative when
    the penalty exceeds the words), and its penalty, words and severity counts are >= 0.
    AutoFAR-L's estimate (``autofar_l``) may be any finite value.
    """

    version = models.ForeignKey(OutputVersion, on_delete=models.CASCADE, related_name="scores")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="scores")
    metric = models.CharField(max_length=24)
    value = models.FloatField()
    fam = models.ForeignKey(Fam, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    job = models.ForeignKey(
        ScoringJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["version", "document", "metric"]
        constraints = [
            models.UniqueConstraint(
                fields=["version", "document", "metric"], name="document_score_unique"
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(metric=POLYTOPE, value__lte=100.0)
                    | models.Q(metric__in=POLYTOPE_COUNTS, value__gte=0.0)
                    | models.Q(metric=AUTOFAR_L, value__gte=-FLOAT_MAX, value__lte=FLOAT_MAX)
                    | (
                        ~models.Q(metric__in=POLYTOPE_METRICS)
                        & models.Q(value__gte=0.0, value__lte=1.0)
                    )
                ),
                name="document_score_value_in_range",
            ),
        ]
        indexes = [models.Index(fields=["version", "metric"], name="document_score_by_metric")]

    def __str__(self) -> str:
        return f"{self.metric}={self.value:.4f} ({self.version} / {self.document_id})"


class ErrorBreakdown(models.Model):
    """The errors of one output's scored span annotation, by type and label (written by a job).

    One row per output version, document and scheme, beside the output's DocumentScore rows
    (``polytope``, ...). ``counts`` is ``{type: {label: n}}`` without empty cells, ``{}`` for an
    output marked clean; ``annotation_set`` is the set that was scored (gold wins over released).
    Outputs nobody annotated have no row.
    """

    version = models.ForeignKey(
        OutputVersion, on_delete=models.CASCADE, related_name="error_breakdowns"
    )
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    scheme = models.CharField(max_length=32)
    annotation_set = models.ForeignKey(
        AnnotationSet, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    counts = models.JSONField(default=dict, blank=True)
    job = models.ForeignKey(
        ScoringJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["version", "document", "scheme"]
        constraints = [
            models.UniqueConstraint(
                fields=["version", "document", "scheme"], name="error_breakdown_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.scheme} errors ({self.version} / {self.document_id})"
