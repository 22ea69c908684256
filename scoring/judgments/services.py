"""Human judgment services (writes): import a study atomically, delete one, write a release's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import BinaryIO

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, transaction
from rest_framework import status

from annotation.corpus.models import Dataset, Document
from annotation.imports.bundle import ImportBundle, ImportValidationError, Issue, Location
from annotation.imports.hooks import JudgmentsPartWriter
from annotation.imports.rows import clean_all
from annotation.systems.models import System, SystemOutput
from config.exceptions import ApplicationError, ConflictError

from .models import HumanJudgment, ReleasedScore
from .parsers import judgments_parse
from .rows import DOC_ID, SYSTEM, ParsedStudy
from .selectors import human_judgment_study_may_change

NAME_MAX_LENGTH = 64


def _resolve(
    study: ParsedStudy, *, dataset: Dataset, issues: list[Issue]
) -> tuple[dict[str, System], dict[str, int]]:
    """Look up the systems (they need outputs for ``dataset``) and documents the rows name."""
    slugs = {row.system for row in study.rows}
    systems = {s.slug: s for s in System.objects.filter(slug__in=slugs)}
    with_outputs = set(
        SystemOutput.objects.filter(document__dataset=dataset, system__slug__in=slugs)
        .values_list("system__slug", flat=True)
        .distinct()
    )
    external_ids = {row.document for row in study.rows if row.document is not None}
    documents = dict(
        Document.objects.filter(dataset=dataset, external_id__in=external_ids).values_list(
            "external_id", "pk"
        )
    )
    problems: dict[tuple[str, str], list[Location]] = {}
    for row in study.rows:
        if row.system not in systems:
            key = (SYSTEM, f"unknown system {row.system!r}")
        elif row.system not in with_outputs:
            key = (SYSTEM, f"system {row.system!r} has no outputs for dataset {dataset.slug!r}")
        else:
            key = None
        if key:
            problems.setdefault(key, []).append(row.location)
        if row.document is not None and row.document not in documents:
            key = (DOC_ID, f"unknown document {row.document!r} in dataset {dataset.slug!r}")
            problems.setdefault(key, []).append(row.location)
    for (column, message), locations in problems.items():
        first = locations[0]
        more = len(locations) - 1
        suffix = f" (and {more} more line{'s' if more > 1 else ''})" if more else ""
        issues.append(Issue(Location(first.file, first.line, column), message + suffix))
    return systems, documents


def _check_name(name: str) -> None:
    try:
        validate_slug(name)
    except ValidationError as error:
        raise ApplicationError(
            f"The study name {name!r} is not a slug (letters, digits, - and _).",
            extra={"field": "name"},
        ) from error
    if len(name) > NAME_MAX_LENGTH:
        raise ApplicationError(
            f"The study name is longer than {NAME_MAX_LENGTH} characters.", extra={"field": "name"}
        )


@transaction.atomic
def human_judgments_import(
    *,
    dataset: Dataset,
    name: str,
    source: Path | BinaryIO,
    filename: str,
    user=None,
    replace: bool = False,
) -> dict:
    """Import one human judgment study for ``dataset``: validate the whole file, then write it.

    Args:
        dataset: the dataset judged.
        name: the study's name (a slug, e.g. ``overall`` or ``faithfulness``; surrounding
            spaces are dropped, and a name differing from a stored one only in case is that
            study's, as the stored name spells it).
        source: the file: a path or a binary file object (e.g. an upload).
        filename: its name: ``.csv`` or ``.jsonl`` chooses the format (see
            :func:`judgments_parse`); also used in issues.
        user: the uploader, recorded on every row.
        replace: replace an existing study of that name (its old rows are deleted in the same
            transaction); without it an existing name is refused.

    Returns:
        ``{"name", "kind", "per_document", "rows", "systems", "replaced"}``: the study's kind
        (``score`` or ``rank``), whether it is per document, how many rows were written, the
        judged systems' slugs (sorted) and whether an earlier study was replaced.

    Raises:
        ApplicationError: the name is not a slug of at most 64 characters.
        ConflictError: a study of that name exists and ``replace`` is False (HTTP 409).
        ImportValidationError: every problem in the file (format, values, duplicates, mixed
            shapes or kinds, unknown systems or documents, bad UTF-8), each naming the file, line
            and field; nothing is written.
    """
    name = name.strip()
    _check_name(name)
    # One study per name regardless of case: "Overall" names the study "overall" if it exists.
    stored = (
        HumanJudgment.objects.filter(dataset=dataset, name__iexact=name)
        .values_list("name", flat=True)
        .first()
    )
    name = stored or name
    existing = HumanJudgment.objects.filter(dataset=dataset, name=name)
    if replace:
        _check_owner(existing, user=user, name=name)
    if existing.exists() and not replace:
        raise ConflictError(
            f"A study named {name!r} already exists for {dataset.slug!r}; "
            "send replace=true to replace it.",
            extra={"name": name},
        )
    issues: list[Issue] = []
    study = judgments_parse(source, filename=filename, issues=issues)
    systems, documents = _resolve(study, dataset=dataset, issues=issues)
    if issues:
        raise ImportValidationError(issues)
    replaced = bool(existing.delete()[0]) if replace else False
    values = [
        (
            systems[row.system],
            documents[row.document] if row.document is not None else None,
            row.value,
        )
        for row in study.rows
    ]
    written = _judgment_rows_create(
        dataset=dataset, name=name, kind=study.kind, values=values, user=user
    )
    return {
        "name": name,
        "kind": study.kind,
        "per_document": bool(study.per_document),
        "rows": written,
        "systems": sorted({row.system for row in study.rows}),
        "replaced": replaced,
    }


def _judgment_rows_create(
    *,
    dataset: Dataset,
    name: str,
    kind: str,
    values: Iterable[tuple[System, int | None, float]],
    user=None,
) -> int:
    """Check and insert one study's rows, whose systems and documents the caller resolved.

    Returns:
        How many rows were written.

    Raises:
        ConflictError: a study of that name was written at the same time (HTTP 409).
    """
    rows = [
        HumanJudgment(
            dataset=dataset,
            name=name,
            kind=kind,
            system=system,
            document_id=document_id,
            value=value,
            uploaded_by=user,
        )
        for system, document_id, value in values
    ]
    for row in rows:  # references resolved by the caller; the database enforces the constraints
        row.full_clean(
            exclude=["dataset", "system", "document", "uploaded_by"], validate_constraints=False
        )
    try:
        with transaction.atomic():
            HumanJudgment.objects.bulk_create(rows)
    except IntegrityError as error:  # a concurrent upload of the same name won the race
        raise ConflictError(
            f"A study named {name!r} was written at the same time; try again.",
            extra={"name": name},
        ) from error
    return len(rows)


class JudgmentsWriter(JudgmentsPartWriter):
    """Writes the judgment studies and released scores a dataset release brings."""

    def check(self, bundle: ImportBundle, *, dataset: Dataset | None) -> tuple[Issue, ...]:
        """Refuse a study or released-score name the target dataset has already.

        Args:
            bundle: a validated bundle.
            dataset: the target dataset, or None when the import creates it (nothing to clash).

        Returns:
            One issue per name taken.
        """
        if dataset is None:
            return ()
        studies = HumanJudgment.objects.filter(
            dataset=dataset, name__in=[s.name for s in bundle.judgment_studies]
        )
        released = ReleasedScore.objects.filter(
            dataset=dataset, release__in=[r.name for r in bundle.released_scores]
        )
        taken = [
            *(("study", n) for n in studies.values_list("name", flat=True).distinct()),
            *(("released scores", n) for n in released.values_list("release", flat=True)),
        ]
        return tuple(
            Issue(Location(f"{what} {name}", field="name"), "the dataset has this name already")
            for what, name in sorted(set(taken))
        )

    def write(
        self,
        bundle: ImportBundle,
        *,
        dataset: Dataset,
        documents: Mapping[str, Document],
        user=None,
    ) -> None:
        """Write every study's judgments and every released score set, after the outputs.

        Args:
            bundle: a bundle that passed :meth:`check`.
            dataset: the dataset row.
            documents: its documents by external id.
            user: recorded as the judgments' uploader.
        """
        slugs = {j.system_slug for s in bundle.judgment_studies for j in s.judgments}
        slugs |= {r.system_slug for s in bundle.released_scores for r in s.scores}
        systems = {s.slug: s for s in System.objects.filter(slug__in=slugs)}
        for study in bundle.judgment_studies:
            values = (
                (systems[j.system_slug], documents[j.document_id].pk, j.value)
                for j in study.judgments
            )
            _judgment_rows_create(
                dataset=dataset, name=study.name, kind=study.kind, values=values, user=user
            )
        for released in bundle.released_scores:
            rows = [
                ReleasedScore(
                    dataset=dataset,
                    release=released.name,
                    system=systems[record.system_slug],
                    document=documents[record.document_id],
                    scores=dict(record.scores),
                )
                for record in released.scores
            ]
            clean_all(rows)
            ReleasedScore.objects.bulk_create(rows, batch_size=2000)


JUDGMENTS_WRITER = JudgmentsWriter()


def _check_owner(rows, *, user, name: str) -> None:
    """Only the study's uploader or an admin may replace or delete it (None: the shell)."""
    owners = set(rows.values_list("uploaded_by", flat=True).distinct())
    if not human_judgment_study_may_change(owner_ids=owners, user=user):
        raise ApplicationError(
            f"The study {name!r} was uploaded by someone else; only they or an admin can "
            "replace or delete it.",
            status_code=status.HTTP_403_FORBIDDEN,
        )


@transaction.atomic
def human_judgment_study_delete(*, dataset: Dataset, name: str, user=None) -> int:
    """Delete every row of one study.

    Args:
        dataset: the dataset the study judges.
        name: the study's name.
        user: who deletes it: its uploader or an admin (None: not checked).

    Returns:
        How many rows were deleted.

    Raises:
        ApplicationError: no study of that name (HTTP 404); someone else's study (HTTP 403).
    """
    rows = HumanJudgment.objects.filter(dataset=dataset, name=name)
    _check_owner(rows, user=user, name=name)
    deleted, _ = rows.delete()
    if not deleted:
        raise ApplicationError(
            f"No study named {name!r} for {dataset.slug!r}.", status_code=status.HTTP_404_NOT_FOUND
        )
    return deleted
