"""Fixtures of the bias tests: a hand-worked two-document dataset."""

from __future__ import annotations

import pytest

from annotation.corpus.models import Dataset, Document, Reference
from annotation.systems.models import OutputVersion, System, SystemKind, SystemOutput

# The worked example of scoring/metrics/bias/README.md.
DOCUMENT = ["The storm hit the coast on Monday.", "Thousands lost power."]
SUMMARY = ["The storm hit the coast, and thousands lost power."]
# A second document: "Rain fell." summarised by a copy of its first sentence.
OTHER = ["Rain fell all night.", "Roads closed at dawn."]


def add_output(system, dataset, document, number, sentences):
    version, _ = OutputVersion.objects.get_or_create(system=system, dataset=dataset, number=number)
    return SystemOutput.objects.create(
        system=system, version=version, document=document, sentences=sentences
    )


@pytest.fixture
def storm(db):
    """Two documents with text (and one without), a reference each, two systems."""
    dataset = Dataset.objects.create(slug="storm", name="Storm")
    first = Document.objects.create(
        dataset=dataset, external_id="d1", position=0, sentences=DOCUMENT
    )
    second = Document.objects.create(dataset=dataset, external_id="d2", position=1, sentences=OTHER)
    missing = Document.objects.create(
        dataset=dataset, external_id="d3", position=2, sentences=[], meta={"text_missing": True}
    )
    Reference.objects.create(document=first, position=0, sentences=SUMMARY)
    Reference.objects.create(document=second, position=0, sentences=[OTHER[0]])
    Reference.objects.create(document=missing, position=0, sentences=["Anything."])
    abstractive = System.objects.create(slug="abs", name="Abs", kind=SystemKind.ABSTRACTIVE)
    add_output(abstractive, dataset, first, 1, ["Nothing like it."])
    add_output(abstractive, dataset, first, 2, SUMMARY)  # only the current version counts
    lead = System.objects.create(slug="lead-1", name="Lead-1", kind=SystemKind.EXTRACTIVE)
    add_output(lead, dataset, first, 1, [DOCUMENT[0]])
    add_output(lead, dataset, second, 1, [OTHER[0]])
    return dataset
