"""Campaign models: a FAM campaign, its tasks, suggestions (and the job precomputing them), their
log and who has a task open."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from annotation.corpus.models import Dataset, Document
from annotation.fams.models import AnnotationSet
from annotation.jobs.models import ChunkBase, JobBase, JobStatus
from annotation.systems.models import System, SystemOutput
from scoring.metrics.suggest import scorer_names


class CampaignStatus(models.TextChoices):
    """A campaign's state: annotating, then adjudicating, then done (the values are kept)."""

    OPEN = "open", "Annotating"
    ADJUDICATION = "adjudication", "Adjudicating"
    CLOSED = "closed", "Done"


# Which states a campaign may move to from each state: back from adjudication to annotating is
# allowed (more annotation was needed); done is final.
CAMPAIGN_TRANSITIONS: dict[str, tuple[str, ...]] = {
    CampaignStatus.OPEN: (CampaignStatus.ADJUDICATION,),
    CampaignStatus.ADJUDICATION: (CampaignStatus.CLOSED, CampaignStatus.OPEN),
    CampaignStatus.CLOSED: (),
}


class SuggestionStatus(models.TextChoices):
    """A campaign's suggestions, as its newest :class:`SuggestionJob` has them."""

    PENDING = "pending", "Being computed"
    READY = "ready", "Ready"
    FAILED = "failed", "Failed"


class CampaignKind(models.TextChoices):
    FAM = "fam", "Facet-aware mappings"
    POLYTOPE = "polytope", "PolyTope error spans"


class Campaign(models.Model):
    """A campaign: FAMs of documents, or PolyTope error spans in the outputs of chosen systems.

    A FAM campaign's task is one document; a PolyTope campaign's task is one (document, system
    output) item: ``outputs`` holds the items (the latest outputs of ``systems`` for
    ``documents`` when it was created), and ``system_blind`` hides which system an item comes from.
    ``instructions`` are shown to its annotators; ``sample`` records a seeded random choice of
    documents so that it can be reproduced. ``status`` moves along ``CAMPAIGN_TRANSITIONS``.
    A FAM campaign's suggestions are precomputed by :class:`SuggestionJob` s; their status is
    the newest job's (``suggestions_status``).
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="campaigns")
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=10, choices=CampaignKind.choices, default=CampaignKind.FAM)
    systems = models.ManyToManyField(System, related_name="campaigns", blank=True)
    outputs = models.ManyToManyField(
        SystemOutput,
        related_name="campaigns",
        blank=True,
        help_text="A PolyTope campaign's items: the chosen systems' outputs of its documents, "
        "pinned when the campaign is created.",
    )
    system_blind = models.BooleanField(
        default=True, help_text="Hide from annotators which system an item's summary comes from."
    )
    documents = models.ManyToManyField(Document, related_name="campaigns")
    reference_position = models.PositiveSmallIntegerField(default=0)
    annotators_per_document = models.PositiveSmallIntegerField(default=1)
    scorers = models.JSONField(default=list, blank=True)
    rouge_use_stemmer = models.BooleanField(
        default=True,
        help_text="The ROUGE suggestions stem words (rouge-score's use_stemmer; its default is "
        "off, Loupe's on).",
    )
    top_k = models.PositiveSmallIntegerField(default=3)
    blind = models.BooleanField(default=True)
    instructions = models.TextField(
        blank=True, max_length=20000, help_text="Shown to the annotators in their workspace."
    )
    sample = models.JSONField(
        null=True,
        blank=True,
        help_text='How the documents were sampled, {"size", "seed", "categories"}; null when '
        "they were chosen otherwise.",
    )
    status = models.CharField(
        max_length=12, choices=CampaignStatus.choices, default=CampaignStatus.OPEN
    )
    annotation_set = models.OneToOneField(
        AnnotationSet, on_delete=models.PROTECT, related_name="campaign"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(annotators_per_document__gte=1),
                name="campaign_annotators_per_document_positive",
            ),
            models.CheckConstraint(
                condition=models.Q(top_k__gte=1, top_k__lte=20), name="campaign_top_k_range"
            ),
        ]

    def __str__(self) -> str:
        return self.slug

    @property
    def suggestions_job(self) -> SuggestionJob | None:
        """The newest precomputation of its suggestions (None: it has none to compute); read
        from ``prefetch_related("suggestion_jobs")`` when the campaign was fetched so."""
        return self.suggestion_jobs.first()

    @property
    def suggestions_status(self) -> str:
        """Its suggestions' :class:`SuggestionStatus`: pending while the newest job is queued or
        running, failed when it failed, else (and without suggestions to compute) ready."""
        job = self.suggestions_job
        if job is None or job.status == JobStatus.SUCCEEDED:
            return SuggestionStatus.READY
        if job.finished:
            return SuggestionStatus.FAILED
        return SuggestionStatus.PENDING

    @property
    def suggestions_error(self) -> str:
        """Why its suggestions could not be computed (blank unless they failed)."""
        job = self.suggestions_job
        return job.error if job is not None and job.status == JobStatus.FAILED else ""

    def clean(self) -> None:
        """Check the scorer names against the suggestion registry and the sample's shape."""
        if not isinstance(self.scorers, list) or any(s not in scorer_names() for s in self.scorers):
            raise ValidationError(
                {"scorers": f"Choose scorers from {list(scorer_names())}; got {self.scorers!r}."}
            )
        if self.sample is not None and not (
            isinstance(self.sample, dict)
            and isinstance(self.sample.get("size"), int)
            and self.sample["size"] >= 1
            and isinstance(self.sample.get("seed"), int)
        ):
            raise ValidationError(
                {"sample": 'Must be null or {"size": n >= 1, "seed": s, "categories": [...]}.'}
            )


class TaskStatus(models.TextChoices):
    TODO = "todo", "To do"
    IN_PROGRESS = "in_progress", "In progress"
    SUBMITTED = "submitted", "Submitted"


class Task(models.Model):
    """One annotator's item in one campaign: a document's FAM, or the errors of one output."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="tasks")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="tasks")
    output = models.ForeignKey(
        SystemOutput, null=True, blank=True, on_delete=models.CASCADE, related_name="tasks"
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tasks"
    )
    status = models.CharField(max_length=12, choices=TaskStatus.choices, default=TaskStatus.TODO)
    position = models.PositiveIntegerField(default=0, help_text="Order in the annotator's queue.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "document", "annotator"],
                condition=models.Q(output__isnull=True),
                name="task_unique_per_annotator",
            ),
            models.UniqueConstraint(
                fields=["campaign", "output", "annotator"],
                condition=models.Q(output__isnull=False),
                name="task_output_unique_per_annotator",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.campaign} / {self.document.external_id} / {self.annotator}"

    def clean(self) -> None:
        """An output item's document is the output's document."""
        if self.output_id and self.document_id and self.output.document_id != self.document_id:
            raise ValidationError({"output": "The output belongs to another document."})


class SuggestionSet(models.Model):
    """Precomputed top-k suggestions of one scorer for one document of a campaign.

    ``facets`` holds, per facet, ``[{"sentence": i, "score": s, "rank": r}, ...]``.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="suggestions")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    scorer = models.CharField(max_length=40)
    scorer_version = models.CharField(max_length=200)
    facets = models.JSONField()
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "document", "scorer"], name="suggestion_set_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.campaign} / {self.document_id} / {self.scorer}"


class SuggestionJob(JobBase):
    """The precomputation of a FAM campaign's suggestions: a job of the job kernel, one chunk
    per ``SUGGESTION_CHUNK`` documents. A newer job (the ROUGE stemming changed) cancels the
    campaign's unfinished ones; the campaign's suggestion status is its newest job's.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="suggestion_jobs")
    sets_written = models.PositiveIntegerField(
        default=0, help_text="(document, scorer) suggestion rows written."
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=JobStatus.values), name="suggestion_job_status_valid"
            )
        ]

    def __str__(self) -> str:
        return f"suggestions of campaign {self.campaign_id}, job {self.pk} ({self.status})"


class SuggestionChunk(ChunkBase):
    """A chunk of a :class:`SuggestionJob`: the suggestions of some of the campaign's documents."""

    job = models.ForeignKey(SuggestionJob, on_delete=models.CASCADE, related_name="chunks")
    document_ids = models.JSONField(default=list)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["job", "index"], name="suggestion_chunk_unique")
        ]


class SuggestionAction(models.TextChoices):
    SHOWN = "shown", "Shown"
    ACCEPTED = "accepted", "Accepted"
    IGNORED = "ignored", "Ignored"


class SuggestionEvent(models.Model):
    """What happened to one suggestion in the workspace (for agreement with/without them)."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="suggestion_events")
    facet = models.PositiveIntegerField()
    sentence = models.PositiveIntegerField()
    scorer = models.CharField(max_length=40)
    scorer_version = models.CharField(max_length=200)
    action = models.CharField(max_length=8, choices=SuggestionAction.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["task", "created_at", "id"]

    def __str__(self) -> str:
        return f"{self.task_id}: {self.action} {self.scorer} f{self.facet} s{self.sentence}"


class TaskPresence(models.Model):
    """One open workspace (a browser tab, keyed by the tab's own id) on a task.

    Its heartbeat keeps ``last_seen`` fresh; an entry older than ``LOUPE_PRESENCE_SECONDS`` is
    gone (a closed or crashed tab). Kept in the database so every web process sees every tab.
    A tab that says it left stays as ``left`` until it expires, so that a heartbeat it sent
    just before (and that arrives after) cannot bring it back.
    """

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="presences")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    client_id = models.CharField(max_length=64)
    last_seen = models.DateTimeField()
    left = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["task", "user", "client_id"], name="task_presence_unique_client"
            )
        ]
        indexes = [models.Index(fields=["task", "last_seen"], name="task_presence_live")]

    def __str__(self) -> str:
        return f"{self.task_id}: {self.user_id} in {self.client_id}"
