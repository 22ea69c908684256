"""The release's members, read from the database in chunks and written line by line.

Every member is written in one stable order (documents by position, then systems, sets and
metrics by slug or name), with canonical JSON (see :mod:`.archive`), so that the same data
always gives the same bytes. Only each system's current output version is released (the one
the leaderboard reads). Rows of Loupe users (annotators' FAMs and spans) are left out unless
the release includes annotators; then they carry pseudonyms (``annotator-1``, ... by user id)
and only the items of submitted tasks count. A campaign's gold rows are released only for the
documents whose adjudication is done (as scoring counts them). Provenance of gold facets never
leaves Loupe; a gold span error's provenance is released only with annotators, under the same
pseudonyms. See ``FORMAT.md`` for every member's schema.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db.models import Case, Exists, IntegerField, OuterRef, Q, Value, When

from annotation.adjudication.selectors import gold_counted_q
from annotation.agreement.selectors import dataset_agreement_summary
from annotation.campaigns.models import Campaign, TaskStatus
from annotation.campaigns.models import Task as CampaignTask
from annotation.corpus.importers.parsers.loupe_release import layout
from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSet, AnnotationSetKind, Fam
from annotation.spans.models import SpanAnnotation
from annotation.spans.workbook import ExportSegment, workbook_bytes
from annotation.systems.models import OutputVersion, SystemOutput
from scoring.scores.models import DocumentScore
from scoring.scores.selectors import document_score_value_count, output_version_current_list

from .archive import Member, MemberWriter, canonical_json, xlsx_fixed
from .diff import ItemIndex

CHUNK = 2000
PROGRESS_EVERY = 2000
FAM_SCHEME = AnnotationSet.FAM_SCHEME
POLYTOPE = "polytope"
# The FAM FAR is computed against (as scoring.scores.selectors.scoring_fam_map): gold first.
FAR_FAM_KINDS = (AnnotationSetKind.GOLD, AnnotationSetKind.RELEASED)


def _key(*parts) -> str:
    """An item's key in the diff index: its identifying fields as a JSON list (no tabs)."""
    return canonical_json(list(parts))


@dataclass
class Export:
    """One export in progress: where members go, what was written, and the progress counter."""

    dataset: Dataset
    include_annotators: bool
    staging: Path
    report: Callable[[str, int], None]
    members: list[Member] = field(default_factory=list)
    index: ItemIndex = field(default_factory=ItemIndex)
    counts: dict = field(default_factory=dict)
    done: int = 0
    versions: list[OutputVersion] = field(default_factory=list)
    pseudonyms: dict[int, str] = field(default_factory=dict)
    named: dict[str, str] = field(default_factory=dict)  # username -> pseudonym (provenance)
    sets: list[AnnotationSet] = field(default_factory=list)
    facts: dict = field(default_factory=dict)  # what the datasheet says

    def writer(self, path: str, stage: str) -> MemberWriter:
        self.report(stage, self.done)
        return MemberWriter(self.staging, path)

    def finish(self, writer: MemberWriter, *, jsonl: bool = True) -> None:
        self.members.append(writer.close(jsonl=jsonl))

    def tick(self, stage: str) -> None:
        self.done += 1
        if self.done % PROGRESS_EVERY == 0:
            self.report(stage, self.done)


# --- which rows a release holds -------------------------------------------------------------


def _row_filter(include_annotators: bool, *, fam: bool) -> Q:
    """Rows without a Loupe user always; a user's rows only when annotators are included, and
    then only those of submitted tasks (rows of sets no campaign owns are all kept)."""
    released = Q(annotator__isnull=True)
    if not include_annotators:
        return released
    tasks = CampaignTask.objects.filter(
        campaign__annotation_set=OuterRef("annotation_set"),
        annotator=OuterRef("annotator"),
        status=TaskStatus.SUBMITTED,
    )
    if fam:
        tasks = tasks.filter(document=OuterRef("document"), output__isnull=True)
    else:
        tasks = tasks.filter(output=OuterRef("output"))
    owned = Campaign.objects.filter(annotation_set=OuterRef("annotation_set"))
    return released | Q(Exists(tasks)) | ~Q(Exists(owned))


def fam_rows(dataset: Dataset, include_annotators: bool):
    """The FAMs a release of ``dataset`` holds, in release order (a campaign's gold only for
    its adjudicated documents)."""
    return (
        Fam.objects.filter(annotation_set__dataset=dataset, annotation_set__scheme=FAM_SCHEME)
        .filter(_row_filter(include_annotators, fam=True))
        .filter(gold_counted_q(document_field="document_id"))
        .order_by(
            "annotation_set__slug",
            "document__position",
            "document_id",
            "reference__position",
            "annotator_id",
        )
    )


def span_rows(dataset: Dataset, versions, include_annotators: bool):
    """The span annotations a release holds: of the released outputs, in release order (a
    campaign's gold only for its adjudicated documents)."""
    return (
        SpanAnnotation.objects.filter(annotation_set__dataset=dataset, output__version__in=versions)
        .exclude(annotation_set__scheme=FAM_SCHEME)
        .filter(_row_filter(include_annotators, fam=False))
        .filter(gold_counted_q(document_field="output__document_id"))
        .order_by(
            "annotation_set__slug",
            "output__system__slug",
            "output__document__position",
            "output__document_id",
            "annotator_id",
        )
    )


def plan(export: Export) -> int:
    """Choose the versions, sets and pseudonyms; count the rows the progress counter will see.

    Args:
        export: the export being prepared.

    Returns:
        The total number of rows (documents, outputs, FAMs, span annotations and scores).
    """
    dataset = export.dataset
    export.versions = output_version_current_list(dataset=dataset)
    fams = fam_rows(dataset, export.include_annotators)
    spans = span_rows(dataset, export.versions, export.include_annotators)
    users = set(fams.exclude(annotator=None).values_list("annotator_id", flat=True).distinct())
    users |= set(spans.exclude(annotator=None).values_list("annotator_id", flat=True).distinct())
    if export.include_annotators:
        users |= _provenance_users(spans)
    export.pseudonyms = {pk: f"annotator-{n}" for n, pk in enumerate(sorted(users), start=1)}
    if export.include_annotators:
        names = get_user_model().objects.filter(pk__in=users).values_list("pk", "username")
        export.named = {username: export.pseudonyms[pk] for pk, username in names}
    set_ids = set(fams.values_list("annotation_set_id", flat=True).distinct())
    set_ids |= set(spans.values_list("annotation_set_id", flat=True).distinct())
    export.sets = list(AnnotationSet.objects.filter(pk__in=set_ids).order_by("slug"))
    return (
        Document.objects.filter(dataset=dataset).count()
        + SystemOutput.objects.filter(version__in=export.versions).count()
        + fams.count()
        + spans.count()
        + document_score_value_count(version_ids=[v.pk for v in export.versions])
    )


def _provenance_users(spans) -> set[int]:
    """The ids of the users named in the provenance of the gold errors among ``spans``."""
    names: set[str] = set()
    rows = spans.filter(annotator__isnull=True).values_list("errors", flat=True)
    for errors in rows.iterator(chunk_size=CHUNK):
        for error in errors or []:
            provenance = error.get("provenance") if isinstance(error, dict) else None
            if isinstance(provenance, dict):
                names.update(provenance.get("annotators") or [])
    if not names:
        return set()
    return set(get_user_model().objects.filter(username__in=names).values_list("pk", flat=True))


# --- documents, systems, outputs --------------------------------------------------------------


def _references(dataset: Dataset) -> Iterator[tuple[int, list[dict]]]:
    """``(document pk, its references)`` in the dataset's order, streamed beside the documents."""
    rows = (
        Reference.objects.filter(document__dataset=dataset)
        .order_by("document__position", "document_id", "position")
        .values_list("document_id", "label", "sentences")
    )
    current, references = None, []
    for document_id, label, sentences in rows.iterator(chunk_size=CHUNK):
        if document_id != current:
            if current is not None:
                yield current, references
            current, references = document_id, []
        references.append({"label": label, "sentences": sentences})
    if current is not None:
        yield current, references


def write_documents(export: Export) -> None:
    """``documents.jsonl``: one document per line, in the dataset's order."""
    writer = export.writer(layout.DOCUMENTS, "documents")
    categories: dict[str, int] = {}
    n_references = 0
    documents = (
        Document.objects.filter(dataset=export.dataset)
        .order_by("position", "id")
        .values_list("pk", "external_id", "category", "sentences", "meta")
    )
    # Two cursors in the same order: each document's references come next in the second.
    references = _references(export.dataset)
    pending = next(references, None)
    for pk, external_id, category, sentences, meta in documents.iterator(chunk_size=CHUNK):
        refs = []
        if pending is not None and pending[0] == pk:
            refs = pending[1]
            pending = next(references, None)
        line = writer.write_line(
            {
                "id": external_id,
                "category": category or None,
                "sentences": sentences,
                "references": refs,
                "meta": meta or {},
            }
        )
        export.index.add("documents", _key(external_id), line)
        categories[category] = categories.get(category, 0) + 1
        n_references += len(refs)
        export.tick("documents")
    export.finish(writer)
    export.counts["documents"] = writer.rows
    export.counts["references"] = n_references
    export.facts["categories"] = categories


def write_systems(export: Export) -> None:
    """``systems.jsonl``: the systems whose current outputs are released, by slug."""
    writer = export.writer(layout.SYSTEMS, "systems")
    for version in export.versions:
        system = version.system
        writer.write_line(
            {
                "slug": system.slug,
                "name": system.name,
                "kind": system.kind,
                "description": system.description,
                "trained_on": system.trained_on,
            }
        )
    export.finish(writer)
    export.counts["systems"] = writer.rows


def write_outputs(export: Export) -> None:
    """``outputs.jsonl``: each released system's current outputs, by system and document."""
    writer = export.writer(layout.OUTPUTS, "outputs")
    rows = (
        SystemOutput.objects.filter(version__in=export.versions)
        .order_by("system__slug", "document__position", "document_id")
        .values_list(
            "system__slug",
            "document__external_id",
            "sentences",
            "extracted",
            "extraction_method",
            "match_confidence",
        )
    )
    per_system: dict[str, int] = {}
    for system, document, sentences, extracted, method, confidences in rows.iterator(
        chunk_size=CHUNK
    ):
        line = writer.write_line(
            {
                "system": system,
                "document": document,
                "sentences": sentences,
                "extracted": extracted,
                "method": method,
                "confidences": confidences,
            }
        )
        export.index.add("outputs", _key(system, document), line)
        per_system[system] = per_system.get(system, 0) + 1
        export.tick("outputs")
    export.finish(writer)
    export.counts["outputs"] = writer.rows
    export.facts["outputs_per_system"] = per_system


# --- annotation sets, FAMs, spans, workbooks --------------------------------------------------


def write_sets(export: Export) -> None:
    """``annotation_sets.jsonl``: every set with at least one released row, by slug."""
    writer = export.writer(layout.ANNOTATION_SETS, "annotation sets")
    for annotation_set in export.sets:
        writer.write_line(
            {
                "slug": annotation_set.slug,
                "name": annotation_set.name,
                "kind": annotation_set.kind,
                "scheme": annotation_set.scheme,
                "read_only": annotation_set.read_only,
            }
        )
    export.finish(writer)
    export.counts["annotation_sets"] = writer.rows


def _facet(facet: dict) -> dict:
    """A stored facet as released: its groups, label and note (provenance stays in Loupe)."""
    return {
        "groups": [sorted(group) for group in facet.get("groups", [])],
        "label": facet.get("label", "supported"),
        "note": facet.get("note", ""),
    }


def _error(export: Export, error: dict) -> dict:
    """A stored span error as released: without its provenance, unless the release includes
    annotators; then the provenance names them by their pseudonyms (never by username)."""
    provenance = error.get("provenance")
    released = {key: value for key, value in error.items() if key != "provenance"}
    if provenance is None or not export.include_annotators:
        return released
    names = sorted(
        {export.named.get(name, "annotator-unknown") for name in provenance.get("annotators", [])}
    )
    released["provenance"] = {**provenance, "annotators": names}
    return released


def write_fams(export: Export) -> None:
    """``fams.jsonl``: one FAM per line, by set, document, reference and annotator."""
    writer = export.writer(layout.FAMS, "fams")
    rows = fam_rows(export.dataset, export.include_annotators).values_list(
        "annotation_set__slug",
        "document__external_id",
        "reference__position",
        "annotator_id",
        "facets",
        "category_override",
    )
    per_set: dict[str, int] = {}
    for set_slug, document, reference, annotator_id, facets, override in rows.iterator(
        chunk_size=CHUNK
    ):
        annotator = export.pseudonyms.get(annotator_id)
        record = {
            "set": set_slug,
            "document": document,
            "reference": reference,
            "annotator": annotator,
            "facets": [_facet(facet) for facet in facets],
        }
        if annotator is not None:
            record["category_override"] = override
        line = writer.write_line(record)
        export.index.add("fams", _key(set_slug, document, reference, annotator), line)
        per_set[set_slug] = per_set.get(set_slug, 0) + 1
        export.tick("fams")
    export.finish(writer)
    export.counts["fams"] = writer.rows
    export.facts["rows_per_set"] = per_set


def write_spans(export: Export) -> None:
    """``polytope.jsonl``: the span annotations of every span scheme, one output per line."""
    writer = export.writer(layout.SPANS, "spans")
    rows = span_rows(export.dataset, export.versions, export.include_annotators).values_list(
        "annotation_set__slug",
        "output__system__slug",
        "output__document__external_id",
        "annotator_id",
        "no_errors",
        "errors",
        "annotated_text",
    )
    per_set = export.facts.setdefault("rows_per_set", {})
    for set_slug, system, document, annotator_id, no_errors, errors, annotated in rows.iterator(
        chunk_size=CHUNK
    ):
        annotator = export.pseudonyms.get(annotator_id)
        record = {
            "set": set_slug,
            "system": system,
            "document": document,
            "annotator": annotator,
            "no_errors": no_errors,
            "errors": [_error(export, error) for error in errors],
        }
        if annotated:  # the text the errors index, where it is not the output's
            record["annotated_text"] = annotated
        line = writer.write_line(record)
        export.index.add("spans", _key(set_slug, system, document, annotator), line)
        per_set[set_slug] = per_set.get(set_slug, 0) + 1
        export.tick("spans")
    export.finish(writer)
    export.counts["span_annotations"] = writer.rows


def _segments(export: Export, annotation_set: AnnotationSet, system: str) -> list[ExportSegment]:
    rows = (
        span_rows(export.dataset, export.versions, export.include_annotators)
        .filter(annotation_set=annotation_set, output__system__slug=system)
        .select_related("output__document", "output__version")
    )
    segments = []
    for row in rows.iterator(chunk_size=CHUNK):
        output, document = row.output, row.output.document
        segments.append(
            ExportSegment(
                id=f"{document.external_id}-{system}",
                document=document.external_id,
                system=system,
                version=output.version.number,
                annotator=export.pseudonyms.get(row.annotator_id),
                source_sentences=None if document.text_missing else tuple(document.sentences),
                summary_sentences=tuple(output.sentences),
                errors=tuple(_error(export, error) for error in row.errors),
                no_errors=row.no_errors,
                annotated_text=row.annotated_text,
            )
        )
    return segments


def write_workbooks(export: Export) -> None:
    """``workbooks/<set>/<system>.xlsx``: each PolyTope set's annotations of each system in the
    official layout (``annotation.spans.workbook``), with fixed dates."""
    for annotation_set in export.sets:
        if annotation_set.scheme != POLYTOPE:
            continue
        systems = (
            span_rows(export.dataset, export.versions, export.include_annotators)
            .filter(annotation_set=annotation_set)
            .order_by("output__system__slug")
            .values_list("output__system__slug", flat=True)
            .distinct()
        )
        for system in systems:
            segments = _segments(export, annotation_set, system)
            note = (
                f"Exported by Loupe in a release: annotation set {annotation_set.slug!r} "
                f"({annotation_set.kind}), system {system!r}. Values, not formulas; Span "
                "Start/End are character offsets into the Target's (or, for an Omission, the "
                "Source's) lines joined by one space."
            )
            body, _altered = workbook_bytes(segments, note=note)
            writer = export.writer(layout.workbook_name(annotation_set.slug, system), "workbooks")
            writer.write_bytes(xlsx_fixed(body))
            export.finish(writer, jsonl=False)


# --- scores ---------------------------------------------------------------------------------


def write_scores(export: Export) -> None:
    """``scores.jsonl``: every stored per-document score of the released outputs."""
    writer = export.writer(layout.SCORES, "scores")
    rows = (
        DocumentScore.objects.filter(version__in=export.versions)
        .order_by("version__system__slug", "document__position", "document_id")
        .values_list("version__system__slug", "document__external_id", "metrics")
    )
    metrics: set[str] = set()
    for system, document, stored in rows.iterator(chunk_size=CHUNK):
        for metric in sorted(stored):  # one line per value, by metric, as ever
            record = {"system": system, "document": document, "metric": metric}
            writer.write_line({**record, "value": stored[metric]})
            metrics.add(metric)
            export.tick("scores")
    export.finish(writer)
    export.counts["scores"] = writer.rows
    export.facts["metrics"] = sorted(metrics)


# --- the FAR-compatible files ---------------------------------------------------------------


def _sample_indices(dataset: Dataset) -> list[tuple[int, int, str, str]]:
    """``(document pk, sample idx, external id, category)`` in the dataset's order.

    The idx is the FAR release's own (``meta.sample_idx``) when every document has a distinct
    one, else the document's rank (0, 1, ...).
    """
    rows = list(
        Document.objects.filter(dataset=dataset)
        .order_by("position", "id")
        .values_list("pk", "meta__sample_idx", "external_id", "category")
    )
    given = [idx for _, idx, _, _ in rows]
    own = all(type(idx) is int and idx >= 0 for idx in given) and len(set(given)) == len(given)
    return [
        (pk, idx if own else rank, external_id, category)
        for rank, (pk, idx, external_id, category) in enumerate(rows)
    ]


def _scored_fams(dataset: Dataset) -> Iterator[tuple[int, list]]:
    """``(document pk, facets)`` of each document's scored FAM, in the dataset's order: gold
    before released (a campaign's gold only for its adjudicated documents), then the first
    reference, then the latest saved (as scoring chooses)."""
    rank = Case(
        *(When(annotation_set__kind=kind, then=Value(i)) for i, kind in enumerate(FAR_FAM_KINDS)),
        output_field=IntegerField(),
    )
    rows = (
        Fam.objects.filter(
            gold_counted_q(),
            annotation_set__dataset=dataset,
            annotation_set__scheme=FAM_SCHEME,
            annotation_set__kind__in=FAR_FAM_KINDS,
            annotator__isnull=True,
        )
        .annotate(rank=rank)
        .order_by(
            "document__position", "document_id", "rank", "reference__position", "-updated_at", "-id"
        )
        .values_list("document_id", "facets")
    )
    last = None
    for document_id, facets in rows.iterator(chunk_size=CHUNK):
        if document_id != last:
            last = document_id
            yield document_id, facets


def _json_object(writer: MemberWriter, items: Iterator[tuple[str, object]]) -> None:
    """Stream ``{"key": value, ...}`` in the given key order (values as canonical JSON)."""
    writer.write_text("{")
    for position, (key, value) in enumerate(items):
        writer.write_text(("," if position else "") + canonical_json(key) + ":")
        writer.write_text(canonical_json(value))
    writer.write_text("}")


def write_far(export: Export) -> None:
    """The FAMs and extractions in the FAR release's structure, as JSON (never pickle).

    ``far/FAMs.json`` is ``{"all_idx", "high_abs", "low_abs", "noise"}`` as in the release's
    ``FAMs.pkl``; ``far/idx2labels_<system>.json`` maps each idx to the system's extracted
    indices; ``far/idx2id.json`` maps each idx to the document id. See ``FORMAT.md``.
    """
    samples = _sample_indices(export.dataset)
    idx_of = {pk: idx for pk, idx, _, _ in samples}
    low = {pk for pk, _, _, category in samples if category in ("low", "")}
    writer = export.writer(layout.FAR_FAMS, "far")
    writer.write_text('{"all_idx":' + canonical_json([idx for _, idx, _, _ in samples]))
    high = sorted(idx for _, idx, _, category in samples if category == "high")
    noise = sorted(idx for _, idx, _, category in samples if category == "noise")
    writer.write_text(',"high_abs":' + canonical_json(high) + ',"low_abs":')
    _json_object(
        writer,
        (
            (str(idx_of[pk]), {str(i): _facet(f)["groups"] for i, f in enumerate(facets)})
            for pk, facets in _scored_fams(export.dataset)
            if pk in low
        ),
    )
    writer.write_text(',"noise":' + canonical_json(noise) + "}\n")
    export.finish(writer, jsonl=False)
    writer = export.writer(layout.FAR_IDS, "far")
    _json_object(writer, ((str(idx), external_id) for _, idx, external_id, _ in samples))
    writer.write_text("\n")
    export.finish(writer, jsonl=False)
    for version in export.versions:
        if version.system.kind != "extractive":
            continue
        writer = export.writer(layout.far_labels_name(version.system.slug), "far")
        extracted = (
            SystemOutput.objects.filter(version=version)
            .order_by("document__position", "document_id")
            .values_list("document_id", "extracted")
        )
        _json_object(
            writer,
            ((str(idx_of[pk]), value) for pk, value in extracted.iterator(chunk_size=CHUNK)),
        )
        writer.write_text("\n")
        export.finish(writer, jsonl=False)


# --- agreement ------------------------------------------------------------------------------


def agreement_summary(dataset: Dataset) -> dict:
    """The dataset's latest agreement figures (``annotation.agreement``'s summary selector).

    Args:
        dataset: the dataset.

    Returns:
        ``{"campaigns": [...], "span_runs": [...]}`` as the selector gives them, without the
        dataset's slug.
    """
    summary = dataset_agreement_summary(dataset=dataset)
    # The manifest names the dataset; its slug here would make a re-imported copy differ.
    return {key: value for key, value in summary.items() if key != "dataset"}


def write_agreement(export: Export) -> None:
    """``agreement.json``: the dataset's latest agreement figures."""
    summary = agreement_summary(export.dataset)
    writer = export.writer(layout.AGREEMENT, "agreement")
    writer.write_text(canonical_json(summary) + "\n")
    export.finish(writer, jsonl=False)
    export.facts["agreement"] = summary
