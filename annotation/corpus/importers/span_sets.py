"""A bundle's span sets (error spans of its outputs), checked before anything is written.

Pure: the checks use the import records and the span schemes of ``scoring.metrics.spans``, so
that a dry run finds every problem and the writer only writes what passed.
"""

from __future__ import annotations

from annotation.imports.bundle import ImportBundle, Issue, Location, SpanSetRecord
from annotation.imports.validators import slug_problem
from scoring.metrics.spans import SpanSchemeError, join_sentences, scheme_get, validate_errors

SET_KINDS = ("released", "human", "gold", "machine")
MAX_SET_NAME = 200


def _check_set(record: SpanSetRecord, issues: list[Issue]) -> bool:
    where = Location(f"span set {record.slug}")
    problem = slug_problem(record.slug)
    if problem:
        issues.append(Issue(Location(where.file, field="slug"), problem))
    if not record.name.strip() or len(record.name) > MAX_SET_NAME:
        issues.append(
            Issue(Location(where.file, field="name"), f"name must be 1-{MAX_SET_NAME} characters")
        )
    if record.kind not in SET_KINDS:
        issues.append(
            Issue(Location(where.file, field="kind"), f"kind must be one of {', '.join(SET_KINDS)}")
        )
    try:
        scheme_get(record.scheme)
    except SpanSchemeError as error:
        issues.append(Issue(Location(where.file, field="scheme"), str(error)))
        return False
    return True


def check_span_sets(bundle: ImportBundle) -> list[Issue]:
    """Check every span set of ``bundle`` against its outputs and its scheme.

    Args:
        bundle: a parsed bundle (its outputs and documents are the texts the spans index).

    Returns:
        The problems found (empty when all is well): a bad slug, name, kind or scheme, a slug
        used twice, an annotation of an output the bundle does not bring or named twice, an
        output both clean and with errors, and every error its scheme refuses.
    """
    issues: list[Issue] = []
    summaries = {
        (o.system_slug, o.document_id): join_sentences(o.sentences) for o in bundle.outputs
    }
    sources = {
        d.external_id: None if d.meta.get("text_missing") else join_sentences(d.sentences)
        for d in bundle.documents
    }
    taken = {record.slug for record in bundle.annotation_sets}
    for record in bundle.span_sets:
        if record.slug in taken:
            issues.append(
                Issue(Location(f"span set {record.slug}", field="slug"), "slug used twice")
            )
        taken.add(record.slug)
        if not _check_set(record, issues):
            continue
        scheme = scheme_get(record.scheme)
        seen: set[tuple[str, str]] = set()
        for annotation in record.annotations:
            key = (annotation.system_slug, annotation.document_id)
            where = annotation.location or Location(
                f"span set {record.slug}: {annotation.system_slug}/{annotation.document_id}"
            )
            if key not in summaries:
                issues.append(Issue(where, f"no output of {key[0]} for document {key[1]!r}"))
                continue
            if key in seen:
                issues.append(Issue(where, f"{key[0]}/{key[1]} is annotated twice in the set"))
                continue
            seen.add(key)
            if annotation.no_errors and annotation.errors:
                issues.append(Issue(where, "marked as having no errors but lists errors"))
                continue
            try:
                validate_errors(
                    scheme,
                    list(annotation.errors),
                    summary=annotation.annotated_text or summaries[key],
                    source=sources.get(annotation.document_id),
                )
            except SpanSchemeError as error:
                issues.append(Issue(where, f"{key[0]}/{key[1]}: {error}"))
    return issues
