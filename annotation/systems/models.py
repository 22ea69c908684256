"""System models: a summarization System, its OutputVersions per dataset and their SystemOutputs."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from annotation.corpus.models import Dataset, Document, validate_sentence_list


class SystemKind(models.TextChoices):
    EXTRACTIVE = "extractive", "Extractive"
    ABSTRACTIVE = "abstractive", "Abstractive"


class ExtractionMethod(models.TextChoices):
    """How an extractive output's document-sentence indices were obtained."""

    GIVEN = "given", "Given by the uploader"
    RELEASED = "released", "Given by a public release (kept verbatim)"
    LEAD = "lead", "Lead-k (first sentences)"
    EXACT = "exact", "Exact text match"
    TFIDF = "tfidf", "Nearest sentence by TF-IDF cosine"


class System(models.Model):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=12, choices=SystemKind.choices)
    description = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    trained_on = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind__in=SystemKind.values), name="system_kind_valid"
            )
        ]

    def __str__(self) -> str:
        return self.name


class OutputVersion(models.Model):
    """One upload of a system's outputs for a dataset; numbered 1, 2, ... per system and dataset.

    A new upload never replaces an earlier one: it becomes the next version, and the leaderboard
    reads the latest one while earlier versions (and their scores) stay readable.
    """

    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="versions")
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="output_versions")
    number = models.PositiveIntegerField()
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    source = models.CharField(max_length=500, blank=True, help_text="File or release it came from.")
    report = models.JSONField(default=list, blank=True, help_text="The upload report's lines.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["system", "dataset", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["system", "dataset", "number"], name="output_version_number_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(number__gte=1), name="output_version_number_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.system} v{self.number} on {self.dataset}"


class SystemOutput(models.Model):
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="outputs")
    version = models.ForeignKey(OutputVersion, on_delete=models.CASCADE, related_name="outputs")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="outputs")
    sentences = models.JSONField(validators=[validate_sentence_list])
    extracted = models.JSONField(
        null=True, blank=True, help_text="Document-sentence indices in extraction order."
    )
    extraction_method = models.CharField(max_length=8, choices=ExtractionMethod.choices, blank=True)
    match_confidence = models.JSONField(
        null=True, blank=True, help_text="Similarity in [0, 1] of each extracted index."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["system", "document"]
        constraints = [
            models.UniqueConstraint(
                fields=["version", "document"], name="system_output_unique_per_version"
            ),
            models.CheckConstraint(
                condition=models.Q(extraction_method__in=["", *ExtractionMethod.values]),
                name="system_output_method_valid",
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(extracted__isnull=True, extraction_method="")
                    | (models.Q(extracted__isnull=False) & ~models.Q(extraction_method=""))
                ),
                name="system_output_method_iff_extracted",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.system} / {self.document}"

    @property
    def min_confidence(self) -> float | None:
        return min(self.match_confidence) if self.match_confidence else None

    def clean(self) -> None:
        """Check indices against the document and the fields against the system's kind."""
        errors: dict[str, str] = {}
        if self.version_id and self.system_id and self.version.system_id != self.system_id:
            errors["version"] = "The version belongs to another system."
        if (
            self.version_id
            and self.document_id
            and self.version.dataset_id != self.document.dataset_id
        ):
            errors["document"] = "The document belongs to another dataset than the version."
        if (
            self.system_id
            and self.system.kind == SystemKind.EXTRACTIVE
            and self.extracted is None
            and not (self.document_id and self.document.sentence_count == 0)
        ):
            # Only a document whose release has no text (meta["text_missing"]) has no
            # sentences, and then nothing to point at.
            errors["extracted"] = "An extractive system's output needs extracted indices."
        if self.system_id and self.system.kind == SystemKind.ABSTRACTIVE and self.extracted:
            errors["extracted"] = "An abstractive system's output has no extracted indices."
        if self.extracted is not None and self.document_id:
            count = self.document.sentence_count
            bad = [
                i
                for i in self.extracted
                if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < count
            ]
            if bad:
                errors["extracted"] = (
                    f"Indices {bad} are out of range: document {self.document.external_id} "
                    f"has {count} sentences (valid: 0..{count - 1})."
                )
            elif self.extraction_method == ExtractionMethod.GIVEN and len(
                set(self.extracted)
            ) != len(self.extracted):
                errors["extracted"] = "Given extracted indices must not repeat."
            if self.match_confidence is not None and len(self.match_confidence) != len(
                self.extracted
            ):
                errors["match_confidence"] = "Give one confidence per extracted index."
        if errors:
            raise ValidationError(errors)
