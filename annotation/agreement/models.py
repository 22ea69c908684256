"""Agreement models: span and FAM campaign agreement runs (jobs of the job kernel) and their one
chunk each (the computation)."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from annotation.campaigns.models import Campaign, CampaignKind
from annotation.corpus.models import Dataset
from annotation.fams.models import AnnotationSet
from annotation.jobs.models import ChunkBase, JobBase, JobStatus

RunStatus = JobStatus  # a run's states are a job's


class RunSource(models.TextChoices):
    CAMPAIGN = "campaign", "A PolyTope campaign (annotators are its users)"
    ANNOTATION_SETS = "annotation_sets", "Annotation sets (each set is one annotator)"


class SpanAgreementRun(JobBase):
    """One computation of span agreement, by a Celery worker, over one source of annotators.

    The source is a PolyTope campaign (its human set; each user is an annotator) or several
    span annotation sets of one dataset (each set is an annotator). ``result`` holds the
    figures per item, per annotator pair and overall once the run succeeded; ``error`` says why
    it failed. Recomputing a run (``span_agreement_run_restart``) overwrites its result.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="+")
    scheme = models.CharField(max_length=40)
    source = models.CharField(max_length=16, choices=RunSource.choices)
    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.CASCADE, related_name="agreement_runs"
    )
    annotation_sets = models.ManyToManyField(
        AnnotationSet, blank=True, related_name="agreement_runs"
    )
    min_iou = models.FloatField(
        default=0.0, help_text="Lowest intersection-over-union of a partial match (0: any overlap)."
    )
    submitted_only = models.BooleanField(
        default=False, help_text="Campaigns: count only the items of submitted tasks."
    )
    inputs_digest = models.CharField(
        max_length=64,
        blank=True,
        help_text="SHA-256 of the annotations the result was computed from; a run whose digest "
        "differs from the current one is stale.",
    )
    result = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=RunStatus.values),
                name="span_agreement_run_status_valid",
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(source=RunSource.CAMPAIGN, campaign__isnull=False)
                    | models.Q(source=RunSource.ANNOTATION_SETS, campaign__isnull=True)
                ),
                name="span_agreement_run_source_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(min_iou__gte=0, min_iou__lte=1),
                name="span_agreement_run_min_iou_range",
            ),
        ]

    def __str__(self) -> str:
        return f"span agreement run {self.pk} on {self.dataset_id} ({self.status})"

    def clean(self) -> None:
        """A campaign run's campaign belongs to the run's dataset."""
        if self.campaign_id and self.dataset_id and self.campaign.dataset_id != self.dataset_id:
            raise ValidationError({"campaign": "The campaign belongs to another dataset."})


class FamRunTrigger(models.TextChoices):
    REQUEST = "request", "Asked for (the agreement page or the API)"
    SUBMISSION = "submission", "A task of the campaign was submitted"


class FamAgreementRun(JobBase):
    """One computation of a FAM campaign's agreement, by a Celery worker.

    A run reads the campaign's annotations when it runs and records what it read as
    ``inputs_digest`` (see ``annotation.agreement.fam_selectors``); a result whose digest
    differs from the campaign's current one is stale. A campaign has at most one queued run:
    a submission while one waits adds nothing, the waiting run reads the submission too.
    ``options`` holds the conventions (bootstrap resamples, seed, level, which tasks count).
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="fam_agreement_runs"
    )
    trigger = models.CharField(
        max_length=10, choices=FamRunTrigger.choices, default=FamRunTrigger.REQUEST
    )
    inputs_digest = models.CharField(
        max_length=64,
        blank=True,
        help_text="SHA-256 of the annotations the result was computed from (set when it runs).",
    )
    options = models.JSONField(default=dict, blank=True)
    result = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=RunStatus.values),
                name="fam_agreement_run_status_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(trigger__in=FamRunTrigger.values),
                name="fam_agreement_run_trigger_valid",
            ),
            models.UniqueConstraint(
                fields=["campaign"],
                condition=models.Q(status=RunStatus.QUEUED),
                name="fam_agreement_run_one_queued_per_campaign",
            ),
        ]
        indexes = [
            models.Index(
                fields=["campaign", "status", "-created_at"], name="fam_run_campaign_status"
            )
        ]

    def __str__(self) -> str:
        return f"FAM agreement run {self.pk} of campaign {self.campaign_id} ({self.status})"

    def clean(self) -> None:
        """Only FAM campaigns have FAM agreement runs."""
        if self.campaign_id and self.campaign.kind != CampaignKind.FAM:
            raise ValidationError(
                {"campaign": "FAM agreement is computed for FAM campaigns; this is a "
                 f"{self.campaign.get_kind_display()} campaign."}
            )  # fmt: skip


class SpanAgreementChunk(ChunkBase):
    """The job kernel's one chunk of a span agreement run: the computation (attempts, heartbeat)."""

    run = models.ForeignKey(SpanAgreementRun, on_delete=models.CASCADE, related_name="chunks")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="span_agreement_chunk_unique")
        ]


class FamAgreementChunk(ChunkBase):
    """The job kernel's one chunk of a FAM agreement run: the computation (attempts, heartbeat)."""

    run = models.ForeignKey(FamAgreementRun, on_delete=models.CASCADE, related_name="chunks")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="fam_agreement_chunk_unique")
        ]
