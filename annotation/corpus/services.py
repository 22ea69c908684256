"""Corpus services (writes): dataset imports, sentence edits with the freeze rule."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.db import transaction

from annotation.imports.bundle import ImportBundle
from annotation.imports.rows import concurrent_conflicts
from annotation.imports.summary import ImportSummary, summarize
from annotation.imports.validators import validate_bundle
from config.exceptions import ApplicationError

from .importers.archives import archive_unpacked
from .importers.formats import get_format
from .importers.writer import preflight, write_bundle
from .models import Category, Dataset, Document
from .selectors import document_is_frozen, document_known_map
from .signals import dataset_imported


@transaction.atomic
def dataset_import(
    *,
    format_name: str,
    source: Path | BinaryIO,
    slug: str,
    name: str | None = None,
    user=None,
    dry_run: bool = False,
) -> ImportSummary:
    """Import a dataset through the pipeline: read, parse, validate, then write in one transaction.

    Importing a slug that already exists is refused (nothing is duplicated or overwritten).

    Args:
        format_name: ``jsonl``, ``polytope-release`` or ``far-release``.
        source: a file or directory path, or an uploaded binary file (``jsonl`` only).
        slug: the new dataset's slug.
        name: the dataset's display name (defaults to the format's or the slug).
        user: the importing user, recorded as creator.
        dry_run: validate everything but write nothing.

    Returns:
        An :class:`ImportSummary` with counts and the report (e.g. low-confidence mappings).
        Unless it is a dry run, ``dataset_imported`` is sent (``scoring`` queues a scoring job
        for the outputs a release brings).

    Raises:
        ImportValidationError: every problem found, each naming file, line and field; nothing
            is written.
    """
    bundle = get_format(format_name).parse(source, slug, name)
    summary = bundle_import(bundle=bundle, slug=slug, user=user, dry_run=dry_run)
    if not dry_run:
        dataset_imported.send(
            sender=Dataset,
            dataset=Dataset.objects.get(slug=summary.dataset),
            summary=summary,
            user=user,
        )
    return summary


# The short names of the release formats (the upload form's), besides the registry's own.
FORMAT_ALIASES = {"far": "far-release", "polytope": "polytope-release"}


def dataset_import_upload(
    *,
    format_name: str,
    upload: BinaryIO,
    slug: str,
    name: str | None = None,
    user=None,
    dry_run: bool = False,
) -> ImportSummary:
    """Import an uploaded dataset: a file, or a release folder packed as a .zip or .tar.gz.

    A folder format's archive is unpacked into a temporary folder (see
    :func:`annotation.corpus.importers.archives.archive_unpacked`; at most
    ``LOUPE_UPLOAD_MAX_BYTES`` unpacked), which :func:`dataset_import` then reads as
    ``manage.py import_dataset`` reads a folder; the folder is removed afterwards.

    Args:
        format_name: a registry name (``jsonl``, ``far-release``, ...) or a short one
            (``far``, ``polytope``).
        upload: the uploaded file, with a ``name``.
        slug: the new dataset's slug.
        name: its display name.
        user: the importing admin.
        dry_run: validate everything, write nothing.

    Returns:
        The :class:`ImportSummary`.

    Raises:
        ImportValidationError: an unknown format, a bad archive, or the import's problems;
            nothing is written.
    """
    chosen = get_format(FORMAT_ALIASES.get(format_name, format_name))
    options = {"slug": slug, "name": name, "user": user, "dry_run": dry_run}
    if not chosen.takes_directory:
        return dataset_import(format_name=chosen.name, source=upload, **options)
    label = getattr(upload, "name", None) or "upload"
    limit = settings.LOUPE_UPLOAD_MAX_BYTES
    with archive_unpacked(upload, label=label, max_bytes=limit) as folder:
        return dataset_import(format_name=chosen.name, source=folder, **options)


@transaction.atomic
def bundle_import(
    *,
    bundle: ImportBundle,
    slug: str,
    user=None,
    dry_run: bool = False,
    dataset=None,
    source: str = "",
) -> ImportSummary:
    """Validate and write an already-parsed bundle (see :func:`dataset_import`).

    Args:
        bundle: the parser's output.
        slug: the dataset slug to create.
        user: the importing user.
        dry_run: validate only.
        dataset: an existing dataset to add systems, outputs and FAMs to, instead of creating one.
        source: the file or release the outputs came from, recorded on their output versions.

    Returns:
        The :class:`ImportSummary`.

    Raises:
        ImportValidationError: validation or pre-flight problems; nothing is written.
    """
    existing = document_known_map(dataset=dataset) if dataset is not None else {}
    validate_bundle(bundle, existing_documents=existing)
    if dry_run:
        check = preflight(bundle, dataset=dataset, slug=slug)
        return summarize(bundle, slug=slug, existing_systems=check.existing_systems, dry_run=True)
    # Another import may write the same dataset, system or output between our checks and writes.
    with concurrent_conflicts(slug), transaction.atomic():
        return write_bundle(bundle, slug=slug, dataset=dataset, user=user, source=source)


@transaction.atomic
def document_update_sentences(*, document: Document, sentences: list[str]) -> Document:
    """Replace a document's sentences, unless the document is frozen.

    A document is frozen as soon as any FAM or system output refers to it, because their
    sentence indices would silently change meaning.

    Args:
        document: the document to edit.
        sentences: the new ordered sentences.

    Returns:
        The saved document.

    Raises:
        ApplicationError: the document is frozen.
        django.core.exceptions.ValidationError: the sentences are not a non-empty list of text.
    """
    document = Document.objects.select_for_update().get(pk=document.pk)
    if document_is_frozen(document=document):
        raise ApplicationError(
            f"Document {document.external_id!r} is frozen: annotations or system outputs refer "
            "to its sentence indices, so its sentences can no longer change.",
            extra={"document": document.pk},
        )
    document.sentences = list(sentences)
    document.full_clean()
    document.save(update_fields=["sentences"])
    return document


@transaction.atomic
def dataset_set_public(*, dataset: Dataset, public: bool) -> Dataset:
    """Make a dataset's releases downloadable by anyone with the link, or by staff only again.

    Args:
        dataset: the dataset.
        public: True: anyone (even without an account) may list and download its releases;
            False: only admins and researchers may.

    Returns:
        The saved dataset.
    """
    dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
    dataset.public = public
    dataset.full_clean()
    dataset.save(update_fields=["public"])
    return dataset


@transaction.atomic
def document_set_category(*, document: Document, category: str) -> Document:
    """Set (or clear, with ``""``) a document's category: noise, low or high abstraction.

    Args:
        document: the document.
        category: one of ``Category.values`` or ``""``.

    Returns:
        The saved document.

    Raises:
        django.core.exceptions.ValidationError: unknown category.
    """
    document.category = category
    document.full_clean()
    document.save(update_fields=["category"])
    return document


__all__ = [
    "Category",
    "bundle_import",
    "dataset_import",
    "dataset_import_upload",
    "dataset_set_public",
    "document_set_category",
    "document_update_sentences",
]
