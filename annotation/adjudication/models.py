"""Adjudication models: who may adjudicate a campaign, its gold set, and each document's state."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from annotation.campaigns.models import Campaign
from annotation.corpus.models import Document
from annotation.fams.models import AnnotationSet, AnnotationSetKind


class CampaignAdjudicator(models.Model):
    """A user granted the adjudicator role on one campaign (admins hold it on every campaign).

    An adjudicator need not be an admin; they may be one of the campaign's annotators (see
    docs/guides/admin.md: they may then adjudicate documents they annotated, and that is
    recorded).
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="adjudicators")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="adjudicator_grants"
    )
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "user__username"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="campaign_adjudicator_unique")
        ]

    def __str__(self) -> str:
        return f"{self.campaign} / {self.user}"


class CampaignGold(models.Model):
    """The gold annotation set a campaign is adjudicated into (kind gold, one per campaign).

    Its FAMs (or span annotations) have no annotator; each facet (or error) carries its
    ``provenance``. Made on the first gold save, slug ``<campaign slug>-gold``.

    The campaign is protected: deleting it would leave its gold an ordinary gold set, counted
    for scoring everywhere, documents not yet adjudicated included; Django refuses it (in the
    admin too, naming this link).
    """

    campaign = models.OneToOneField(Campaign, on_delete=models.PROTECT, related_name="gold")
    annotation_set = models.OneToOneField(
        AnnotationSet, on_delete=models.PROTECT, related_name="adjudicated_campaign"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.campaign} -> {self.annotation_set}"

    def clean(self) -> None:
        """The gold set is a gold set of the campaign's dataset and scheme."""
        if not (self.campaign_id and self.annotation_set_id):
            return
        gold, own = self.annotation_set, self.campaign.annotation_set
        if gold.kind != AnnotationSetKind.GOLD:
            raise ValidationError({"annotation_set": "The gold set must be of kind gold."})
        if gold.dataset_id != own.dataset_id or gold.scheme != own.scheme:
            raise ValidationError(
                {"annotation_set": "The gold set must have the campaign's dataset and scheme."}
            )


class AdjudicationStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    DONE = "done", "Adjudicated"


class DocumentAdjudication(models.Model):
    """Where the adjudication of one campaign document stands.

    No row means pending. ``done`` blocks reopening the document's tasks and further gold
    saves until it is reopened. ``by`` and ``at`` say who changed the status last and when;
    ``self_adjudicated`` records that whoever marked it done also annotated it in the campaign.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="document_adjudications"
    )
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(
        max_length=8, choices=AdjudicationStatus.choices, default=AdjudicationStatus.PENDING
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(null=True, blank=True)
    self_adjudicated = models.BooleanField(
        default=False,
        help_text="Marked done by one of the document's own annotators in this campaign.",
    )

    class Meta:
        ordering = ["campaign", "document__position", "document_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "document"], name="document_adjudication_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=AdjudicationStatus.values),
                name="document_adjudication_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.campaign} / {self.document_id}: {self.status}"

    def clean(self) -> None:
        """The document is one of the campaign's."""
        if (
            self.campaign_id
            and self.document_id
            and not self.campaign.documents.filter(pk=self.document_id).exists()
        ):
            raise ValidationError({"document": "The document is not part of this campaign."})
