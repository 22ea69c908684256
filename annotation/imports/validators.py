"""Validators: check a whole ImportBundle before anything is written, collecting every issue."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from scoring.metrics.fam import FamError, validate_fam

from .bundle import (
    CATEGORIES,
    FACET_NO_SUPPORT,
    FACET_NOISE,
    FACET_SUPPORTED,
    JUDGMENT_KINDS,
    JUDGMENT_RANK,
    KIND_ABSTRACTIVE,
    KIND_EXTRACTIVE,
    METHOD_GIVEN,
    ImportBundle,
    ImportValidationError,
    Issue,
    Location,
)

FACET_LABELS = (FACET_SUPPORTED, FACET_NO_SUPPORT, FACET_NOISE)
# Column sizes of the models, checked here so that a bad record fails validation, not the write.
MAX_EXTERNAL_ID = 200
MAX_NAME = 200
MAX_SLUG = 64
SLUG_RE = re.compile(r"^[-a-zA-Z0-9_]+$")


def slug_problem(slug: str) -> str | None:
    """Why ``slug`` is not a valid slug (letters, digits, ``-``, ``_``; at most 64), or None."""
    if not slug or not SLUG_RE.match(slug):
        return f"{slug!r} is not a valid slug: use letters, digits, hyphens and underscores"
    if len(slug) > MAX_SLUG:
        return f"slug is {len(slug)} characters long; the limit is {MAX_SLUG}"
    return None


@dataclass(frozen=True)
class KnownDocument:
    """What the validators need to know of a document that already exists or is in the bundle."""

    n_sentences: int
    facet_counts: tuple[int, ...]  # facets of each reference, by reference position


def _loc(record, fallback: str) -> Location:
    return record.location or Location(fallback)


def _check_documents(bundle: ImportBundle, issues: list[Issue]) -> dict[str, KnownDocument]:
    seen: dict[str, Location] = {}
    known: dict[str, KnownDocument] = {}
    for doc in bundle.documents:
        loc = _loc(doc, f"document {doc.external_id}")
        if doc.external_id in seen:
            issues.append(
                Issue(
                    Location(loc.file, loc.line, "id"),
                    f"duplicate document id {doc.external_id!r} (first at {seen[doc.external_id]})",
                )
            )
            continue
        seen[doc.external_id] = loc
        if len(doc.external_id) > MAX_EXTERNAL_ID:
            issues.append(
                Issue(
                    Location(loc.file, loc.line, "id"),
                    f"document id is {len(doc.external_id)} characters long; "
                    f"the limit is {MAX_EXTERNAL_ID}",
                )
            )
        textless = doc.meta.get("text_missing") is True  # a release without article text
        if (not doc.sentences and not textless) or any(not s.strip() for s in doc.sentences):
            issues.append(
                Issue(Location(loc.file, loc.line, "sentences"), "empty sentence or document")
            )
        if not doc.references:
            issues.append(Issue(Location(loc.file, loc.line, "references"), "no reference"))
        for position, ref in enumerate(doc.references):
            if not ref.sentences or any(not s.strip() for s in ref.sentences):
                issues.append(
                    Issue(
                        Location(loc.file, loc.line, f"references[{position}]"),
                        "empty reference sentence",
                    )
                )
        if doc.category is not None and doc.category not in CATEGORIES:
            issues.append(
                Issue(
                    Location(loc.file, loc.line, "category"), f"unknown category {doc.category!r}"
                )
            )
        known[doc.external_id] = KnownDocument(
            len(doc.sentences), tuple(len(r.sentences) for r in doc.references)
        )
    return known


def _check_systems(bundle: ImportBundle, issues: list[Issue]) -> dict[str, str]:
    kinds: dict[str, str] = {}
    for system in bundle.systems:
        loc = Location(f"system {system.slug}", field="kind")
        if system.slug in kinds:
            issues.append(Issue(Location(loc.file, field="slug"), "system listed twice"))
        problem = slug_problem(system.slug)
        if problem:
            issues.append(Issue(Location(loc.file, field="slug"), problem))
        if not system.name.strip() or len(system.name) > MAX_NAME:
            issues.append(
                Issue(Location(loc.file, field="name"), f"name must be 1-{MAX_NAME} characters")
            )
        if system.kind not in (KIND_EXTRACTIVE, KIND_ABSTRACTIVE):
            issues.append(
                Issue(loc, f"kind must be extractive or abstractive, got {system.kind!r}")
            )
        kinds[system.slug] = system.kind
    return kinds


def _check_outputs(
    bundle: ImportBundle, documents: Mapping[str, KnownDocument], kinds: Mapping[str, str], issues
) -> set[tuple[str, str]]:
    """Check each output; return the (system, document) pairs of the valid ones."""
    seen: dict[tuple[str, str], Location] = {}
    for output in bundle.outputs:
        loc = _loc(output, f"output {output.system_slug}/{output.document_id}")
        key = (output.system_slug, output.document_id)
        if output.system_slug not in kinds:
            issues.append(Issue(loc, f"unknown system {output.system_slug!r}"))
            continue
        doc = documents.get(output.document_id)
        if doc is None:
            issues.append(
                Issue(
                    Location(loc.file, loc.line, "doc_id"),
                    f"unknown document id {output.document_id!r}",
                )
            )
            continue
        if key in seen:
            issues.append(
                Issue(
                    Location(loc.file, loc.line, "doc_id"),
                    f"duplicate output for document {output.document_id!r} (first at {seen[key]})",
                )
            )
            continue
        seen[key] = loc
        _check_extracted(output, doc, kinds[output.system_slug], loc, issues)
    return set(seen)


def _check_extracted(output, doc: KnownDocument, kind: str, loc: Location, issues) -> None:
    field_loc = Location(loc.file, loc.line, "extracted")
    # A document without text (its release has none) has no sentence to point at.
    if kind == KIND_EXTRACTIVE and output.extracted is None and doc.n_sentences:
        issues.append(Issue(field_loc, "an extractive system's output needs sentence indices"))
        return
    if kind == KIND_ABSTRACTIVE and output.extracted is not None:
        issues.append(Issue(field_loc, "an abstractive system's output has no sentence indices"))
        return
    if output.extracted is None:
        if not output.sentences or any(not s.strip() for s in output.sentences):
            issues.append(Issue(Location(loc.file, loc.line, "sentences"), "empty summary"))
        return
    bad = [i for i in output.extracted if not 0 <= i < doc.n_sentences]
    if bad:
        issues.append(
            Issue(
                field_loc,
                f"index {bad[0]} is out of range for document {output.document_id!r}, which has "
                f"{doc.n_sentences} sentences (valid: 0..{doc.n_sentences - 1})",
            )
        )
    elif output.method == METHOD_GIVEN and len(set(output.extracted)) != len(output.extracted):
        issues.append(Issue(field_loc, "the same sentence index is given twice"))


def _check_fams(bundle: ImportBundle, documents: Mapping[str, KnownDocument], issues) -> None:
    for annotation_set in bundle.annotation_sets:
        seen: set[tuple[str, int]] = set()
        for fam in annotation_set.fams:
            loc = _loc(fam, f"FAM {annotation_set.slug}/{fam.document_id}")
            doc = documents.get(fam.document_id)
            if doc is None:
                issues.append(Issue(loc, f"FAM for unknown document {fam.document_id!r}"))
                continue
            if not 0 <= fam.reference_index < len(doc.facet_counts):
                issues.append(Issue(loc, f"document has no reference {fam.reference_index}"))
                continue
            key = (fam.document_id, fam.reference_index)
            if key in seen:
                issues.append(Issue(loc, f"duplicate FAM for document {fam.document_id!r}"))
                continue
            seen.add(key)
            n_facets = doc.facet_counts[fam.reference_index]
            if len(fam.facets) != n_facets:
                issues.append(
                    Issue(loc, f"{len(fam.facets)} facets given, reference has {n_facets}")
                )
                continue
            bad_labels = [f.label for f in fam.facets if f.label not in FACET_LABELS]
            if bad_labels:
                issues.append(Issue(loc, f"unknown facet label {bad_labels[0]!r}"))
            try:
                validate_fam(
                    [facet.groups for facet in fam.facets],
                    n_sentences=doc.n_sentences,
                    n_facets=n_facets,
                    allow_duplicate_groups=annotation_set.kind == "released",
                )
            except FamError as error:
                issues.append(Issue(loc, f"document {fam.document_id!r}: {error}"))


def _number_problem(value) -> str | None:
    """Why a judged or released value is not a finite number, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{value!r} is not a number"
    if not math.isfinite(value):
        return f"{value!r} is not a finite number"
    return None


def _check_judged(record, where: str, outputs: set[tuple[str, str]], seen: dict, issues) -> bool:
    """The record judges one of the bundle's outputs, once; False after an issue."""
    loc = _loc(record, f"{where} {record.system_slug}/{record.document_id}")
    key = (record.system_slug, record.document_id)
    if key not in outputs:
        issues.append(
            Issue(
                loc,
                f"{where}: no output of system {record.system_slug!r} for document "
                f"{record.document_id!r} in this import",
            )
        )
        return False
    if key in seen:
        issues.append(Issue(loc, f"{where}: a second value for this output (first at {seen[key]})"))
        return False
    seen[key] = loc
    return True


def _check_names(records, what: str, issues) -> None:
    names = [record.name for record in records]
    for name in sorted({n for n in names if names.count(n) > 1}):
        issues.append(Issue(Location(f"{what} {name}", field="name"), "name given twice"))
    for name in names:
        problem = slug_problem(name)
        if problem:
            issues.append(Issue(Location(f"{what} {name}", field="name"), problem))


def _check_judgments(bundle: ImportBundle, outputs: set[tuple[str, str]], issues) -> None:
    """Each study and released score set: a slug name, finite values of the bundle's outputs."""
    _check_names(bundle.judgment_studies, "study", issues)
    for study in bundle.judgment_studies:
        where = f"study {study.name}"
        if study.kind not in JUDGMENT_KINDS:
            issues.append(
                Issue(Location(where, field="kind"), f"kind must be one of {JUDGMENT_KINDS}")
            )
        if not study.judgments:
            issues.append(Issue(Location(where), "the study has no judgment"))
        seen: dict = {}
        for judgment in study.judgments:
            if not _check_judged(judgment, where, outputs, seen, issues):
                continue
            problem = _number_problem(judgment.value)
            if problem is None and study.kind == JUDGMENT_RANK and judgment.value <= 0:
                problem = f"a rank must be positive, got {judgment.value!r}"
            if problem:
                issues.append(Issue(_loc(judgment, where), f"{where}: {problem}"))
    _check_names(bundle.released_scores, "released scores", issues)
    for released in bundle.released_scores:
        where = f"released scores {released.name}"
        seen = {}
        for record in released.scores:
            if not _check_judged(record, where, outputs, seen, issues):
                continue
            if not record.scores:
                issues.append(Issue(_loc(record, where), f"{where}: no score"))
            for key, value in record.scores.items():
                problem = _number_problem(value)
                if not isinstance(key, str) or not key or len(key) > MAX_SLUG:
                    problem = f"the key {key!r} is not 1-{MAX_SLUG} characters"
                if problem:
                    issues.append(Issue(_loc(record, where), f"{where}, {key}: {problem}"))


def validate_bundle(
    bundle: ImportBundle, *, existing_documents: Mapping[str, KnownDocument] | None = None
) -> None:
    """Check every record of ``bundle`` and raise once with all problems found.

    Args:
        bundle: what a parser produced.
        existing_documents: documents already in the target dataset (for output-only imports).

    Raises:
        ImportValidationError: duplicate ids, empty texts, unknown documents or systems,
            out-of-range or repeated indices, malformed FAMs, judgments or released scores of
            outputs the bundle lacks, or values that are not finite numbers.
    """
    issues: list[Issue] = []
    problem = slug_problem(bundle.dataset.slug)
    if problem:
        issues.append(Issue(Location("dataset", field="slug"), problem))
    if len(bundle.dataset.name) > MAX_NAME:
        issues.append(Issue(Location("dataset", field="name"), f"name is longer than {MAX_NAME}"))
    documents = dict(existing_documents or {})
    for external_id, known in _check_documents(bundle, issues).items():
        if external_id in documents:
            issues.append(
                Issue(Location(f"document {external_id}", field="id"), "document already exists")
            )
        documents[external_id] = known
    kinds = _check_systems(bundle, issues)
    outputs = _check_outputs(bundle, documents, kinds, issues)
    _check_fams(bundle, documents, issues)
    _check_judgments(bundle, outputs, issues)
    if issues:
        raise ImportValidationError(issues)
