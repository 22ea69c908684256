"""Workbook and JSONL imports of span annotations: validate everything, then write in one go.

``polytope_workbook_import`` stores an official PolyTope workbook's errors for one system as a
released annotation set (``polytope-release`` unless told otherwise), replacing that system's
rows only. ``span_jsonl_import`` stores Loupe's JSONL export into a set. Both read and check the
whole input first (``annotation.spans.workbook``) and raise ``ImportValidationError`` with every
problem; only then is anything written, in one transaction, through ``span_annotations_replace``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from django.contrib.auth import get_user_model
from django.db import transaction

from annotation.corpus.models import Dataset
from annotation.fams.models import AnnotationSet, AnnotationSetKind
from annotation.imports.bundle import ImportValidationError, Issue, Location, ReportLine
from annotation.imports.rows import concurrent_conflicts
from annotation.systems.models import System, SystemOutput
from scoring.metrics.polytope import EmptySummaryError, NoSegmentsError, Segment, score_system
from scoring.metrics.polytope import Issue as PolytopeIssue
from scoring.metrics.polytope.breakdown import severity_dict
from scoring.metrics.spans import SpanSchemeError, scheme_get, validate_errors

from .models import output_texts
from .services import SpanRecord, span_annotations_replace
from .workbook import Candidate, parse_error_log, parse_spans_jsonl, place_segments
from .workbook.reader import read_error_log

RELEASE_SET = "polytope-release"
RELEASE_SET_NAME = "PolyTope annotations (official workbooks)"
POLYTOPE = "polytope"


@dataclass(frozen=True)
class WorkbookImport:
    """What a workbook import wrote (or, for a dry run, would write) and its report."""

    dataset: str
    system: str
    annotation_set: str
    set_created: bool
    dry_run: bool
    workbook: str
    rows: int
    segments: int
    placed: int
    unplaced: int
    with_errors: int
    clean: int
    errors: int
    severities: dict
    words: int
    score: float | None
    scorecard_lqi: float | None
    report: tuple[ReportLine, ...]

    def as_dict(self) -> dict:
        """A JSON-ready form for the API and the command line."""
        return {
            "dataset": self.dataset,
            "system": self.system,
            "annotation_set": self.annotation_set,
            "set_created": self.set_created,
            "dry_run": self.dry_run,
            "workbook": self.workbook,
            "rows": self.rows,
            "segments": self.segments,
            "placed": self.placed,
            "unplaced": self.unplaced,
            "with_errors": self.with_errors,
            "clean": self.clean,
            "errors": self.errors,
            "severities": self.severities,
            "words": self.words,
            "score": self.score,
            "scorecard_lqi": self.scorecard_lqi,
            "report": [str(line) for line in self.report],
        }


def _candidates(dataset: Dataset, system: System) -> list[Candidate]:
    outputs = SystemOutput.objects.filter(system=system, document__dataset=dataset).select_related(
        "document", "version"
    )
    found = []
    for output in outputs:
        summary, source = output_texts(output)
        trial = output.document.meta.get("trial")
        found.append(
            Candidate(
                output_id=output.pk,
                document=output.document.external_id,
                trial=trial if isinstance(trial, int) else None,
                version=output.version.number,
                summary=summary,
                source=source,
            )
        )
    return found


def _target_set(
    dataset: Dataset, slug: str, *, kinds: Sequence[str], scheme: str, where: Location
) -> tuple[AnnotationSet | None, list[Issue]]:
    existing = AnnotationSet.objects.filter(dataset=dataset, slug=slug).first()
    if existing is None:
        return None, []
    problems = []
    if existing.scheme != scheme:
        problems.append(
            Issue(where, f"annotation set {slug!r} holds {existing.scheme}, not {scheme} spans")
        )
    if existing.kind not in kinds:
        problems.append(
            Issue(
                where,
                f"annotation set {slug!r} is a {existing.kind} set; this import writes "
                f"{' or '.join(kinds)} sets only",
            )
        )
    return existing, problems


def _score(placed) -> tuple[int, float | None, dict]:
    segments, issues = [], []
    for item in placed:
        try:
            segments.append(Segment(str(item.output_id), item.summary))
        except EmptySummaryError:
            continue
        issues += [
            PolytopeIssue(str(item.output_id), error["type"], error["label"])
            for error in item.errors
        ]
    try:
        result = score_system(segments, issues)
    except NoSegmentsError:
        return 0, None, severity_dict({})
    return result.words, result.score, severity_dict(result.severity_counts())


def _locked_set(
    *, dataset: Dataset, slug: str, name: str, kind: str, scheme: str
) -> tuple[AnnotationSet, bool]:
    """The set, locked for this transaction, created (read-only when released) if absent."""
    with concurrent_conflicts(dataset.slug):
        found = AnnotationSet.objects.select_for_update().filter(dataset=dataset, slug=slug).first()
        if found is not None:
            return found, False
        created = AnnotationSet(
            dataset=dataset,
            slug=slug,
            name=name,
            kind=kind,
            scheme=scheme,
            read_only=kind == AnnotationSetKind.RELEASED,
        )
        created.full_clean(validate_constraints=False)
        created.save()
        return created, True


@transaction.atomic
def _write_workbook(
    *, dataset: Dataset, set_slug: str, records: list[SpanRecord], output_ids: list[int], user
) -> tuple[AnnotationSet, bool]:
    annotation_set, created = _locked_set(
        dataset=dataset,
        slug=set_slug,
        name=RELEASE_SET_NAME if set_slug == RELEASE_SET else set_slug,
        kind=AnnotationSetKind.RELEASED,
        scheme=POLYTOPE,
    )
    span_annotations_replace(
        annotation_set=annotation_set, records=records, output_ids=output_ids, user=user
    )
    return annotation_set, created


def polytope_workbook_import(
    *,
    dataset: Dataset,
    system_slug: str,
    source: Path | BinaryIO | bytes,
    filename: str,
    set_slug: str = RELEASE_SET,
    user=None,
    dry_run: bool = False,
    keep_uncounted: bool = False,
    strict: bool = False,
) -> WorkbookImport:
    """Import one system's official PolyTope workbook (its Error Log) as released spans.

    Every row is matched to the system's output by its ID and summary text; the errors get
    spans where their words occur once, and the severity from the matrix. The system's rows
    in the set are replaced (other systems' rows are kept). Nothing is written when anything
    refuses the import, or for a dry run.

    Args:
        dataset: the dataset whose documents the workbook annotates.
        system_slug: the system whose summaries it annotates.
        source: the workbook (path, upload or bytes); read as data only, nothing is run.
        filename: its name, for messages.
        set_slug: the released PolyTope set to write (created when absent).
        user: who imports (the revisions' author).
        dry_run: check and report, write nothing.
        keep_uncounted: store valid rows the sheet does not count (empty Severity...).
        strict: refuse the import when the report has any line.

    Returns:
        The :class:`WorkbookImport`: counts, Loupe's pooled score over the placed segments,
        the ScoreCard's cached LQI, and the report.

    Raises:
        ImportValidationError: every problem found: an unknown system, a set of another kind
            or scheme, a file that is no workbook or lacks the Error Log or its headers, two IDs
            on one output, no segment placed; with ``strict``, every report line.
    """
    where = Location(filename)
    issues: list[Issue] = []
    system = System.objects.filter(slug=system_slug).first()
    candidates: list[Candidate] = []
    if system is None:
        issues.append(Issue(where, f"unknown system {system_slug!r}"))
    else:
        candidates = _candidates(dataset, system)
        if not candidates:
            issues.append(
                Issue(where, f"system {system_slug!r} has no outputs on dataset {dataset.slug!r}")
            )
    existing, problems = _target_set(
        dataset, set_slug, kinds=(AnnotationSetKind.RELEASED,), scheme=POLYTOPE, where=where
    )
    issues += problems
    try:
        sheet = read_error_log(source, name=filename)
    except ImportValidationError as error:
        raise ImportValidationError(issues + error.issues) from error
    parsed = parse_error_log(sheet, system=system_slug, keep_uncounted=keep_uncounted)
    issues += parsed.issues
    if issues:
        raise ImportValidationError(issues)
    placement = place_segments(parsed, candidates)
    # In row order; lines about the whole sheet (no row) last.
    report = sorted(
        (*parsed.report, *placement.report),
        key=lambda line: (line.location.line is None, line.location.line or 0),
    )
    if placement.issues:
        raise ImportValidationError(list(placement.issues))
    if strict and report:
        raise ImportValidationError(
            [Issue(line.location, f"{line.message} (refused: --strict)") for line in report]
        )
    words, score, severities = _score(placement.placed)
    if not dry_run:
        records = [
            SpanRecord(
                output_id=item.output_id,
                errors=item.errors,
                no_errors=item.no_errors,
                annotated_text=item.annotated_text,
            )
            for item in placement.placed
        ]
        existing, created = _write_workbook(
            dataset=dataset,
            set_slug=set_slug,
            records=records,
            output_ids=[candidate.output_id for candidate in candidates],
            user=user,
        )
    else:
        created = existing is None
    return WorkbookImport(
        dataset=dataset.slug,
        system=system_slug,
        annotation_set=set_slug,
        set_created=created,
        dry_run=dry_run,
        workbook=filename,
        rows=parsed.rows,
        segments=len(parsed.groups),
        placed=len(placement.placed),
        unplaced=placement.unplaced,
        with_errors=sum(1 for item in placement.placed if item.errors),
        clean=sum(1 for item in placement.placed if item.no_errors),
        errors=sum(len(item.errors) for item in placement.placed),
        severities=severities,
        words=words,
        score=score,
        scorecard_lqi=parsed.scorecard_lqi,
        report=tuple(report),
    )


@dataclass(frozen=True)
class JsonlImport:
    """What a JSONL import wrote (or would write)."""

    dataset: str
    annotation_set: str
    set_created: bool
    dry_run: bool
    annotations: int
    outputs: int

    def as_dict(self) -> dict:
        """A JSON-ready form."""
        return {
            "dataset": self.dataset,
            "annotation_set": self.annotation_set,
            "set_created": self.set_created,
            "dry_run": self.dry_run,
            "annotations": self.annotations,
            "outputs": self.outputs,
        }


def _jsonl_records(dataset: Dataset, lines, kind: str, scheme_name: str, label: str):
    """Resolve each line to its output (and annotator) and check its errors; collect issues."""
    issues: list[Issue] = []
    outputs: dict[tuple[str, str], dict[int, SystemOutput]] = {}
    for output in SystemOutput.objects.filter(document__dataset=dataset).select_related(
        "document", "version", "system"
    ):
        key = (output.system.slug, output.document.external_id)
        outputs.setdefault(key, {})[output.version.number] = output
    names = {line.annotator for line in lines if line.annotator}
    users = {
        user.username: user for user in get_user_model().objects.filter(username__in=sorted(names))
    }
    scheme = scheme_get(scheme_name)
    records: list[SpanRecord] = []
    seen: dict[tuple[int, str | None], int] = {}
    for line in lines:
        where = Location(label, line.line)
        versions = outputs.get((line.system, line.document))
        if versions is None:
            issues.append(
                Issue(
                    where,
                    f"no output of system {line.system!r} for document {line.document!r} on "
                    f"dataset {dataset.slug!r}",
                )
            )
            continue
        number = line.version if line.version is not None else max(versions)
        output = versions.get(number)
        if output is None:
            issues.append(
                Issue(where, f"system {line.system!r} has no version {number} of that output")
            )
            continue
        annotator = None
        if line.annotator is not None:
            if kind != AnnotationSetKind.HUMAN:
                issues.append(
                    Issue(
                        where,
                        f"annotator {line.annotator!r} in a {kind} set: released and gold "
                        "sets hold one annotation per output, without annotator",
                    )
                )
                continue
            annotator = users.get(line.annotator)
            if annotator is None:
                issues.append(Issue(where, f"unknown annotator {line.annotator!r}"))
                continue
        key = (output.pk, line.annotator)
        if key in seen:
            issues.append(Issue(where, f"repeats the annotation of line {seen[key]}"))
            continue
        seen[key] = line.line
        if line.no_errors and line.errors:
            issues.append(Issue(where, "no_errors is true but errors are listed"))
            continue
        summary, source = output_texts(output, line.annotated_text)
        try:
            marked = validate_errors(scheme, line.errors, summary=summary, source=source)
        except SpanSchemeError as error:
            issues.append(Issue(where, str(error)))
            continue
        records.append(
            SpanRecord(
                output_id=output.pk,
                errors=tuple(error.as_dict() for error in marked),
                no_errors=line.no_errors,
                annotator_id=annotator.pk if annotator else None,
                annotated_text=line.annotated_text,
            )
        )
    return records, issues


@transaction.atomic
def _write_jsonl(
    *, dataset, set_slug, name, kind, scheme, records, user
) -> tuple[AnnotationSet, bool]:
    annotation_set, created = _locked_set(
        dataset=dataset, slug=set_slug, name=name or set_slug, kind=kind, scheme=scheme
    )
    span_annotations_replace(
        annotation_set=annotation_set,
        records=records,
        output_ids=sorted({record.output_id for record in records}),
        user=user,
    )
    return annotation_set, created


def span_jsonl_import(
    *,
    dataset: Dataset,
    source: Path | BinaryIO,
    filename: str,
    set_slug: str,
    kind: str = AnnotationSetKind.RELEASED,
    scheme: str = POLYTOPE,
    name: str = "",
    user=None,
    dry_run: bool = False,
) -> JsonlImport:
    """Import span annotations from JSONL (Loupe's export) into a set, replacing its rows.

    The set's rows of every output the file names are replaced (all annotators'); rows of
    other outputs are kept. A missing set is created with ``kind`` and ``scheme``.

    Args:
        dataset: the dataset the annotations belong to.
        source: the JSONL file (path or upload).
        filename: its name, for messages.
        set_slug: the set written.
        kind: ``released``, ``gold`` or ``human`` (for a new set; an existing set's must match).
        scheme: the span scheme (for a new set; an existing set's must match).
        name: the new set's name (default: its slug).
        user: who imports.
        dry_run: check only.

    Returns:
        The :class:`JsonlImport`.

    Raises:
        ImportValidationError: every problem, each with its line: bad JSON or shape, an
            unknown output, version or annotator, an annotator in a released or gold set, a
            repeated annotation, an error the scheme refuses; a set of another kind or scheme.
    """
    where = Location(filename)
    issues: list[Issue] = []
    if kind not in (AnnotationSetKind.RELEASED, AnnotationSetKind.GOLD, AnnotationSetKind.HUMAN):
        issues.append(Issue(where, f"kind must be released, gold or human, got {kind!r}"))
    try:
        scheme_get(scheme)
    except SpanSchemeError as error:
        raise ImportValidationError([Issue(where, str(error))]) from error
    existing, problems = _target_set(dataset, set_slug, kinds=(kind,), scheme=scheme, where=where)
    issues += problems
    try:
        lines = parse_spans_jsonl(source, name=filename)
    except ImportValidationError as error:
        raise ImportValidationError(issues + error.issues) from error
    records, problems = _jsonl_records(dataset, lines, kind, scheme, filename)
    issues += problems
    if issues:
        raise ImportValidationError(issues)
    created = existing is None
    if not dry_run:
        _, created = _write_jsonl(
            dataset=dataset,
            set_slug=set_slug,
            name=name,
            kind=kind,
            scheme=scheme,
            records=records,
            user=user,
        )
    return JsonlImport(
        dataset=dataset.slug,
        annotation_set=set_slug,
        set_created=created,
        dry_run=dry_run,
        annotations=len(records),
        outputs=len({record.output_id for record in records}),
    )
