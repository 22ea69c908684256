"""Corpus selectors (reads): datasets, documents and the freeze rule."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from .models import Dataset, Document


def dataset_list() -> QuerySet[Dataset]:
    """Every dataset with its document count, ordered by slug."""
    return Dataset.objects.annotate(document_count=Count("documents")).order_by("slug")


def dataset_get(*, slug: str) -> Dataset:
    """The dataset with this slug, with its document count.

    Raises:
        Dataset.DoesNotExist: no such dataset.
    """
    return dataset_list().get(slug=slug)


def document_list(*, dataset: Dataset, category: str | None = None) -> QuerySet[Document]:
    """The dataset's documents in order, optionally only one category."""
    documents = Document.objects.filter(dataset=dataset).order_by("position", "id")
    if category:
        documents = documents.filter(category=category)
    return documents


def document_get(*, pk: int) -> Document:
    """One document with its dataset and references.

    Raises:
        Document.DoesNotExist: no such document.
    """
    return Document.objects.select_related("dataset").prefetch_related("references").get(pk=pk)


def document_is_frozen(*, document: Document) -> bool:
    """Whether any FAM or system output refers to the document (its sentences may not change)."""
    return document.fams.exists() or document.outputs.exists()
