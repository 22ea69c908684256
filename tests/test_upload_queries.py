"""An upload's SQL statements do not grow with its outputs (no query per output or document)."""

from __future__ import annotations

import io
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.corpus.models import Dataset, Document, Reference
from annotation.imports.bundle import SystemRecord
from scoring.uploads.services import system_outputs_upload

pytestmark = pytest.mark.django_db


def _dataset(size: int) -> Dataset:
    dataset = Dataset.objects.create(slug=f"queries-{size}", name="Queries")
    for n in range(size):
        document = Document.objects.create(
            dataset=dataset,
            external_id=f"d{n}",
            position=n,
            sentences=["One.", "Two.", "Three.", "Four."],
        )
        Reference.objects.create(document=document, position=0, sentences=["One and two."])
    return dataset


def _statements(size: int) -> int:
    dataset = _dataset(size)
    lines = "".join(
        json.dumps({"doc_id": f"d{n}", "extracted": [0, 2]}) + "\n" for n in range(size)
    )
    system = SystemRecord(slug=f"ext-{size}", name="Ext", kind="extractive")
    with CaptureQueriesContext(connection) as queries:
        system_outputs_upload(
            dataset=dataset,
            system=system,
            source=io.BytesIO(lines.encode()),
            filename="outputs.jsonl",
        )
    return len(queries)


def test_an_uploads_statements_do_not_grow_with_its_outputs(users):
    small, large = _statements(5), _statements(60)
    # Twelve times the outputs: at most a couple more statements (bulk inserts in batches).
    assert large <= small + 2, (small, large)
