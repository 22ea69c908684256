"""Corpus selectors (reads): datasets, documents and the freeze rule."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

from django.db import connection
from django.db.models import Count, QuerySet
from django.db.models.functions import Coalesce

from annotation.imports.validators import KnownDocument

from .models import Category, Dataset, Document, JsonArrayLength, Reference

# The facet-category views every board offers: one category, or the low and high together.
CATEGORY_GROUPS = {
    "noise": (Category.NOISE,),
    "low": (Category.LOW,),
    "high": (Category.HIGH,),
    "low+high": (Category.LOW, Category.HIGH),
}


def document_order(*, dataset: Dataset, category: str | None = None) -> dict[int, str]:
    """The dataset's documents (of a category group) in the dataset's own order.

    The order is position, then external id, never the database ids, so two copies of a
    dataset list their documents alike; boards add, resample and pair documents in this order.

    Args:
        dataset: the dataset.
        category: a key of :data:`CATEGORY_GROUPS`, or None for all.

    Returns:
        document id -> external id, in dataset order.
    """
    documents = Document.objects.filter(dataset=dataset)
    if category:
        documents = documents.filter(category__in=CATEGORY_GROUPS[category])
    return dict(documents.order_by("position", "external_id").values_list("id", "external_id"))


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


def json_array_length(field: str) -> Coalesce:
    """The length of a JSON array field, computed by the database (0 for NULL), for
    ``values_list`` and ``annotate``: counts sentences without reading them.

    Args:
        field: the field's name (lookups across relations allowed).

    Returns:
        An integer expression.
    """
    return Coalesce(JsonArrayLength(field), 0)


def document_known_map(
    *, dataset: Dataset, sentence_counts: Mapping[int, tuple[str, int]] | None = None
) -> dict[str, KnownDocument]:
    """What the import validators must know of a dataset's documents, by external id.

    The counts come from the database (``Document.n_sentences``), so no sentence is read.

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
        rows = dataset.documents.values_list("pk", "external_id", "n_sentences")
    else:
        rows = ((pk, key, count) for pk, (key, count) in sentence_counts.items())
    return {
        external_id: KnownDocument(count, tuple(facets.get(pk, ())))
        for pk, external_id, count in rows
    }


class DocumentSentences(Mapping[str, Sequence[str]]):
    """A dataset's document sentences by external id, read from the database only as needed.

    Built from the ids and sentence counts (``Document.n_sentences``), so ``in``, ``len()`` of
    a document and the keys cost no sentence. :meth:`load` then reads, in one query, just the
    sentences a parser asked for: the given indices of some documents (PostgreSQL picks them
    with ``jsonb_path_query_array``; an upload of 11,490 extractive outputs reads 34,000
    sentences instead of 48 MB of documents) and every sentence of others. A sentence read
    neither way is read on first use (one query per document).
    """

    def __init__(self, rows: Mapping[str, tuple[int, int]]) -> None:
        """Args:
        rows: external id -> (document id, sentence count), e.g. from
            :func:`document_sentence_counts`.
        """
        self._rows = dict(rows)
        self._texts: dict[str, dict[int, str]] = {}

    def __getitem__(self, key: str) -> Sequence[str]:
        return _Sentences(self, key, self._rows[key][1])

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def __iter__(self):
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def counts(self) -> dict[int, tuple[str, int]]:
        """Document id -> (external id, sentence count) of every document."""
        return {pk: (key, count) for key, (pk, count) in self._rows.items()}

    def load(self, *, picks: Mapping[str, Iterable[int]], whole: Iterable[str]) -> None:
        """Read the sentences at ``picks`` and all sentences of ``whole``, in one query each.

        Unknown documents and indices out of range are left out (a parser maps them to the
        validators' errors).

        Args:
            picks: external id -> sentence indices.
            whole: external ids whose every sentence is wanted.
        """
        whole = {key for key in whole if key in self._rows}
        wanted = {}
        for key, indices in picks.items():
            if key in self._rows and key not in whole:
                kept = sorted(i for i in set(indices) if 0 <= i < self._rows[key][1])
                if kept:
                    wanted[key] = kept
        if wanted and connection.vendor == "postgresql":
            ids = {self._rows[key][0]: key for key in wanted}
            paths = [f"strict $[{','.join(map(str, wanted[ids[pk]]))}]" for pk in ids]
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT w.id, jsonb_path_query_array(d.sentences, w.path::jsonpath) "
                    "FROM unnest(%s::bigint[], %s::text[]) AS w(id, path) "
                    f"JOIN {Document._meta.db_table} d ON d.id = w.id",
                    [list(ids), paths],
                )
                for pk, texts in cursor.fetchall():
                    if isinstance(texts, str):
                        texts = json.loads(texts)
                    key = ids[pk]
                    self._texts[key] = dict(zip(wanted[key], texts, strict=True))
        else:
            whole |= set(wanted)
        self._read_whole(whole)

    def _read_whole(self, keys) -> None:
        ids = {self._rows[key][0]: key for key in keys}
        pks = list(ids)
        for start in range(0, len(pks), 2000):
            batch = pks[start : start + 2000]
            for pk, sentences in Document.objects.filter(pk__in=batch).values_list(
                "pk", "sentences"
            ):
                self._texts[ids[pk]] = dict(enumerate(sentences or ()))

    def _sentence(self, key: str, index: int) -> str:
        texts = self._texts.get(key)
        if texts is None or index not in texts:
            self._read_whole([key])
            texts = self._texts[key]
        return texts[index]


class _Sentences(Sequence[str]):
    """One document's sentences in a :class:`DocumentSentences`: its count is known, its
    texts are read on demand."""

    def __init__(self, source: DocumentSentences, key: str, count: int) -> None:
        self._source, self._key, self._count = source, key, count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        return self._source._sentence(self._key, index)


def document_sentence_counts(*, dataset: Dataset) -> dict[str, tuple[int, int]]:
    """Each document's id and sentence count, by external id, without reading a sentence.

    Args:
        dataset: the dataset.

    Returns:
        external id -> (document id, sentence count).
    """
    rows = Document.objects.filter(dataset=dataset)
    return {
        key: (pk, count) for pk, key, count in rows.values_list("pk", "external_id", "n_sentences")
    }
