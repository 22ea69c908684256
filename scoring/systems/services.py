"""System services (writes): register a system, import its outputs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from django.db import transaction

from .models import System

if TYPE_CHECKING:
    from annotation.corpus.importers.bundle import SystemRecord
    from annotation.corpus.importers.writer import ImportSummary


@transaction.atomic
def system_create(
    *, slug: str, name: str, kind: str, owner=None, description: str = "", trained_on: str = ""
) -> System:
    """Register a summarization system.

    Args:
        slug: unique identifier used in URLs and files.
        name: display name.
        kind: ``extractive`` or ``abstractive``.
        owner: the researcher who registers it.
        description: free text.
        trained_on: the training data's label, e.g. ``CNN/DM``.

    Returns:
        The new system.

    Raises:
        django.core.exceptions.ValidationError: taken slug or unknown kind.
    """
    system = System(
        slug=slug, name=name, kind=kind, owner=owner, description=description, trained_on=trained_on
    )
    system.full_clean()
    system.save()
    return system


@transaction.atomic
def system_output_import(
    *,
    dataset,
    system: SystemRecord,
    source: Path | BinaryIO,
    file_label: str | None = None,
    user=None,
    dry_run: bool = False,
) -> ImportSummary:
    """Import one system's outputs (JSONL) for documents of an existing dataset.

    The file is parsed, every line validated against the dataset's documents (unknown ids,
    duplicates, out-of-range indices, empty summaries), and only then written in one
    transaction. The system is created if it does not exist yet.

    Args:
        dataset: the dataset whose documents the outputs summarize.
        system: the system's record (slug, name, kind, ...).
        source: a path or binary file object with one JSON object per line.
        file_label: the name used in error messages.
        user: the uploader (owner of a newly created system).
        dry_run: validate only.

    Returns:
        The :class:`ImportSummary`, whose report lists low-confidence text-to-index mappings.

    Raises:
        ImportValidationError: any problem, naming file, line and field; nothing is written.
    """
    from annotation.corpus.importers.bundle import DatasetRecord, ImportBundle
    from annotation.corpus.importers.parsers.outputs_jsonl import parse_outputs_jsonl
    from annotation.corpus.importers.readers import read_lines
    from annotation.corpus.services import bundle_import

    label = file_label or (source.name if isinstance(source, Path) else "upload")
    documents = {d.external_id: tuple(d.sentences) for d in dataset.documents.all()}
    bundle = ImportBundle(
        dataset=DatasetRecord(slug=dataset.slug, name=dataset.name), systems=[system]
    )
    bundle.outputs = parse_outputs_jsonl(
        read_lines(source, name=label),
        file=label,
        system=system,
        documents=documents,
        report=bundle.report,
    )
    return bundle_import(
        bundle=bundle, slug=dataset.slug, dataset=dataset, user=user, dry_run=dry_run
    )
