"""Which documents a new campaign annotates: a list of ids, categories, a seeded sample or all."""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Sequence

from annotation.corpus.models import Category, Dataset, Document
from config.exceptions import ApplicationError

DOCUMENT_CHOICES = ("documents", "categories", "sample")


def field_error(field: str, message: str, **extra) -> ApplicationError:
    """A refusal of one input field: the message, and the field named in ``extra``.

    The API answers ``{"message": message, "extra": {"field": field, "fields": {field:
    [message]}}}`` (the shape of a serializer's field errors), so a form can show the message
    next to its field.

    Args:
        field: the input field (``documents``, ``sample.size``, ...).
        message: a sentence saying what is wrong and what to do.
        **extra: more data for ``extra``.

    Returns:
        The error, to raise.
    """
    return ApplicationError(message, extra={"field": field, "fields": {field: [message]}, **extra})


def _categories_checked(categories, field: str) -> list[str]:
    if isinstance(categories, str) or not isinstance(categories, Sequence):
        raise field_error(field, f"{field} must be a list of categories, e.g. ['low', 'high'].")
    if not categories:
        raise field_error(
            field, f"{field} is empty: choose at least one of {Category.values}, or leave it out."
        )
    unknown = sorted({c for c in categories if c not in Category.values}, key=str)
    if unknown:
        raise field_error(
            field, f"Unknown categories in {field}: {unknown}; choose from {Category.values}."
        )
    return sorted(set(categories), key=Category.values.index)


def _by_ids(dataset: Dataset, pool: list[Document], documents) -> list[Document]:
    if isinstance(documents, str) or not isinstance(documents, Sequence):
        raise field_error("documents", "documents must be a list of document ids, not one string.")
    if not documents:
        raise field_error(
            "documents",
            "documents is an empty list: give at least one document id, or leave it out to "
            "annotate every document.",
        )
    repeated = sorted(d for d, n in Counter(documents).items() if n > 1)
    if repeated:
        raise field_error("documents", f"Documents listed twice: {repeated[:10]}.")
    known = {d.external_id: d for d in pool}
    unknown = [d for d in documents if d not in known]
    if unknown:
        raise field_error("documents", f"Unknown documents in {dataset.slug!r}: {unknown[:10]}")
    wanted = set(documents)
    return [d for d in pool if d.external_id in wanted]


def _sampled(dataset: Dataset, pool: list[Document], sample) -> tuple[list[Document], dict]:
    if not isinstance(sample, dict):
        raise field_error("sample", 'sample must be an object: {"size": n, "seed": s}.')
    size, seed = sample.get("size"), sample.get("seed")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise field_error("sample.size", f"sample.size must be a whole number >= 1; got {size!r}.")
    if seed is None:
        seed = secrets.randbelow(2**31)  # recorded, so the sample can still be reproduced
    elif isinstance(seed, bool) or not isinstance(seed, int):
        raise field_error("sample.seed", f"sample.seed must be a whole number; got {seed!r}.")
    categories = sample.get("categories")
    if categories is not None:
        categories = _categories_checked(categories, "sample.categories")
        pool = [d for d in pool if d.category in categories]
    if size > len(pool):
        within = f" in the categories {categories}" if categories else ""
        raise field_error(
            "sample.size",
            f"A sample of {size} documents was asked for, but {dataset.slug!r} has only "
            f"{len(pool)} document(s){within}.",
        )
    # Not for security: a reproducible choice (Python's Mersenne Twister with an int seed).
    picked = sorted(random.Random(seed).sample(range(len(pool)), size))  # noqa: S311
    return [pool[i] for i in picked], {"size": size, "seed": seed, "categories": categories or []}


def campaign_documents_choose(
    *,
    dataset: Dataset,
    documents: Sequence[str] | None = None,
    categories: Sequence[str] | None = None,
    sample: dict | None = None,
) -> tuple[list[Document], dict | None]:
    """Choose a new campaign's documents in exactly one way (or take them all).

    A sample is reproducible from its record: the pool is the dataset's documents (only those
    in ``categories`` when given) in dataset order (position, then id), and the chosen ones are
    ``pool[i]`` for ``i`` in ``sorted(random.Random(seed).sample(range(len(pool)), size))``,
    kept in dataset order.

    Args:
        dataset: the dataset.
        documents: external ids.
        categories: every document in these categories (``noise``, ``low``, ``high``).
        sample: ``{"size": n, "seed": s, "categories": [...]}``; the seed (drawn at random
            when missing) and the categories are optional.

    Returns:
        The documents in dataset order, and the sample's record (with its seed) or None.

    Raises:
        ApplicationError: more than one way given, or a bad value, naming its field
            (``extra["field"]``): unknown or repeated ids, unknown or empty categories, no
            document in the categories, a sample larger than its pool.
    """
    given = [
        name
        for name, value in zip(DOCUMENT_CHOICES, (documents, categories, sample), strict=True)
        if value is not None
    ]
    if len(given) > 1:
        raise field_error(
            given[0],
            "Choose the documents one way: a list of documents, categories or a sample; got "
            f"{' and '.join(given)}.",
        )
    pool = list(Document.objects.filter(dataset=dataset).order_by("position", "id"))
    record = None
    if documents is not None:
        chosen = _by_ids(dataset, pool, documents)
    elif categories is not None:
        wanted = _categories_checked(categories, "categories")
        chosen = [d for d in pool if d.category in wanted]
        if not chosen:
            raise field_error(
                "categories", f"No document of {dataset.slug!r} is in the categories {wanted}."
            )
    elif sample is not None:
        chosen, record = _sampled(dataset, pool, sample)
    else:
        chosen = pool
    if not chosen:
        raise field_error("documents", "A campaign needs at least one document.")
    return chosen, record
