"""Score models: jobs and their chunks, the per-output DocumentScores and their per-version
arrays, and error breakdowns."""

import json
import math
import sys

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from annotation.corpus.models import Dataset, Document
from annotation.fams.models import AnnotationSet, Fam
from annotation.jobs.models import ChunkBase, JobBase, JobStatus
from annotation.systems.models import OutputVersion
from scoring.metrics.leaderboard import POLYTOPE, POLYTOPE_COUNTS
from scoring.metrics.rouge import DEFAULT_ROUGE, RougeConfig, RougeConfigError

# AutoFAR-L (scoring.autofar): a regression estimate of FAR, not clipped, so any finite value.
# The bound is the largest finite float, not infinity: SQLite's SQL has no infinity literal
# (Django writes ``inf``, which SQLite reads as a column name).
AUTOFAR_L = "autofar_l"
FLOAT_MAX = sys.float_info.max
# The longest metric key (as the per-metric rows' column allowed before scores were one row
# per output).
METRIC_MAX_LENGTH = 24


class JobTrigger(models.TextChoices):
    UPLOAD = "upload", "Outputs uploaded"
    FAMS = "fams", "Gold FAMs changed"
    SPANS = "spans", "Scored error spans changed"
    ROUGE = "rouge", "ROUGE settings changed"
    MANUAL = "manual", "Asked for (button, API or command)"


class ScoringJob(JobBase):
    """One request to (re)compute per-document scores for a dataset's current output versions.

    ``versions`` lists the output versions the job scores; ``ks`` the cut-offs of the FAR family.
    Progress comes from the job's chunks; the counters are kept here so pages can poll one row.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="scoring_jobs")
    versions = models.ManyToManyField(OutputVersion, related_name="scoring_jobs", blank=True)
    trigger = models.CharField(max_length=8, choices=JobTrigger.choices)
    ks = models.JSONField(default=list, help_text="FAR cut-offs to compute, e.g. [3].")
    outputs_total = models.PositiveIntegerField(default=0)
    scores_written = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

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


class RougeSettings(models.Model):
    """A dataset's ROUGE: which of rouge-score's types its scoring jobs compute, and how.

    The options are rouge-score's (``RougeScorer(rouge_types, use_stemmer, split_summaries)``,
    see :class:`scoring.metrics.rouge.RougeConfig`); a dataset without a row has Loupe's
    default (stemmed ROUGE-1, -2, -L and -Lsum, sentences on lines). ``revision`` counts the
    changes: a scoring chunk computed with an older one is computed again before it is written.
    """

    dataset = models.OneToOneField(Dataset, on_delete=models.CASCADE, related_name="rouge")
    rouge_types = models.JSONField(
        default=list, help_text='rouge-score\'s types, e.g. ["rouge1", "rougeLsum"].'
    )
    use_stemmer = models.BooleanField(default=DEFAULT_ROUGE.use_stemmer)
    split_summaries = models.BooleanField(default=DEFAULT_ROUGE.split_summaries)
    revision = models.PositiveIntegerField(default=1)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "ROUGE settings"

    def __str__(self) -> str:
        return f"ROUGE of {self.dataset}: {self.config.scorer_call()}"

    @property
    def config(self) -> RougeConfig:
        """The settings as the core's configuration (checked)."""
        return RougeConfig(tuple(self.rouge_types), self.use_stemmer, self.split_summaries)

    def clean(self) -> None:
        """Refuse what rouge-score would refuse (the message names the option)."""
        try:
            self.config  # noqa: B018 - checked by building it
        except RougeConfigError as error:
            raise ValidationError({error.field or "rouge_types": str(error)}) from None


class ScoringChunk(ChunkBase):
    """A slice of a job's outputs scored by one Celery task; ``done_at`` marks it complete."""

    job = models.ForeignKey(ScoringJob, on_delete=models.CASCADE, related_name="chunks")
    output_ids = models.JSONField()
    scores_written = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["job", "index"]
        constraints = [
            models.UniqueConstraint(fields=["job", "index"], name="scoring_chunk_index_unique")
        ]

    def __str__(self) -> str:
        return f"chunk {self.index} of job {self.job_id}"


class ScoreDecoder(json.JSONDecoder):
    """Reads every number as a float: PostgreSQL's jsonb keeps numbers as decimals and writes
    1e300 back as a 301-digit integer, which is the same value but would load as an int."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("parse_int", float)
        super().__init__(*args, **kwargs)


def score_value_problem(metric: str, value) -> str | None:
    """Why a metric's value may not be stored, or None when it may.

    Values are finite fractions in [0, 1] except PolyTope's: its segment score is in percent
    (at most 100, negative when the penalty exceeds the words), and its penalty, words and
    severity counts are >= 0. AutoFAR-L's estimate may be any finite value.

    Args:
        metric: the metric's key (``rouge1_f``, ``far@3``, ...).
        value: its value.

    Returns:
        A message naming the metric and the allowed range, or None.
    """
    if not isinstance(metric, str) or not metric or len(metric) > METRIC_MAX_LENGTH:
        return f"metric {metric!r}: a name of 1 to {METRIC_MAX_LENGTH} characters"
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return f"{metric}={value!r}: not a finite number"
    if metric == POLYTOPE:
        low, high = -FLOAT_MAX, 100.0
    elif metric in POLYTOPE_COUNTS:
        low, high = 0.0, FLOAT_MAX
    elif metric == AUTOFAR_L:
        low, high = -FLOAT_MAX, FLOAT_MAX
    else:
        low, high = 0.0, 1.0
    if not low <= value <= high:
        return f"{metric}={value!r}: out of its range [{low:g}, {high:g}]"
    return None


class DocumentScore(models.Model):
    """Every metric's value for one document of one output version (upserted, never duplicated).

    One row per output, not per output and metric: ``metrics`` maps each metric's key to its
    value. A key is a leaderboard key (``rouge1_f``, ...), with ``@k`` for the FAR family
    (``far@3``); ``fam`` is the FAM the FAR family was computed against (None when the row has
    no FAR key). ``job`` and ``computed_at`` are the last write's. The values' ranges are
    :func:`score_value_problem`'s, checked by ``clean()`` and by the score store, which is the
    only writer (``scoring.scores.services.store``).
    """

    # No index of its own: the unique (version, document) index serves every read by version.
    version = models.ForeignKey(
        OutputVersion, on_delete=models.CASCADE, related_name="scores", db_index=False
    )
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="scores")
    metrics = models.JSONField(default=dict, decoder=ScoreDecoder, help_text="metric key -> value")
    fam = models.ForeignKey(Fam, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    job = models.ForeignKey(
        ScoringJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["version", "document"]
        constraints = [
            models.UniqueConstraint(fields=["version", "document"], name="document_score_unique"),
        ]

    def __str__(self) -> str:
        return f"{len(self.metrics or {})} scores ({self.version} / {self.document_id})"

    def clean(self) -> None:
        """Refuse a ``metrics`` that is not an object of in-range values."""
        if not isinstance(self.metrics, dict):
            raise ValidationError({"metrics": "An object of metric keys to values."})
        problems = [
            p for m, v in self.metrics.items() if (p := score_value_problem(m, v)) is not None
        ]
        if problems:
            raise ValidationError({"metrics": problems})


# The key of a version's array of outputs: 1.0 at each document it has an output for.
OUTPUTS_KEY = ""


class ScoreArray(models.Model):
    """One output version's values of one metric over its dataset's documents, as one array.

    Built from the :class:`DocumentScore` rows when a scoring job is done
    (``scoring.scores.services.arrays``), so that a leaderboard reads a column per metric
    instead of a value per row; the rows stay the record. ``values`` holds little-endian
    float64s, one per document of the dataset in the order ``order`` digests (position, then
    external id), NaN where the version has no value; an array whose ``order`` is not the
    dataset's current one is not used. The :data:`OUTPUTS_KEY` array marks the documents the
    version has outputs for. ``cells`` holds the column's intervals computed when it was built
    (:func:`~scoring.metrics.leaderboard.scope_key` -> ``[mean, low, high, n]``).

    Every write of the version's scores deletes its arrays in the same transaction
    (``scoring.scores.services.store``), so an array never holds a value the rows no longer
    have.
    """

    # No index of its own: the unique (version, key) index begins with the version.
    version = models.ForeignKey(
        OutputVersion, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    key = models.CharField(max_length=METRIC_MAX_LENGTH, blank=True)
    order = models.CharField(max_length=64, help_text="digest of the documents in order")
    count = models.PositiveIntegerField(help_text="documents with a value")
    values = models.BinaryField()
    cells = models.JSONField(default=dict, blank=True)
    built_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["version", "key"]
        constraints = [
            models.UniqueConstraint(fields=["version", "key"], name="score_array_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.key or 'outputs'} of {self.version} ({self.count} documents)"

    def clean(self) -> None:
        """Refuse values that are not whole float64s."""
        if len(self.values or b"") % 8:
            raise ValidationError({"values": "Little-endian float64s (a multiple of 8 bytes)."})


class ErrorBreakdown(models.Model):
    """The errors of one output's scored span annotation, by type and label (written by a job).

    One row per output version, document and scheme, beside the output's DocumentScore row
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
