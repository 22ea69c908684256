"""FAM models: an AnnotationSet groups FAMs; a Fam maps a reference's facets to support groups."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from annotation.corpus.models import Category, Dataset, Document, Reference
from scoring.metrics.adjudication import AdjudicationError, provenance_validate
from scoring.metrics.fam import FamError, validate_fam
from scoring.metrics.spans import scheme_names


class AnnotationSetKind(models.TextChoices):
    RELEASED = "released", "Released with a dataset"
    HUMAN = "human", "Human annotation"
    GOLD = "gold", "Adjudicated gold"
    MACHINE = "machine", "Machine-made"


class FacetLabel(models.TextChoices):
    SUPPORTED = "supported", "Supported"
    NO_SUPPORT = "no_support", "No support (high abstraction)"
    NOISE = "noise", "Noise"


class AnnotationSet(models.Model):
    """A named set of annotations of a dataset: FAMs, or error spans under a span scheme.

    ``scheme`` is ``fam`` for FAMs, or the name of a span scheme of ``scoring.metrics.spans``
    (``polytope``, ``xsum-hallucinations``) for error spans of system outputs.
    """

    FAM_SCHEME = "fam"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="annotation_sets")
    slug = models.SlugField(max_length=64)
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=10, choices=AnnotationSetKind.choices)
    read_only = models.BooleanField(default=False)
    scheme = models.CharField(
        max_length=40,
        default=FAM_SCHEME,
        help_text="fam, or the span scheme (polytope, xsum-hallucinations) of error spans.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "slug"]
        constraints = [
            models.UniqueConstraint(
                fields=["dataset", "slug"], name="annotation_set_slug_unique_per_dataset"
            ),
            models.CheckConstraint(
                condition=models.Q(kind__in=AnnotationSetKind.values),
                name="annotation_set_kind_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.dataset_id}:{self.slug}"

    @property
    def is_fam(self) -> bool:
        return self.scheme == self.FAM_SCHEME

    def clean(self) -> None:
        """Check the scheme's name against the registered span schemes."""
        if self.scheme != self.FAM_SCHEME and self.scheme not in scheme_names():
            raise ValidationError(
                {"scheme": f"Choose fam or one of {list(scheme_names())}; got {self.scheme!r}."}
            )


class Fam(models.Model):
    """One annotator's (or a release's) FAM for one reference of one document.

    ``facets`` is a list with one entry per reference sentence:
    ``{"groups": [[sentence indices], ...], "label": "supported"|"no_support"|"noise",
    "note": ""}``. ``version`` grows by one on every saved change.
    """

    annotation_set = models.ForeignKey(AnnotationSet, on_delete=models.CASCADE, related_name="fams")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="fams")
    reference = models.ForeignKey(Reference, on_delete=models.CASCADE, related_name="fams")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )
    facets = models.JSONField()
    category_override = models.CharField(
        max_length=8,
        blank=True,
        help_text="The annotator's document category, when it differs from the derived one.",
    )
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["annotation_set", "document", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["annotation_set", "reference", "annotator"],
                name="fam_unique_per_annotator",
            ),
            models.UniqueConstraint(
                fields=["annotation_set", "reference"],
                condition=models.Q(annotator__isnull=True),
                name="fam_unique_without_annotator",
            ),
        ]

    def __str__(self) -> str:
        return f"FAM {self.annotation_set} / {self.reference}"

    def clean(self) -> None:
        """Check the facets' shape, labels and indices against the document and reference."""
        if (
            self.reference_id
            and self.document_id
            and self.reference.document_id != self.document_id
        ):
            raise ValidationError({"reference": "The reference belongs to another document."})
        if self.category_override and self.category_override not in Category.values:
            raise ValidationError(
                {"category_override": f"Must be empty or one of {Category.values}."}
            )
        if not isinstance(self.facets, list):
            raise ValidationError({"facets": "Must be a list with one entry per facet."})
        n_facets = self.reference.facet_count
        if len(self.facets) != n_facets:
            raise ValidationError(
                {
                    "facets": f"Expected {n_facets} facets (one per reference sentence), "
                    f"got {len(self.facets)}."
                }
            )
        for position, facet in enumerate(self.facets):
            if not isinstance(facet, dict) or not isinstance(facet.get("groups"), list):
                raise ValidationError({"facets": f"facet {position}: needs a 'groups' list."})
            label = facet.get("label", FacetLabel.SUPPORTED)
            if label not in FacetLabel.values:
                raise ValidationError(
                    {"facets": f"facet {position}: label must be one of {FacetLabel.values}."}
                )
            if label != FacetLabel.SUPPORTED and facet["groups"]:
                raise ValidationError(
                    {"facets": f"facet {position}: a facet marked {label} has no support groups."}
                )
            if facet.get("provenance") is not None:
                # A gold facet says where it came from (see scoring.metrics.adjudication).
                try:
                    provenance_validate(facet["provenance"], where=f"facet {position}: ")
                except AdjudicationError as error:
                    raise ValidationError({"facets": str(error)}) from error
        try:
            validate_fam(
                [facet["groups"] for facet in self.facets],
                n_sentences=self.document.sentence_count,
                n_facets=n_facets,
                # Public releases are stored verbatim, repeats included.
                allow_duplicate_groups=self.annotation_set.kind == AnnotationSetKind.RELEASED,
            )
        except FamError as error:
            raise ValidationError({"facets": str(error)}) from error


class FamRevision(models.Model):
    """One saved state of a FAM: who saved it, when, and what changed from the previous one."""

    fam = models.ForeignKey(Fam, on_delete=models.CASCADE, related_name="revisions")
    version = models.PositiveIntegerField()
    facets = models.JSONField()
    category_override = models.CharField(max_length=8, blank=True)
    changes = models.JSONField(default=list, help_text="Human-readable list of changes.")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["fam", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["fam", "version"], name="fam_revision_unique")
        ]

    def __str__(self) -> str:
        return f"{self.fam} v{self.version}"
