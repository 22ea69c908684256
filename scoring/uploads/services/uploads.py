"""Output uploads (writes): import a system's outputs (JSONL, zip or directory), queue scoring."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.db import transaction
from django.db.models import Max

from annotation.corpus.models import Document
from annotation.corpus.selectors import DocumentSentences, document_known_map
from annotation.imports.bundle import (
    DatasetRecord,
    ImportBundle,
    ImportValidationError,
    Issue,
    Location,
    OutputRecord,
    ReportLine,
    SystemRecord,
)
from annotation.imports.readers import read_lines
from annotation.imports.rows import concurrent_conflicts
from annotation.imports.summary import ImportSummary, summarize
from annotation.imports.validators import validate_bundle
from annotation.systems.models import OutputVersion
from annotation.systems.services.outputs_writer import OUTPUTS_WRITER
from config.uploads import upload_size_check
from scoring.scores.models import JobTrigger
from scoring.scores.services import scoring_job_create

from ..parsers import outputs_files
from ..parsers.outputs_jsonl import low_confidence_issues, parse_outputs_jsonl
from ..signals import outputs_uploaded

# Upload formats, chosen by the file name (a directory is always "dir").
FORMAT_JSONL, FORMAT_ZIP, FORMAT_DIR = "jsonl", "zip", "dir"
JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")

# (documents by external id, report) -> the parsed outputs
OutputsParser = Callable[[Mapping[str, tuple[str, ...]], list[ReportLine]], list[OutputRecord]]


@dataclass(frozen=True)
class OutputUpload:
    """What an upload did: the import summary, the version it made and the scoring job queued.

    For a dry run ``version`` is the number the upload would get and ``job_id`` is None.
    """

    summary: ImportSummary
    system: str
    version: int
    job_id: int | None


def _outputs_import(
    *,
    dataset,
    system: SystemRecord,
    label: str,
    parse: OutputsParser,
    user,
    dry_run: bool,
    accept_low_confidence: bool,
) -> ImportSummary:
    """Parse with ``parse``, validate with the import kernel, then write in one transaction.

    The dataset's documents are read once, without their sentences (ids and stored sentence
    counts), and locked unless this is a dry run: the freeze check in
    ``document_update_sentences`` takes the same row locks. The parser then reads only the
    sentences it needs (``DocumentSentences``): those at the given indices, or whole documents
    to align text with.
    """
    with concurrent_conflicts(dataset.slug), transaction.atomic():
        rows = Document.objects.filter(dataset=dataset)
        if not dry_run:
            rows = rows.select_for_update()
        locked = {
            d.external_id: d
            for d in rows.only("pk", "dataset_id", "external_id", "n_sentences").order_by()
        }
        documents = DocumentSentences({key: (d.pk, d.n_sentences) for key, d in locked.items()})
        bundle = ImportBundle(
            dataset=DatasetRecord(slug=dataset.slug, name=dataset.name), systems=[system]
        )
        bundle.outputs = parse(documents, bundle.report)
        issues = [] if accept_low_confidence else low_confidence_issues(bundle.outputs)
        try:
            known = document_known_map(dataset=dataset, sentence_counts=documents.counts())
            validate_bundle(bundle, existing_documents=known)
        except ImportValidationError as error:
            issues = [*error.issues, *issues]
        if issues:
            raise ImportValidationError(issues)
        check = OUTPUTS_WRITER.check(bundle, dataset=dataset)
        if check.issues:
            raise ImportValidationError(list(check.issues))
        if dry_run:
            return summarize(
                bundle, slug=dataset.slug, existing_systems=check.existing_systems, dry_run=True
            )
        versions = OUTPUTS_WRITER.write(
            bundle, dataset=dataset, documents=locked, user=user, source=label or dataset.source
        )
    return summarize(
        bundle, slug=dataset.slug, existing_systems=check.existing_systems, versions=versions
    )


def _parser(fmt: str, source, label: str, system: SystemRecord) -> OutputsParser:
    """The parse step for one upload format."""
    if fmt == FORMAT_JSONL:
        return lambda documents, report: parse_outputs_jsonl(
            read_lines(source, name=label),
            file=label,
            system=system,
            documents=documents,
            report=report,
        )
    return lambda documents, report: outputs_files.parse_outputs_files(
        source,
        file=label,
        max_bytes=settings.LOUPE_UPLOAD_MAX_BYTES,
        system=system,
        documents=documents,
        report=report,
    )


@transaction.atomic
def system_output_import(
    *,
    dataset,
    system: SystemRecord,
    source: Path | BinaryIO,
    file_label: str | None = None,
    user=None,
    dry_run: bool = False,
    accept_low_confidence: bool = False,
) -> ImportSummary:
    """Import one system's outputs (JSONL) for documents of an existing dataset.

    The file is parsed, every line validated against the dataset's documents (unknown ids,
    duplicates, out-of-range indices, empty summaries), and only then written in one
    transaction. The system is created if it does not exist yet. No scoring job is queued
    (see :func:`system_outputs_upload` for that).

    Args:
        dataset: the dataset whose documents the outputs summarize.
        system: the system's record (slug, name, kind, ...).
        source: a path or binary file object with one JSON object per line.
        file_label: the name used in error messages.
        user: the uploader (owner of a newly created system).
        dry_run: validate only.
        accept_low_confidence: keep text-to-index mappings below the threshold (listed in the
            report) instead of refusing them.

    Returns:
        The :class:`ImportSummary`, whose report lists low-confidence text-to-index mappings.

    Raises:
        ImportValidationError: any problem, naming file, line and field (a low-confidence
            mapping too, unless accepted); nothing is written.
    """
    label = file_label or (source.name if isinstance(source, Path) else "upload")
    return _outputs_import(
        dataset=dataset,
        system=system,
        label=label,
        parse=_parser(FORMAT_JSONL, source, label, system),
        user=user,
        dry_run=dry_run,
        accept_low_confidence=accept_low_confidence,
    )


def output_upload_format(*, source: Path | BinaryIO, filename: str) -> str:
    """Which upload format a source is: ``dir`` for a directory, else by the file name.

    Args:
        source: the path or uploaded file.
        filename: its name (``outputs.jsonl``, ``outputs.zip``, ...).

    Returns:
        ``jsonl`` (``.jsonl``, ``.json`` or ``.ndjson``), ``zip`` or ``dir``.

    Raises:
        ImportValidationError: any other name, or a path that does not exist.
    """
    if isinstance(source, Path):
        if source.is_dir():
            return FORMAT_DIR
        if not source.is_file():
            raise ImportValidationError([Issue(Location(filename), "file not found")])
    name = filename.lower()
    if name.endswith(JSONL_SUFFIXES):
        return FORMAT_JSONL
    if name.endswith(".zip"):
        return FORMAT_ZIP
    raise ImportValidationError(
        [
            Issue(
                Location(filename),
                "unknown file type: upload a .jsonl file (one JSON object per line), a .zip of "
                "<doc_id>.txt files, or a directory of them",
            )
        ]
    )


def _check_size(source: Path | BinaryIO, filename: str) -> None:
    if isinstance(source, Path):
        size = source.stat().st_size
    else:
        size = getattr(source, "size", None)
        if size is None:
            position = source.tell()
            size = source.seek(0, 2) - position
            source.seek(position)
    upload_size_check(size=size, name=filename)


@transaction.atomic
def system_outputs_upload(
    *,
    dataset,
    system: SystemRecord,
    source: Path | BinaryIO,
    filename: str,
    user=None,
    dry_run: bool = False,
    accept_low_confidence: bool = False,
) -> OutputUpload:
    """Upload a system's outputs (JSONL, zip or directory) and queue their scoring.

    The size is checked first, then the file is parsed and validated, and only then written in
    one transaction as the system's next output version; a subset of the dataset's documents
    is fine. Once the transaction commits, a scoring job (trigger ``upload``) for the new
    version goes to the workers; ``outputs_uploaded`` is sent for other apps' work (bias).

    Args:
        dataset: the dataset whose documents the outputs summarize.
        system: the system's record (see :func:`system_record_for_upload`).
        source: an uploaded file or a path (a ``.jsonl`` or ``.zip`` file, or a directory of
            ``<doc_id>.txt`` files).
        filename: the file's name: it picks the format and names the file in messages.
        user: the uploader (owner of a new system, creator of the version and the job).
        dry_run: validate only; nothing is written and no job is queued.
        accept_low_confidence: keep extractive sentences whose nearest document sentence has
            a TF-IDF cosine below 0.3 (listed in the report) instead of refusing them.

    Returns:
        An :class:`OutputUpload` with the summary, the version number and the job's id.

    Raises:
        UploadTooLargeError: the file is over ``settings.LOUPE_UPLOAD_MAX_BYTES``.
        ImportValidationError: an unknown file type or any invalid record (a zip that unpacks
            to more than the limit included), each issue naming the file (the member inside
            an archive), the line and the field; nothing is written.
    """
    fmt = output_upload_format(source=source, filename=filename)
    if fmt != FORMAT_DIR:
        _check_size(source, filename)
    parse = _parser(fmt, source, filename, system)

    def parse_some(documents, report) -> list[OutputRecord]:
        outputs = parse(documents, report)
        if not outputs:
            raise ImportValidationError([Issue(Location(filename), "no outputs in the file")])
        return outputs

    summary = _outputs_import(
        dataset=dataset,
        system=system,
        label=filename,
        parse=parse_some,
        user=user,
        dry_run=dry_run,
        accept_low_confidence=accept_low_confidence,
    )
    if dry_run:
        versions = OutputVersion.objects.filter(system__slug=system.slug, dataset=dataset)
        latest = versions.aggregate(latest=Max("number"))["latest"] or 0
        return OutputUpload(summary, system.slug, latest + 1, None)
    versions = [
        OutputVersion.objects.get(system__slug=slug, dataset=dataset, number=number)
        for slug, number in summary.versions
    ]
    job = scoring_job_create(
        dataset=dataset, trigger=JobTrigger.UPLOAD, versions=versions, user=user
    )
    outputs_uploaded.send(sender=OutputVersion, dataset=dataset, versions=versions, user=user)
    return OutputUpload(summary, system.slug, summary.versions[0][1], job.pk)
