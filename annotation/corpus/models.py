"""Corpus models: Dataset, Document (ordered sentences, category) and Reference (facets)."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models


class Category(models.TextChoices):
    """The FAR paper's document categories."""

    NOISE = "noise", "Noise"
    LOW = "low", "Low abstraction"
    HIGH = "high", "High abstraction"


def validate_sentence_list(value) -> None:
    """Check a sentences field.

    Args:
        value: the field's value.

    Raises:
        ValidationError: unless ``value`` is a non-empty list of non-blank strings.
    """
    if not isinstance(value, list) or not value:
        raise ValidationError("Must be a non-empty list of sentences.")
    for position, sentence in enumerate(value):
        if not isinstance(sentence, str) or not sentence.strip():
            raise ValidationError(f"Sentence {position} must be a non-empty string.")


class Dataset(models.Model):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    source = models.CharField(max_length=500, blank=True)
    license = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class Document(models.Model):
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="documents")
    external_id = models.CharField(max_length=200)
    position = models.PositiveIntegerField(default=0, help_text="Order within the dataset.")
    sentences = models.JSONField(validators=[validate_sentence_list])
    category = models.CharField(max_length=8, choices=Category.choices, blank=True)
    meta = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["dataset", "external_id"], name="document_external_id_unique_per_dataset"
            ),
            models.CheckConstraint(
                condition=models.Q(category__in=["", *Category.values]),
                name="document_category_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.dataset_id}:{self.external_id}"

    @property
    def sentence_count(self) -> int:
        return len(self.sentences or [])


class Reference(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="references")
    position = models.PositiveSmallIntegerField(default=0)
    label = models.CharField(max_length=200, blank=True)
    sentences = models.JSONField(validators=[validate_sentence_list])

    class Meta:
        ordering = ["document", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "position"], name="reference_position_unique_per_document"
            )
        ]

    def __str__(self) -> str:
        return f"{self.document} ref {self.position}"

    @property
    def facet_count(self) -> int:
        return len(self.sentences or [])
