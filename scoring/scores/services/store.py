"""Writing per-document scores in bulk: upsert rows and delete the ones that no longer apply."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from ..models import DocumentScore

# Rows per INSERT statement (PostgreSQL's parameters stay well under its limit of 65,535).
UPSERT_PAGE = 5000


class ScoreRow(NamedTuple):
    """One :class:`DocumentScore` to write: a metric's value for an output version's document."""

    version_id: int
    document_id: int
    metric: str
    value: float
    fam_id: int | None = None
    job_id: int | None = None


def document_scores_upsert(*, rows: Sequence[ScoreRow]) -> int:
    """Insert the rows, or overwrite the value, FAM, job and time of those already stored.

    Idempotent: writing the same rows twice stores them once. On PostgreSQL the rows go in
    ``INSERT ... ON CONFLICT`` statements of :data:`UPSERT_PAGE` rows built by psycopg2 (no
    model instances); elsewhere through ``bulk_create``. The database's constraints check every
    value (a fraction in [0, 1], PolyTope's ranges, a finite AutoFAR-L).

    Args:
        rows: the scores; a (version, document, metric) at most once.

    Returns:
        How many rows were written.

    Raises:
        IntegrityError: a value out of its range, or an unknown version, document or FAM.
    """
    if not rows:
        return 0
    now = timezone.now()
    if connection.vendor == "postgresql":
        from psycopg2.extras import execute_values

        table = DocumentScore._meta.db_table
        # The raw cursor, so that psycopg2 builds the statement; errors still come out as
        # Django's (IntegrityError, ...).
        with connection.cursor() as cursor, connection.wrap_database_errors:
            execute_values(
                cursor.cursor,
                f"INSERT INTO {table} "  # noqa: S608 - the model's own table name
                "(version_id, document_id, metric, value, fam_id, job_id, computed_at) "
                "VALUES %s ON CONFLICT (version_id, document_id, metric) DO UPDATE SET "
                "value = EXCLUDED.value, fam_id = EXCLUDED.fam_id, job_id = EXCLUDED.job_id, "
                "computed_at = EXCLUDED.computed_at",
                [(*row, now) for row in rows],
                page_size=UPSERT_PAGE,
            )
        return len(rows)
    DocumentScore.objects.bulk_create(
        [DocumentScore(**row._asdict(), computed_at=now) for row in rows],
        batch_size=2000,
        update_conflicts=True,
        unique_fields=["version", "document", "metric"],
        update_fields=["value", "fam", "job", "computed_at"],
    )
    return len(rows)


class StaleScores:
    """Scores to delete: per (version, document), metrics that no longer apply to it.

    Outputs that lose the same metrics are grouped by version, so a chunk's delete is a few
    ``version = v AND document IN (...) AND metric IN (...)`` terms, not one per output.
    """

    def __init__(self) -> None:
        self._groups: dict[tuple[frozenset[str], int], list[int]] = defaultdict(list)

    def add(self, *, version_id: int, document_id: int, metrics: Iterable[str]) -> None:
        """Mark ``metrics`` of one output version's document for deletion (none: nothing)."""
        metrics = frozenset(metrics)
        if metrics:
            self._groups[(metrics, version_id)].append(document_id)

    def __bool__(self) -> bool:
        return bool(self._groups)

    def q(self) -> Q:
        """The rows to delete, as one ``Q`` (empty when there are none)."""
        condition = Q()
        for (metrics, version_id), documents in self._groups.items():
            condition |= Q(version_id=version_id, document_id__in=documents, metric__in=metrics)
        return condition


def document_scores_delete(*, stale: StaleScores) -> int:
    """Delete the stale scores.

    Args:
        stale: what to delete.

    Returns:
        How many rows were deleted.
    """
    if not stale:
        return 0
    return DocumentScore.objects.filter(stale.q()).delete()[0]
