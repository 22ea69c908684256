"""A small hand-worked PolyTope dataset: two systems, three documents, released and gold spans."""

from __future__ import annotations

from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSet
from annotation.spans.services import SpanRecord, span_annotations_replace
from annotation.systems.models import OutputVersion, System, SystemOutput

# Each document's source; the Omissions below point into it.
SOURCES = {
    "d1": ["The senator voted against the bill on Monday.", "Critics said it was late."],
    "d2": ["Rain fell across the north of the country.", "Schools closed early."],
    "d3": ["The club signed a new striker.", "He cost ten million pounds."],
}
REFERENCES = {
    "d1": ["The senator voted against the bill."],
    "d2": ["Rain closed schools in the north."],
    "d3": ["The club signed a striker for ten million."],
}
# Summaries with easy word counts: d1 10 words, d2 20 words, d3 5 words.
TEN = ["Alpha beta gamma delta epsilon.", "Zeta eta theta iota kappa."]
TWENTY = [
    "Alpha beta gamma delta epsilon zeta eta theta iota kappa.",
    "Lambda mu nu xi omicron pi rho sigma tau upsilon.",
]
FIVE = ["Alpha beta gamma delta epsilon."]
SUMMARIES = {"d1": TEN, "d2": TWENTY, "d3": FIVE}


def error(type_, label, start=0, end=5, side="summary", words=None):
    """One raw error as an importer hands it over (severity is derived, never given)."""
    raw = {"side": side, "type": type_, "label": label, "reason": ""}
    if side != "none":
        raw |= {"start": start, "end": end}
    if words is not None:
        raw["words"] = words
    return raw


def build(users=None):
    """The dataset, its documents and outputs, and a released PolyTope set.

    System ``a``: d1 one Critical (penalty 5 over 10 words: 50), d2 one Major and one Minor
    (3 over 20: 85), d3 not annotated. Pooled: 100 * (1 - 8 / 30) = 73.333...
    System ``b``: d1 marked clean (100), d2 an Omission in the source (Critical, 5 over 20:
    75), d3 two Criticals (10 over 5 words: -100). Pooled: 100 * (1 - 15 / 35) = 57.142857...
    """
    dataset = Dataset.objects.create(slug="pt", name="PolyTope hand-worked")
    documents = {}
    for position, (external_id, sentences) in enumerate(SOURCES.items()):
        document = Document.objects.create(
            dataset=dataset, external_id=external_id, sentences=sentences, position=position
        )
        Reference.objects.create(document=document, sentences=REFERENCES[external_id])
        documents[external_id] = document
    outputs = {}
    for slug in ("a", "b"):
        system = System.objects.create(slug=slug, name=f"System {slug.upper()}", kind="abstractive")
        version = OutputVersion.objects.create(system=system, dataset=dataset, number=1)
        for external_id, document in documents.items():
            outputs[slug, external_id] = SystemOutput.objects.create(
                system=system, version=version, document=document,
                sentences=SUMMARIES[external_id],
            )  # fmt: skip
    released = AnnotationSet.objects.create(
        dataset=dataset, slug="polytope-release", name="Released", kind="released",
        scheme="polytope", read_only=True,
    )  # fmt: skip
    records = [
        SpanRecord(outputs["a", "d1"].pk, (error("Addition", "Subject", 0, 5),), False),
        SpanRecord(
            outputs["a", "d2"].pk,
            (error("Duplication", "Subject", 6, 10), error("Word Form", "Object", 11, 16)),
            False,
        ),
        SpanRecord(outputs["b", "d1"].pk, (), True),
        SpanRecord(
            outputs["b", "d2"].pk, (error("Omission", "Subject", 0, 4, side="source"),), False
        ),
        SpanRecord(
            outputs["b", "d3"].pk,
            (error("Addition", "Subject", 0, 5), error("Inaccuracy Intrinsic", "Predicate", 6, 10)),
            False,
        ),
    ]
    span_annotations_replace(
        annotation_set=released, records=records, output_ids=[r.output_id for r in records]
    )
    return {"dataset": dataset, "documents": documents, "outputs": outputs, "released": released}
