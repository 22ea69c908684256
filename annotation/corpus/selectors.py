"""Corpus selectors (reads): datasets, documents and the freeze rule."""

from __future__ import annotations

from collections.abc import Mapping

from django.db.models import Count, Func, IntegerField, QuerySet
from django.db.models.functions import Coalesce

from annotation.imports.validators import KnownDocument

from .models import Category, Dataset, Document, Reference


def dataset_list() -> QuerySet[Dataset]:
    """Every dataset, ordered by slug.

    Returns:
        Datasets annotated with ``document_count``.
    """
    return Dataset.objects.annotate(document_count=Count("documents")).order_by("slug")


def dataset_get(*, slug: str) -> Dataset:
    """The dataset with this slug, with its document count.

    Args:
        slug: the dataset's slug.

    Returns:
        The dataset, annotated with ``document_count``.

    Raises:
        Dataset.DoesNotExist: no such dataset.
    """
    return dataset_list().get(slug=slug)


def dataset_overview(*, dataset: Dataset) -> dict:
    """What a dataset's admin page shows besides its fields: categories, sets and campaigns.

    Read through the dataset's reverse relations (the apps above register them).

    Args:
        dataset: the dataset.

    Returns:
        ``{"categories": {"noise": n, "low": n, "high": n, "": n}, "annotation_sets": [{"id",
        "slug", "name", "kind", "scheme", "count"}] (by slug; count = FAMs or span
        annotations), "campaigns": [{"id", "slug", "name", "kind", "status"}] (newest first)}``.
    """
    categories = dict.fromkeys([*Category.values, ""], 0)
    for category, n in dataset.documents.order_by().values_list("category").annotate(n=Count("id")):
        categories[category] = n
    sets = dataset.annotation_sets.order_by("slug")
    fams = dict(sets.annotate(n=Count("fams")).values_list("pk", "n"))
    spans = dict(sets.annotate(n=Count("span_annotations")).values_list("pk", "n"))
    return {
        "categories": categories,
        "annotation_sets": [
            {
                "id": row["id"],
                "slug": row["slug"],
                "name": row["name"],
                "kind": row["kind"],
                "scheme": row["scheme"],
                "count": fams.get(row["id"], 0) + spans.get(row["id"], 0),
            }
            for row in sets.values("id", "slug", "name", "kind", "scheme")
        ],
        "campaigns": list(
            dataset.campaigns.order_by("-created_at", "-id").values(
                "id", "slug", "name", "kind", "status"
            )
        ),
    }


def document_list(*, dataset: Dataset, category: str | None = None) -> QuerySet[Document]:
    """The dataset's documents in order.

    Args:
        dataset: whose documents.
        category: only this category (``noise``, ``low``, ``high``), or all when None.

    Returns:
        The documents ordered by position.
    """
    documents = Document.objects.filter(dataset=dataset).order_by("position", "id")
    if category:
        documents = documents.filter(category=category)
    return documents


def document_get(*, pk: int) -> Document:
    """One document with its dataset and references.

    Args:
        pk: the document's primary key.

    Returns:
        The document, with dataset and references loaded.

    Raises:
        Document.DoesNotExist: no such document.
    """
    return Document.objects.select_related("dataset").prefetch_related("references").get(pk=pk)


def document_is_frozen(*, document: Document) -> bool:
    """Whether any FAM or system output refers to the document.

    Args:
        document: the document.

    Returns:
        True when its sentences (and references) may no longer change.
    """
    return document.fams.exists() or document.outputs.exists()


class _JsonArrayLength(Func):
    """The length of a JSON array column (0 for NULL), computed by the database."""

    function = "jsonb_array_length"
    output_field = IntegerField()

    def as_sqlite(self, compiler, connection, **extra):
        return super().as_sql(compiler, connection, function="json_array_length", **extra)


def json_array_length(field: str) -> Coalesce:
    """The length of a JSON array field, computed by the database (0 for NULL), for
    ``values_list`` and ``annotate``: counts sentences without reading them.

    Args:
        field: the field's name (lookups across relations allowed).

    Returns:
        An integer expression.
    """
    return Coalesce(_JsonArrayLength(field), 0)


def document_known_map(
    *, dataset: Dataset, sentence_counts: Mapping[int, tuple[str, int]] | None = None
) -> dict[str, KnownDocument]:
    """What the import validators must know of a dataset's documents, by external id.

    The counts come from the database (JSON array lengths), so no sentence is read.

    Args:
        dataset: the dataset that an import adds to.
        sentence_counts: document id -> (external id, sentence count) of every document of the
            dataset, when the caller read them already (the documents are then not read).

    Returns:
        Each document's sentence count and the facet count of each of its references.
    """
    facets: dict[int, list[int]] = {}
    for document_id, count in (
        Reference.objects.filter(document__dataset=dataset)
        .order_by("document_id", "position", "id")
        .values_list("document_id", json_array_length("sentences"))
    ):
        facets.setdefault(document_id, []).append(count)
    if sentence_counts is None:
        rows = dataset.documents.values_list("pk", "external_id", json_array_length("sentences"))
    else:
        rows = ((pk, key, count) for pk, (key, count) in sentence_counts.items())
    return {
        external_id: KnownDocument(count, tuple(facets.get(pk, ())))
        for pk, external_id, count in rows
    }
