"""Corpus selectors (reads): datasets, documents and the freeze rule."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from annotation.imports.validators import KnownDocument

from .models import Category, Dataset, Document


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


def document_known_map(*, dataset: Dataset) -> dict[str, KnownDocument]:
    """What the import validators must know of a dataset's documents, by external id.

    Args:
        dataset: the dataset that an import adds to.

    Returns:
        Each document's sentence count and the facet count of each of its references.
    """
    return {
        doc.external_id: KnownDocument(
            doc.sentence_count, tuple(r.facet_count for r in doc.references.all())
        )
        for doc in dataset.documents.prefetch_related("references")
    }
