"""GET /api/systems/?dataset=<slug>: the dataset's systems only, each with the outputs of its
latest version on that dataset (what a PolyTope campaign on it can take), not every system
with its outputs on every dataset."""

from __future__ import annotations

import pytest

from annotation.corpus.models import Dataset, Document
from annotation.systems.models import OutputVersion, System, SystemOutput

pytestmark = pytest.mark.django_db


def other_dataset() -> Dataset:
    """A second dataset of two documents: lead-3 and a system of its own have outputs on it,
    lead-3 in two versions (the latest covering one document)."""
    dataset = Dataset.objects.create(slug="other", name="Other")
    documents = [
        Document.objects.create(dataset=dataset, external_id=f"o{i}", position=i, sentences=["A."])
        for i in range(2)
    ]
    lead = System.objects.get(slug="lead-3")
    own = System.objects.create(slug="other-sys", name="Other system", kind="abstractive")
    for system, number, covered in (
        (lead, 1, documents),
        (lead, 2, documents[:1]),
        (own, 1, documents),
    ):
        version = OutputVersion.objects.create(system=system, dataset=dataset, number=number)
        for document in covered:
            SystemOutput.objects.create(
                system=system, version=version, document=document, sentences=["A."]
            )
    return dataset


def test_a_datasets_systems_with_their_outputs_on_it(demo, client_for):
    other_dataset()
    researcher = client_for("researcher")
    everyone = {s["slug"]: s["output_count"] for s in researcher.get("/api/systems/").json()}
    assert everyone == {"demo-abs": 6, "demo-extsum": 6, "lead-3": 9, "other-sys": 2}
    on_demo = researcher.get("/api/systems/?dataset=demo").json()
    assert [(s["slug"], s["output_count"]) for s in on_demo] == [
        ("demo-abs", 6),
        ("demo-extsum", 6),
        ("lead-3", 6),
    ]
    on_other = researcher.get("/api/systems/?dataset=other").json()
    assert [(s["slug"], s["output_count"]) for s in on_other] == [("lead-3", 1), ("other-sys", 2)]
    missing = researcher.get("/api/systems/?dataset=nope")
    assert missing.status_code == 404
    assert client_for("annotator").get("/api/systems/?dataset=demo").status_code == 403
