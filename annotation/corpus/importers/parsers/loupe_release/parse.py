"""Parse a Loupe release (``manage.py export_release``) back into an :class:`ImportBundle`.

The manifest is checked first: the format and its version, then every file it lists is read
through and must have the size and SHA-256 the manifest gives (a changed or damaged file is
refused, naming it). Then ``documents.jsonl``, ``systems.jsonl``, ``outputs.jsonl``,
``annotation_sets.jsonl``, ``fams.jsonl`` and ``polytope.jsonl`` become records, verbatim:
texts are not stripped or re-split, indices and groups are kept as released, so that exporting
the imported dataset gives the same files. Scores, agreement, the workbooks and the FAR files
are derived data and are not read: scores are recomputed after the import. Rows of a
pseudonymous annotator come back as a read-only set of their own (see
:func:`.layout.annotator_set_slug`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from annotation.imports.bundle import (
    AnnotationSetRecord,
    DatasetRecord,
    DocumentRecord,
    FacetRecord,
    FamRecord,
    ImportBundle,
    ImportValidationError,
    Issue,
    Location,
    OutputRecord,
    ReferenceRecord,
    ReportLine,
    SpanAnnotationRecord,
    SpanSetRecord,
    SystemRecord,
)
from annotation.imports.fields import records, unknown_fields
from annotation.imports.readers import read_lines
from scoring.metrics import jsontext

from .layout import (
    ANNOTATION_SETS,
    DOCUMENTS,
    FAMS,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    OUTPUTS,
    REQUIRED,
    SPANS,
    SYSTEMS,
    annotator_set_slug,
)
from .source import ReleaseSource, open_release

DOCUMENT_KEYS = {"id", "category", "sentences", "references", "meta"}
REFERENCE_KEYS = {"label", "sentences"}
SYSTEM_KEYS = {"slug", "name", "kind", "description", "trained_on"}
OUTPUT_KEYS = {"system", "document", "sentences", "extracted", "method", "confidences"}
SET_KEYS = {"slug", "name", "kind", "scheme", "read_only"}
FAM_KEYS = {"set", "document", "reference", "annotator", "facets", "category_override"}
FACET_KEYS = {"groups", "label", "note"}
SPAN_KEYS = {"set", "system", "document", "annotator", "no_errors", "errors", "annotated_text"}
FAM_SCHEME = "fam"


@dataclass
class _Reader:
    """Collects every problem while the members are read."""

    source: ReleaseSource
    issues: list[Issue] = field(default_factory=list)
    report: list[ReportLine] = field(default_factory=list)

    def issue(self, file: str, message: str, line: int | None = None, where: str | None = None):
        self.issues.append(Issue(Location(file, line, where), message))

    def lines(self, name: str) -> Iterator[tuple[int, dict]]:
        with self.source.open(name) as handle:
            yield from records(read_lines(handle, name=name), name, self.issues)

    def text(self, value, file: str, line: int, where: str, *, blank: bool = True) -> str | None:
        if not isinstance(value, str) or (not blank and not value.strip()):
            wanted = "a string" if blank else "a non-empty string"
            self.issue(file, f"must be {wanted}", line, where)
            return None
        return value

    def sentences(self, value, file: str, line: int, where: str, *, empty: bool = False):
        ok = isinstance(value, list) and (empty or value)
        if not ok or not all(isinstance(s, str) and s.strip() for s in value):
            self.issue(file, "must be a list of non-empty strings", line, where)
            return None
        return tuple(value)

    def indices(self, value, file: str, line: int, where: str) -> tuple[int, ...] | None:
        if not isinstance(value, list) or not all(type(i) is int and i >= 0 for i in value):
            self.issue(file, "must be a list of sentence indices (integers >= 0)", line, where)
            return None
        return tuple(value)


def _manifest(reader: _Reader) -> dict | None:
    try:
        with reader.source.open(MANIFEST) as handle:
            manifest = jsontext.loads(handle.read())
    except (KeyError, FileNotFoundError):
        reader.issue(MANIFEST, "missing: this is not a Loupe release")
        return None
    except jsontext.JsonTooDeepError as error:
        reader.issue(MANIFEST, str(error))
        return None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        reader.issue(MANIFEST, f"not valid JSON: {error}")
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        reader.issue(MANIFEST, f'"format" must be {FORMAT!r}', where="format")
        return None
    if manifest.get("format_version") != FORMAT_VERSION:
        reader.issue(
            MANIFEST,
            f"format version {manifest.get('format_version')!r} is not the one this Loupe "
            f"reads ({FORMAT_VERSION})",
            where="format_version",
        )
        return None
    if not isinstance(manifest.get("dataset"), dict) or not isinstance(manifest.get("files"), list):
        reader.issue(MANIFEST, 'needs a "dataset" object and a "files" list')
        return None
    return manifest


def _verify_files(reader: _Reader, manifest: dict) -> None:
    """Every listed file must be there with its size and SHA-256; unlisted files are ignored."""
    present = reader.source.names()
    listed = set()
    for position, entry in enumerate(manifest["files"]):
        where = f"files[{position}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            reader.issue(MANIFEST, "each file needs a path, size and sha256", where=where)
            continue
        name = entry["path"]
        parts = PurePosixPath(name).parts
        if not parts or name.startswith("/") or ".." in parts:
            reader.issue(MANIFEST, f"unsafe path {name!r}", where=where)
            continue
        listed.add(name)
        if name not in present:
            reader.issue(name, "listed in the manifest but missing from the release")
            continue
        size, sha256 = reader.source.digest(name)
        if (size, sha256) != (entry.get("size"), entry.get("sha256")):
            reader.issue(
                name,
                f"SHA-256 {sha256} ({size} bytes) differs from the manifest's "
                f"{entry.get('sha256')} ({entry.get('size')} bytes): the file was changed or "
                "damaged",
            )
    for name in REQUIRED:
        if name not in listed:
            reader.issue(MANIFEST, f"does not list {name}, which an import needs", where="files")
    extra = sorted(present - listed - {MANIFEST})
    if extra:
        reader.report.append(
            ReportLine(Location(reader.source.label), f"files not in the manifest ignored: {extra}")
        )


def _dataset(reader: _Reader, manifest: dict) -> DatasetRecord:
    meta = manifest["dataset"]
    values = {}
    for key in ("slug", "name", "description", "source", "license"):
        value = meta.get(key, "")
        values[key] = reader.text(value, MANIFEST, None, f"dataset.{key}") or ""
    return DatasetRecord(**values)


def _references(reader: _Reader, value, line: int) -> tuple[ReferenceRecord, ...] | None:
    if not isinstance(value, list) or not value:
        reader.issue(DOCUMENTS, "must be a non-empty list", line, "references")
        return None
    references = []
    for position, item in enumerate(value):
        where = f"references[{position}]"
        if not isinstance(item, dict) or unknown_fields(
            item, REFERENCE_KEYS, DOCUMENTS, line, reader.issues
        ):
            if not isinstance(item, dict):
                reader.issue(DOCUMENTS, "must be an object", line, where)
            return None
        sentences = reader.sentences(item.get("sentences"), DOCUMENTS, line, f"{where}.sentences")
        label = reader.text(item.get("label", ""), DOCUMENTS, line, f"{where}.label")
        if sentences is None or label is None:
            return None
        references.append(
            ReferenceRecord(sentences=sentences, label=label, location=Location(DOCUMENTS, line))
        )
    return tuple(references)


def _documents(reader: _Reader) -> list[DocumentRecord]:
    documents = []
    for line, record in reader.lines(DOCUMENTS):
        if unknown_fields(record, DOCUMENT_KEYS, DOCUMENTS, line, reader.issues):
            continue
        external_id = reader.text(record.get("id"), DOCUMENTS, line, "id", blank=False)
        meta = record.get("meta", {})
        if not isinstance(meta, dict):
            reader.issue(DOCUMENTS, "must be an object", line, "meta")
            continue
        sentences = reader.sentences(
            record.get("sentences"), DOCUMENTS, line, "sentences", empty=True
        )
        references = _references(reader, record.get("references"), line)
        category = record.get("category")
        if category is not None and not isinstance(category, str):
            reader.issue(DOCUMENTS, "must be a string or null", line, "category")
            continue
        if external_id is None or sentences is None or references is None:
            continue
        documents.append(
            DocumentRecord(
                external_id=external_id,
                sentences=sentences,
                references=references,
                category=category,
                meta=meta,
                location=Location(DOCUMENTS, line, "id"),
            )
        )
    if not documents and not reader.issues:
        reader.issue(DOCUMENTS, "the release holds no documents")
    return documents


def _systems(reader: _Reader) -> list[SystemRecord]:
    systems = []
    for line, record in reader.lines(SYSTEMS):
        if unknown_fields(record, SYSTEM_KEYS, SYSTEMS, line, reader.issues):
            continue
        values = {
            key: reader.text(record.get(key, ""), SYSTEMS, line, key, blank=key not in {"slug"})
            for key in sorted(SYSTEM_KEYS)
        }
        if any(value is None for value in values.values()):
            continue
        systems.append(SystemRecord(**values))
    return systems


def _outputs(reader: _Reader) -> list[OutputRecord]:
    outputs = []
    for line, record in reader.lines(OUTPUTS):
        if unknown_fields(record, OUTPUT_KEYS, OUTPUTS, line, reader.issues):
            continue
        system = reader.text(record.get("system"), OUTPUTS, line, "system", blank=False)
        document = reader.text(record.get("document"), OUTPUTS, line, "document", blank=False)
        sentences = reader.sentences(record.get("sentences"), OUTPUTS, line, "sentences")
        method = reader.text(record.get("method", ""), OUTPUTS, line, "method")
        extracted = record.get("extracted")
        if extracted is not None:
            extracted = reader.indices(extracted, OUTPUTS, line, "extracted")
            if extracted is None:
                continue
        confidences = record.get("confidences")
        if confidences is not None:
            if not isinstance(confidences, list) or not all(
                isinstance(c, int | float) and not isinstance(c, bool) for c in confidences
            ):
                reader.issue(OUTPUTS, "must be a list of numbers or null", line, "confidences")
                continue
            confidences = tuple(confidences)
        if None in (system, document, sentences, method):
            continue
        outputs.append(
            OutputRecord(
                system_slug=system,
                document_id=document,
                sentences=sentences,
                extracted=extracted,
                method=method,
                confidences=confidences,
                location=Location(OUTPUTS, line),
            )
        )
    return outputs


def _sets(reader: _Reader) -> dict[str, dict]:
    sets: dict[str, dict] = {}
    for line, record in reader.lines(ANNOTATION_SETS):
        if unknown_fields(record, SET_KEYS, ANNOTATION_SETS, line, reader.issues):
            continue
        values = {
            key: reader.text(record.get(key), ANNOTATION_SETS, line, key, blank=False)
            for key in ("slug", "name", "kind", "scheme")
        }
        if not isinstance(record.get("read_only"), bool):
            reader.issue(ANNOTATION_SETS, "must be true or false", line, "read_only")
            continue
        if any(value is None for value in values.values()):
            continue
        if values["slug"] in sets:
            reader.issue(ANNOTATION_SETS, "set listed twice", line, "slug")
            continue
        sets[values["slug"]] = {**values, "read_only": record["read_only"], "line": line}
    return sets


def _row_set(reader: _Reader, sets, record: dict, file: str, line: int, fam: bool):
    """The set a FAM or span row names, and its annotator (a pseudonym or None)."""
    name = record.get("set")
    meta = sets.get(name)
    if meta is None:
        reader.issue(file, f"set {name!r} is not in {ANNOTATION_SETS}", line, "set")
        return None
    if (meta["scheme"] == FAM_SCHEME) != fam:
        reader.issue(file, f"set {name!r} holds {meta['scheme']}, not these rows", line, "set")
        return None
    annotator = record.get("annotator")
    if annotator is not None and (not isinstance(annotator, str) or not annotator.strip()):
        reader.issue(file, "must be a pseudonym or null", line, "annotator")
        return None
    return name, annotator


def _facets(reader: _Reader, value, line: int) -> tuple[FacetRecord, ...] | None:
    if not isinstance(value, list):
        reader.issue(FAMS, "must be a list with one entry per facet", line, "facets")
        return None
    facets = []
    for position, item in enumerate(value):
        where = f"facets[{position}]"
        if not isinstance(item, dict):
            reader.issue(FAMS, "must be an object", line, where)
            return None
        if unknown_fields(item, FACET_KEYS, FAMS, line, reader.issues):
            return None
        groups = item.get("groups")
        if not isinstance(groups, list):
            reader.issue(FAMS, "must be a list of groups", line, f"{where}.groups")
            return None
        checked = [reader.indices(group, FAMS, line, f"{where}.groups") for group in groups]
        label = reader.text(item.get("label"), FAMS, line, f"{where}.label", blank=False)
        note = reader.text(item.get("note", ""), FAMS, line, f"{where}.note")
        if None in checked or label is None or note is None:
            return None
        facets.append(FacetRecord(groups=tuple(checked), label=label, note=note))
    return tuple(facets)


def _fams(reader: _Reader, sets) -> dict[tuple[str, str | None], list[FamRecord]]:
    grouped: dict[tuple[str, str | None], list[FamRecord]] = {}
    for line, record in reader.lines(FAMS):
        if unknown_fields(record, FAM_KEYS, FAMS, line, reader.issues):
            continue
        key = _row_set(reader, sets, record, FAMS, line, fam=True)
        document = reader.text(record.get("document"), FAMS, line, "document", blank=False)
        reference = record.get("reference", 0)
        if type(reference) is not int or reference < 0:
            reader.issue(FAMS, "must be a reference position (an integer >= 0)", line, "reference")
            continue
        facets = _facets(reader, record.get("facets"), line)
        if key is None or document is None or facets is None:
            continue
        grouped.setdefault(key, []).append(
            FamRecord(
                document_id=document,
                facets=facets,
                reference_index=reference,
                location=Location(FAMS, line),
            )
        )
    return grouped


def _spans(reader: _Reader, sets) -> dict[tuple[str, str | None], list[SpanAnnotationRecord]]:
    grouped: dict[tuple[str, str | None], list[SpanAnnotationRecord]] = {}
    for line, record in reader.lines(SPANS):
        if unknown_fields(record, SPAN_KEYS, SPANS, line, reader.issues):
            continue
        key = _row_set(reader, sets, record, SPANS, line, fam=False)
        system = reader.text(record.get("system"), SPANS, line, "system", blank=False)
        document = reader.text(record.get("document"), SPANS, line, "document", blank=False)
        errors = record.get("errors", [])
        if not isinstance(errors, list) or not all(isinstance(e, dict) for e in errors):
            reader.issue(SPANS, "must be a list of objects", line, "errors")
            continue
        if not isinstance(record.get("no_errors", False), bool):
            reader.issue(SPANS, "must be true or false", line, "no_errors")
            continue
        annotated = record.get("annotated_text", "")
        if not isinstance(annotated, str) or (annotated and not annotated.strip()):
            reader.issue(SPANS, "must be a non-blank string when given", line, "annotated_text")
            continue
        if key is None or system is None or document is None:
            continue
        grouped.setdefault(key, []).append(
            SpanAnnotationRecord(
                system_slug=system,
                document_id=document,
                errors=tuple(errors),
                no_errors=record.get("no_errors", False),
                location=Location(SPANS, line),
                annotated_text=annotated,
            )
        )
    return grouped


def _set_slug(meta: dict, annotator: str | None) -> tuple[str, str, str, bool]:
    """Slug, name, kind and read-only flag of the set rows of ``annotator`` go to."""
    if annotator is None:
        return meta["slug"], meta["name"], meta["kind"], meta["read_only"]
    return (
        annotator_set_slug(meta["slug"], annotator),
        f"{meta['name']} ({annotator})",
        "human",
        True,
    )


def _annotation_sets(sets, fams) -> list[AnnotationSetRecord]:
    made = []
    for slug, meta in sets.items():
        for (set_slug, annotator), rows in sorted(
            fams.items(), key=lambda item: (item[0][0], item[0][1] or "")
        ):
            if set_slug != slug:
                continue
            new_slug, name, kind, read_only = _set_slug(meta, annotator)
            made.append(
                AnnotationSetRecord(
                    slug=new_slug, name=name, kind=kind, read_only=read_only, fams=tuple(rows)
                )
            )
    return made


def _span_sets(sets, spans) -> list[SpanSetRecord]:
    made = []
    for slug, meta in sets.items():
        for (set_slug, annotator), rows in sorted(
            spans.items(), key=lambda item: (item[0][0], item[0][1] or "")
        ):
            if set_slug != slug:
                continue
            new_slug, name, kind, read_only = _set_slug(meta, annotator)
            made.append(
                SpanSetRecord(
                    slug=new_slug,
                    name=name,
                    scheme=meta["scheme"],
                    kind=kind,
                    read_only=read_only,
                    annotations=tuple(rows),
                )
            )
    return made


def parse_loupe_release(path: Path) -> ImportBundle:
    """Parse a Loupe release into an :class:`ImportBundle`.

    Args:
        path: the release folder (with ``manifest.json``), a folder holding one such folder or
            one release archive (``releases/<dataset>/<version>/``), or the archive itself.

    Returns:
        The dataset (slug, name, description, source and licence from the manifest), its
        documents with their references, categories and meta, the systems and their outputs,
        the FAM sets and the span sets. ``report`` says which release was read and what was
        left out (scores are recomputed, not imported).

    Raises:
        ImportValidationError: every problem found: no manifest, another format or version, a
            file missing or whose SHA-256 differs from the manifest's, a malformed line (file,
            line and field), a row of a set the release does not list.
    """
    source = open_release(Path(path))
    reader = _Reader(source)
    try:
        manifest = _manifest(reader)
        if manifest is not None:
            _verify_files(reader, manifest)
        if reader.issues:
            raise ImportValidationError(reader.issues)
        dataset = _dataset(reader, manifest)
        documents = _documents(reader)
        systems = _systems(reader)
        outputs = _outputs(reader)
        sets = _sets(reader)
        fams = _fams(reader, sets)
        spans = _spans(reader, sets)
    finally:
        source.close()
    if reader.issues:
        raise ImportValidationError(reader.issues)
    counts = manifest.get("counts") or {}
    reader.report.insert(
        0,
        ReportLine(
            Location(MANIFEST),
            f"Loupe release {dataset.slug!r} version {manifest.get('version')} (made by Loupe "
            f"{manifest.get('loupe_version')}): {len(manifest['files'])} files match their "
            f"SHA-256; its {counts.get('scores', 0)} scores are not imported, the import's "
            "scoring job recomputes them",
        ),
    )
    return ImportBundle(
        dataset=dataset,
        documents=documents,
        systems=systems,
        outputs=outputs,
        annotation_sets=_annotation_sets(sets, fams),
        span_sets=_span_sets(sets, spans),
        report=reader.report,
    )
