"""Migration 0004 folds the per-metric score rows of an output into one row, losing no value:
each value lands under its metric, the FAM stays with the FAR values, and reversing leaves
the per-metric table (empty: scores are recomputed)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSet, Fam
from annotation.systems.models import OutputVersion, System

BEFORE = [("scores", "0003_autofar_l_any_finite_value")]
AFTER = [("scores", "0004_document_score_one_row_per_output")]


def _migrate(target) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)


@pytest.mark.django_db(transaction=True)
def test_per_metric_rows_become_one_row_per_output():
    dataset = Dataset.objects.create(slug="mig", name="Mig")
    documents = [
        Document.objects.create(dataset=dataset, external_id=f"d{n}", position=n, sentences=["A."])
        for n in range(3)
    ]
    reference = Reference.objects.create(document=documents[0], sentences=["A."])
    gold = AnnotationSet.objects.create(dataset=dataset, slug="g", name="G", kind="gold")
    fam = Fam.objects.create(
        annotation_set=gold,
        document=documents[0],
        reference=reference,
        facets=[{"groups": [[0]], "label": "supported"}],
    )
    system = System.objects.create(slug="mig-ext", name="Ext", kind="extractive")
    version = OutputVersion.objects.create(system=system, dataset=dataset, number=1)
    d0, d1, d2 = (d.pk for d in documents)
    old = [
        (d0, "rouge1_f", 0.25, None),
        (d0, "far@3", 0.5, fam.pk),
        (d0, "sar@3", 0.125, fam.pk),
        (d0, "polytope", -12.5, None),
        (d1, "rouge1_f", 0.75, None),
        (d2, "autofar_l", 1e300, None),
    ]
    try:
        _migrate(BEFORE)
        with connection.cursor() as cursor:
            for document_id, metric, value, fam_id in old:
                cursor.execute(
                    "INSERT INTO scores_documentscore "
                    "(version_id, document_id, metric, value, fam_id, job_id, computed_at) "
                    "VALUES (%s, %s, %s, %s, %s, NULL, CURRENT_TIMESTAMP)",
                    [version.pk, document_id, metric, value, fam_id],
                )
        _migrate(AFTER)
        from scoring.scores.models import DocumentScore

        rows = {
            r.document_id: (r.metrics, r.fam_id)
            for r in DocumentScore.objects.filter(version=version)
        }
        assert rows == {
            d0: ({"rouge1_f": 0.25, "far@3": 0.5, "sar@3": 0.125, "polytope": -12.5}, fam.pk),
            d1: ({"rouge1_f": 0.75}, None),
            d2: ({"autofar_l": 1e300}, None),
        }
        _migrate(BEFORE)
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM scores_documentscore")
            assert cursor.fetchone()[0] == 0
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
