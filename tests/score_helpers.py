"""Helpers for tests that read or plant per-document scores (one DocumentScore row per output,
its metrics in a JSON object): one record per stored value, and a plain write."""

from __future__ import annotations

from typing import NamedTuple

from scoring.scores.models import DocumentScore
from scoring.scores.services import ScoreRow, document_scores_upsert


class StoredScore(NamedTuple):
    """One stored value, with the row it is in (its version, system and document loaded)."""

    version_id: int
    document_id: int
    metric: str
    value: float
    fam_id: int | None
    job_id: int | None
    row: DocumentScore


def stored_scores(metric: str | None = None, **filters) -> list[StoredScore]:
    """The stored values of the rows that match ``filters`` (all metrics, or only ``metric``),
    by version, document and metric."""
    rows = (
        DocumentScore.objects.filter(**filters)
        .select_related("version__system", "document")
        .order_by("version_id", "document_id")
    )
    return [
        StoredScore(row.version_id, row.document_id, key, value, row.fam_id, row.job_id, row)
        for row in rows
        for key, value in sorted(row.metrics.items())
        if metric is None or key == metric
    ]


def score_plant(*, version, document, metric: str, value: float, fam=None) -> None:
    """Store one value as the score store does (checked; merged into the output's row)."""
    document_scores_upsert(
        rows=[ScoreRow(version.pk, document.pk, metric, value, fam.pk if fam else None)]
    )
