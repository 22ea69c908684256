"""Human judgment models: one row per judgment of a system, overall or on one document."""

from django.conf import settings
from django.db import models
from django.db.models import F
from django.db.models.functions import Lower

from annotation.corpus.models import Dataset, Document
from annotation.systems.models import System


class JudgmentKind(models.TextChoices):
    SCORE = "score", "Score (higher is better)"
    RANK = "rank", "Rank (1 is best)"


class HumanJudgment(models.Model):
    """One human judgment of a system, overall (no document) or on one document.

    ``name`` groups the judgments of one study (e.g. ``overall`` or ``faithfulness``). A study
    is either per system or per system and document, and either scores or ranks.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="judgments")
    name = models.SlugField(max_length=64)
    kind = models.CharField(max_length=5, choices=JudgmentKind.choices)
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="judgments")
    document = models.ForeignKey(
        Document, null=True, blank=True, on_delete=models.CASCADE, related_name="judgments"
    )
    value = models.FloatField()
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # The table keeps the name it had when judgments lived in the leaderboards app.
        db_table = "leaderboards_humanjudgment"
        ordering = ["dataset", "name", "system", "document"]
        constraints = [
            # A study's name is unique regardless of case ("Overall" is "overall").
            models.UniqueConstraint(
                Lower("name"),
                F("dataset"),
                F("system"),
                F("document"),
                name="judgment_unique_per_document",
            ),
            models.UniqueConstraint(
                Lower("name"),
                F("dataset"),
                F("system"),
                condition=models.Q(document__isnull=True),
                name="judgment_unique_per_system",
            ),
            models.CheckConstraint(
                condition=models.Q(kind__in=JudgmentKind.values), name="judgment_kind_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name}: {self.system} = {self.value}"


class ReleasedScore(models.Model):
    """One output's automatic scores as a public release computed them, kept as a reference.

    ``release`` names the set (e.g. ``realsumm``: the REALSumm authors' Perl ROUGE, JS-2,
    BERTScore and MoverScore); ``scores`` holds them under the release's own keys (e.g.
    ``rouge_1_f_score``). They are never served as Loupe's scores: the leaderboard compares
    Loupe's ROUGE with them and correlates them with the release's human judgments.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="released_scores")
    release = models.SlugField(max_length=64)
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="released_scores")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="released_scores")
    scores = models.JSONField(help_text="Key -> value, under the release's own keys.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "release", "system", "document"]
        constraints = [
            models.UniqueConstraint(
                fields=["dataset", "release", "system", "document"],
                name="released_score_unique_per_output",
            )
        ]

    def __str__(self) -> str:
        return f"{self.release}: {self.system} / {self.document}"
