"""rows_copy writes what bulk_create would: NULL apart from "", JSON, quotes and newlines, the
auto_now_add time, and the database's constraints still refuse a bad row."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from annotation.corpus.models import Dataset, Document
from annotation.imports.copy import rows_copy
from annotation.systems.models import OutputVersion, System, SystemOutput

pytestmark = pytest.mark.django_db


@pytest.fixture
def version():
    dataset = Dataset.objects.create(slug="copy", name="Copy")
    for n in range(3):
        Document.objects.create(
            dataset=dataset, external_id=f"d{n}", position=n, sentences=["A.", "B.", "C."]
        )
    system = System.objects.create(slug="copy-sys", name="Copy", kind="abstractive")
    return OutputVersion.objects.create(system=system, dataset=dataset, number=1)


def _output(version, document, **fields) -> SystemOutput:
    return SystemOutput(system=version.system, version=version, document=document, **fields)


def test_values_come_back_as_written(version):
    documents = list(Document.objects.filter(dataset=version.dataset).order_by("position"))
    tricky = ['He said "no", then left.', "Line one\nline two", "comma, and \\N and ''", "é ✓"]
    before = timezone.now()
    written = rows_copy(
        [
            _output(version, documents[0], sentences=tricky),
            # Extractive fields on one row: a list and a non-empty method.
            _output(
                version,
                documents[1],
                sentences=["B."],
                extracted=[1],
                extraction_method="given",
                match_confidence=[0.25],
            ),
            _output(version, documents[2], sentences=[""]),
        ]
    )
    assert written == 3
    rows = {
        o.document.external_id: o
        for o in SystemOutput.objects.filter(version=version).select_related("document")
    }
    assert rows["d0"].sentences == tricky
    # NULL stays NULL, and an empty string stays a string (not NULL).
    assert rows["d0"].extracted is None
    assert rows["d0"].match_confidence is None
    assert rows["d0"].extraction_method == ""
    assert rows["d1"].extracted == [1]
    assert rows["d1"].extraction_method == "given"
    assert rows["d1"].match_confidence == [0.25]
    assert rows["d2"].sentences == [""]
    assert all(before <= o.created_at <= timezone.now() for o in rows.values())


def test_the_database_refuses_a_row_that_breaks_a_constraint_and_keeps_none(version):
    document = Document.objects.filter(dataset=version.dataset).first()
    rows = [
        _output(version, document, sentences=["A."]),
        # Extracted indices without a method: the check constraint refuses it.
        _output(version, document, sentences=["B."], extracted=[0]),
    ]
    with pytest.raises(IntegrityError), transaction.atomic():
        rows_copy(rows)
    assert not SystemOutput.objects.filter(version=version).exists()


def test_an_unknown_foreign_key_is_refused(version):
    ghost = Document(pk=10**9, dataset=version.dataset, external_id="ghost", position=9)
    with pytest.raises(IntegrityError), transaction.atomic():
        rows_copy([_output(version, ghost, sentences=["A."])])
        # Django's foreign keys are deferred to the commit, which a test never reaches.
        connection.check_constraints()
    assert not SystemOutput.objects.filter(version=version).exists()


def test_nothing_to_write():
    assert rows_copy([]) == 0
