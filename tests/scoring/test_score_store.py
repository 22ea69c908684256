"""Bulk score writes: the upsert is idempotent and overwrites, stale rows go and no others."""

import pytest
from django.db import IntegrityError, transaction

from annotation.corpus.models import Dataset, Document
from annotation.systems.models import OutputVersion, System
from scoring.scores.models import DocumentScore
from scoring.scores.services import (
    ScoreRow,
    StaleScores,
    document_scores_delete,
    document_scores_upsert,
)


@pytest.fixture
def world(db):
    dataset = Dataset.objects.create(slug="store", name="Store")
    documents = [
        Document.objects.create(dataset=dataset, external_id=f"d{n}", position=n, sentences=["A."])
        for n in range(3)
    ]
    system = System.objects.create(slug="sys", name="sys", kind="abstractive")
    versions = [
        OutputVersion.objects.create(system=system, dataset=dataset, number=n) for n in (1, 2)
    ]
    return documents, versions


def _stored():
    return {(s.version_id, s.document_id, s.metric): s.value for s in DocumentScore.objects.all()}


def test_upsert_inserts_then_overwrites_without_duplicates(world):
    documents, versions = world
    v, d = versions[0].pk, documents[0].pk
    rows = [ScoreRow(v, d, "rouge1_f", 0.25), ScoreRow(v, d, "rouge2_f", 0.5)]
    assert document_scores_upsert(rows=rows) == 2
    assert document_scores_upsert(rows=rows) == 2  # the same rows again: still two
    assert _stored() == {(v, d, "rouge1_f"): 0.25, (v, d, "rouge2_f"): 0.5}
    first = DocumentScore.objects.get(metric="rouge1_f").computed_at
    document_scores_upsert(rows=[ScoreRow(v, d, "rouge1_f", 0.75)])
    changed = DocumentScore.objects.get(metric="rouge1_f")
    assert changed.value == 0.75 and changed.computed_at >= first
    assert DocumentScore.objects.count() == 2
    assert document_scores_upsert(rows=[]) == 0


def test_upsert_keeps_the_value_checks(world):
    documents, versions = world
    with pytest.raises(IntegrityError), transaction.atomic():
        document_scores_upsert(rows=[ScoreRow(versions[0].pk, documents[0].pk, "rouge1_f", 1.5)])
    assert DocumentScore.objects.count() == 0


def test_stale_scores_delete_exactly_the_marked_rows(world):
    documents, versions = world
    rows = [
        ScoreRow(v.pk, d.pk, metric, 0.5)
        for v in versions
        for d in documents
        for metric in ("far@3", "sar@3", "rouge1_f")
    ]
    document_scores_upsert(rows=rows)
    stale = StaleScores()
    assert not stale and document_scores_delete(stale=stale) == 0
    for document in documents[:2]:  # two documents of version 1 lose FAR and SAR
        stale.add(version_id=versions[0].pk, document_id=document.pk, metrics={"far@3", "sar@3"})
    stale.add(version_id=versions[1].pk, document_id=documents[2].pk, metrics=["rouge1_f"])
    stale.add(version_id=versions[1].pk, document_id=documents[0].pk, metrics=[])  # nothing
    assert stale
    assert document_scores_delete(stale=stale) == 5
    gone = {
        (versions[0].pk, documents[0].pk, "far@3"),
        (versions[0].pk, documents[0].pk, "sar@3"),
        (versions[0].pk, documents[1].pk, "far@3"),
        (versions[0].pk, documents[1].pk, "sar@3"),
        (versions[1].pk, documents[2].pk, "rouge1_f"),
    }
    assert set(_stored()) == {(r.version_id, r.document_id, r.metric) for r in rows} - gone
