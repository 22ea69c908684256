"""Span models: one SpanAnnotation (the errors marked in one system output) and its revisions."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from annotation.fams.models import AnnotationSet
from annotation.systems.models import SystemOutput
from scoring.metrics.adjudication import AdjudicationError, provenance_validate
from scoring.metrics.spans import SpanSchemeError, join_sentences, scheme_get, validate_errors


def output_texts(output: SystemOutput, annotated_text: str = "") -> tuple[str, str | None]:
    """The summary and source texts an output's error offsets index.

    Args:
        output: a system output (its document is read).
        annotated_text: the summary as its annotators read it, when that differs from the
            stored output (a :attr:`SpanAnnotation.annotated_text`); empty: the output's own.

    Returns:
        ``(summary, source)``: ``annotated_text`` if given, else the output's sentences joined
        by one space; ``source`` is None when the document's text is not part of its release.
    """
    document = output.document
    source = None if document.text_missing else join_sentences(document.sentences)
    return annotated_text or join_sentences(output.sentences), source


class SpanAnnotation(models.Model):
    """One annotator's (or a release's) errors in one system output, under the set's scheme.

    ``errors`` is a list of ``MarkedError`` dicts (``side``, ``start``, ``end``, ``words``,
    ``type``, ``label``, ``severity``, ``reason``): the severity is derived from the scheme,
    never typed in. ``no_errors`` says the output was read and found clean, which an output
    without a row (not annotated) is not. ``version`` grows by one on every saved change.

    ``annotated_text`` is the summary as the annotators read it when that is not the stored
    output's text: an official PolyTope workbook's Target can stop at the last whole sentence
    of an output the release cut mid-sentence, or differ in a few words. The errors' offsets
    index it, and PolyTope counts its words, as the workbook did. Empty (almost always): the
    output's sentences joined by one space.
    """

    annotation_set = models.ForeignKey(
        AnnotationSet, on_delete=models.CASCADE, related_name="span_annotations"
    )
    output = models.ForeignKey(
        SystemOutput, on_delete=models.CASCADE, related_name="span_annotations"
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )
    errors = models.JSONField(default=list, blank=True)
    no_errors = models.BooleanField(default=False)
    annotated_text = models.TextField(
        blank=True,
        default="",
        help_text="The summary as annotated, when it differs from the stored output's text "
        "(an official workbook's Target); empty: the output's text.",
    )
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["annotation_set", "output", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["annotation_set", "output", "annotator"],
                name="span_annotation_unique_per_annotator",
            ),
            models.UniqueConstraint(
                fields=["annotation_set", "output"],
                condition=models.Q(annotator__isnull=True),
                name="span_annotation_unique_without_annotator",
            ),
        ]

    def __str__(self) -> str:
        return f"spans {self.annotation_set} / output {self.output_id}"

    @property
    def annotated(self) -> bool:
        """True when the output was judged: it has errors, or is marked as having none."""
        return self.no_errors or bool(self.errors)

    def clean(self) -> None:
        """Check the errors against the set's scheme and the output's texts."""
        if self.annotation_set_id is None or self.output_id is None:
            return
        scheme_name = self.annotation_set.scheme
        if scheme_name == AnnotationSet.FAM_SCHEME:
            raise ValidationError(
                {"annotation_set": "This annotation set holds FAMs, not error spans."}
            )
        if self.output.document.dataset_id != self.annotation_set.dataset_id:
            raise ValidationError({"output": "The output belongs to another dataset than the set."})
        if self.no_errors and self.errors:
            raise ValidationError(
                {"no_errors": "An output marked as having no errors cannot list errors."}
            )
        if self.annotated_text == join_sentences(self.output.sentences):
            self.annotated_text = ""  # the output's own text: nothing to keep beside it
        summary, source = output_texts(self.output, self.annotated_text)
        try:
            marked = validate_errors(
                scheme_get(scheme_name), self.errors, summary=summary, source=source
            )
        except SpanSchemeError as error:
            raise ValidationError({"errors": str(error)}) from error
        # The scheme keeps only an error's own fields; a gold error's "provenance" (which
        # annotators it came from, see scoring.metrics.adjudication) is checked and kept.
        cleaned = []
        for index, (error, raw) in enumerate(zip(marked, self.errors, strict=True)):
            row = error.as_dict()
            if raw.get("provenance") is not None:
                try:
                    row["provenance"] = provenance_validate(
                        raw["provenance"], where=f"error {index + 1}: "
                    )
                except AdjudicationError as problem:
                    raise ValidationError({"errors": str(problem)}) from problem
            cleaned.append(row)
        self.errors = cleaned


class SpanAnnotationRevision(models.Model):
    """One saved state of a SpanAnnotation: who saved it, when, and what changed."""

    annotation = models.ForeignKey(
        SpanAnnotation, on_delete=models.CASCADE, related_name="revisions"
    )
    version = models.PositiveIntegerField()
    errors = models.JSONField(default=list)
    no_errors = models.BooleanField(default=False)
    changes = models.JSONField(default=list, help_text="Human-readable list of changes.")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["annotation", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["annotation", "version"], name="span_annotation_revision_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.annotation} v{self.version}"
