"""Corpus models: Dataset, Document (ordered sentences, category) and Reference (facets)."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models


class JsonArrayLength(models.Func):
    """The length of a JSON array column, computed by the database (the expression of a
    stored generated column, and usable in queries)."""

    function = "jsonb_array_length"
    output_field = models.IntegerField()

    def as_sqlite(self, compiler, connection, **extra):
        return super().as_sql(compiler, connection, function="json_array_length", **extra)


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


def validate_document_sentences(value) -> None:
    """Check a document's sentences field: a list of non-blank strings, empty only without text.

    Whether an empty list is allowed depends on the document's ``meta["text_missing"]``, which
    :meth:`Document.clean` checks.

    Args:
        value: the field's value.

    Raises:
        ValidationError: unless ``value`` is a list of non-blank strings.
    """
    if not isinstance(value, list):
        raise ValidationError("Must be a list of sentences.")
    if value:
        validate_sentence_list(value)


class Dataset(models.Model):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    source = models.CharField(max_length=500, blank=True)
    license = models.CharField(max_length=200, blank=True)
    public = models.BooleanField(
        default=False,
        help_text="Anyone with the link may download the dataset's releases (not only admins "
        "and researchers).",
    )
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
    sentences = models.JSONField(validators=[validate_document_sentences], blank=True)
    # Stored by the database whenever ``sentences`` is written: reading a count this way costs
    # nothing, where counting the JSON array decompresses the whole document (about 20 µs each
    # in PostgreSQL). Read it from rows loaded from the database; an instance changed in
    # memory has ``sentence_count``.
    n_sentences = models.GeneratedField(
        expression=JsonArrayLength("sentences"),
        output_field=models.IntegerField(),
        db_persist=True,
    )
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
        """How many sentences: counted when they are loaded, else the stored ``n_sentences``
        (a row read without its sentences, e.g. with ``only()``, does not read them for this).
        """
        if "sentences" in self.get_deferred_fields():
            return self.n_sentences
        return len(self.sentences or [])

    @property
    def text_missing(self) -> bool:
        """True for a document whose release has ids and summaries but no article text."""
        return bool((self.meta or {}).get("text_missing"))

    def clean(self) -> None:
        """A document has sentences unless its release has no text (``meta["text_missing"]``)."""
        if isinstance(self.meta, dict) and not isinstance(
            self.meta.get("text_missing", False), bool
        ):
            raise ValidationError({"meta": "text_missing must be true or false."})
        if not self.sentences and not self.text_missing:
            raise ValidationError(
                {
                    "sentences": "Must be a non-empty list of sentences (only a document whose "
                    'release has no text, meta["text_missing"] = true, has none).'
                }
            )
        if self.sentences and self.text_missing:
            raise ValidationError(
                {"meta": 'A document with sentences cannot say meta["text_missing"] = true.'}
            )


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
