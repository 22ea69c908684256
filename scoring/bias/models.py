"""Bias models: a BiasRun over a dataset, its BiasChunks (the fan-out, with partial sums) and
one BiasSourceRow of means per source (the references, then each system)."""

from django.conf import settings
from django.db import models

from annotation.corpus.models import Dataset
from annotation.jobs.models import ChunkBase, JobBase
from annotation.jobs.models import JobStatus as RunStatus  # a run's states are a job's
from annotation.systems.models import OutputVersion


class RunTrigger(models.TextChoices):
    IMPORT = "import", "Dataset imported"
    UPLOAD = "upload", "Outputs uploaded"
    MANUAL = "manual", "Asked for (button, API or command)"


class BiasRun(JobBase):
    """One computation of a dataset's bias measures: its references and every system's current
    output version (fixed when the run is planned, ``versions``).

    ``inputs_digest`` is the digest of what the run read (documents, references, outputs of
    those versions): a later run over the same digest reuses this one's rows
    (``reused_from``) instead of computing them again. Progress comes from the chunks.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="bias_runs")
    trigger = models.CharField(max_length=8, choices=RunTrigger.choices)
    versions = models.ManyToManyField(OutputVersion, related_name="bias_runs", blank=True)
    inputs_digest = models.CharField(max_length=64, blank=True)
    reused_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    bins = models.PositiveSmallIntegerField(default=10)
    documents_total = models.PositiveIntegerField(default=0)
    pairs_total = models.PositiveIntegerField(default=0)
    meta = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=RunStatus.values), name="bias_run_status_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(trigger__in=RunTrigger.values), name="bias_run_trigger_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(chunks_done__lte=models.F("chunks_total")),
                name="bias_run_chunks_done_le_total",
            ),
            models.CheckConstraint(condition=models.Q(bins__gte=1), name="bias_run_bins_positive"),
            models.UniqueConstraint(
                fields=["dataset"],
                condition=models.Q(status="queued"),
                name="bias_run_one_queued_per_dataset",
            ),
        ]

    def __str__(self) -> str:
        return f"bias run {self.pk} on {self.dataset_id} ({self.status})"


class BiasChunk(ChunkBase):
    """A slice of a run's documents, scored by one Celery task for every source.

    ``sums`` holds the chunk's partial result, ``{source: {"kind", "sums": BiasSums}}``, written
    with ``done_at``: a rerun after a lost worker redoes only the chunks without it.
    """

    run = models.ForeignKey(BiasRun, on_delete=models.CASCADE, related_name="chunks")
    document_ids = models.JSONField()
    sums = models.JSONField(null=True, blank=True)
    pairs = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["run", "index"]
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="bias_chunk_index_unique")
        ]

    def __str__(self) -> str:
        return f"chunk {self.index} of bias run {self.run_id}"


class SourceKind(models.TextChoices):
    REFERENCE = "reference", "Reference"
    EXTRACTIVE = "extractive", "Extractive"
    ABSTRACTIVE = "abstractive", "Abstractive"


class BiasSourceRow(models.Model):
    """The mean bias measures of one source of a finished run (see ``scoring.metrics.bias``).

    ``source`` is ``reference`` or the system's slug; rows are ordered by ``position``
    (references first, then systems by slug). ``novel``, ``repeated`` and ``ngram_counts``
    are indexed by n-gram order - 1; ``position_histogram`` holds the run's ``bins`` shares.
    """

    run = models.ForeignKey(BiasRun, on_delete=models.CASCADE, related_name="rows")
    position = models.PositiveSmallIntegerField()
    source = models.CharField(max_length=64)
    kind = models.CharField(max_length=12, choices=SourceKind.choices)
    version = models.ForeignKey(
        OutputVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    n_items = models.PositiveIntegerField()
    n_empty_summaries = models.PositiveIntegerField(default=0)
    coverage = models.FloatField()
    density = models.FloatField()
    compression = models.FloatField()
    copy_length = models.FloatField()
    novel = models.JSONField()
    repeated = models.JSONField()
    ngram_counts = models.JSONField()
    fusion = models.FloatField(null=True, blank=True)
    mean_position = models.FloatField(null=True, blank=True)
    position_histogram = models.JSONField()

    class Meta:
        ordering = ["run", "position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "source"], name="bias_row_source_unique"),
            models.CheckConstraint(
                condition=models.Q(kind__in=SourceKind.values), name="bias_row_kind_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(coverage__gte=0.0, coverage__lte=1.0),
                name="bias_row_coverage_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source} of bias run {self.run_id}"
