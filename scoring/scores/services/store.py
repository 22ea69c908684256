"""Writing per-document scores in bulk: upsert rows and delete the ones that no longer apply."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import NamedTuple

import orjson
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import Q
from django.utils import timezone

from ..models import DocumentScore, score_value_problem
from .arrays import score_arrays_drop

# Outputs per INSERT statement.
UPSERT_PAGE = 5000
_NUMPY = orjson.OPT_SERIALIZE_NUMPY


class ScoreRow(NamedTuple):
    """One value to store: a metric's value for an output version's document (with the FAM
    it was computed against, for the FAR family, and the job that computed it)."""

    version_id: int
    document_id: int
    metric: str
    value: float
    fam_id: int | None = None
    job_id: int | None = None


class OutputScores(NamedTuple):
    """Every value to store for one output version's document at once: what a scoring chunk
    computes per output, without a :class:`ScoreRow` per metric.

    ``fam_id`` is the FAM the FAR family (``@k`` keys) was computed against, None without such
    keys; ``job_id`` the job that computed them.
    """

    version_id: int
    document_id: int
    metrics: dict[str, float]
    fam_id: int | None = None
    job_id: int | None = None


def _checked(outputs: Iterable[OutputScores]) -> None:
    # A metric's range is one interval: when it takes both 0 and 1, it takes any float
    # between them, which is what nearly every value written is (checked once per metric).
    unit = {}
    problems = []
    for output in outputs:
        for metric, value in output.metrics.items():
            if type(value) is float and type(metric) is str and 0.0 <= value <= 1.0:
                fits = unit.get(metric)
                if fits is None:
                    fits = unit[metric] = (
                        score_value_problem(metric, 0.0) is None
                        and score_value_problem(metric, 1.0) is None
                    )
                if fits:
                    continue
            if (problem := score_value_problem(metric, value)) is not None:
                problems.append(
                    f"version {output.version_id}, document {output.document_id}: {problem}"
                )
    if problems:
        more = f" (and {len(problems) - 20} more)" if len(problems) > 20 else ""
        raise ValidationError(f"scores refused: {'; '.join(problems[:20])}{more}")


def _merged(rows: Sequence[ScoreRow], outputs: Sequence[OutputScores]) -> list[OutputScores]:
    """One :class:`OutputScores` per output: the rows gathered by output, then ``outputs``
    merged in. An output's FAM is that of its FAR values (``@k`` keys), its job the last
    one given."""
    if not rows:
        return list(outputs)
    singles = (
        OutputScores(
            version_id, document_id, {metric: value}, fam_id if "@" in metric else None, job_id
        )
        for version_id, document_id, metric, value, fam_id, job_id in rows
    )
    merged: dict[tuple[int, int], list] = {}
    for version_id, document_id, metrics, fam_id, job_id in chain(singles, outputs):
        entry = merged.get((version_id, document_id))
        if entry is None:
            entry = merged[(version_id, document_id)] = [{}, None, None]
        entry[0].update(metrics)
        if fam_id is not None:
            entry[1] = fam_id
        entry[2] = job_id
    return [
        OutputScores(version_id, document_id, metrics, fam_id, job_id)
        for (version_id, document_id), (metrics, fam_id, job_id) in merged.items()
    ]


# Merge the new metrics into the stored ones; the FAM follows the FAR keys written (a write
# without FAR keys, such as PolyTope's or AutoFAR-L's, keeps the stored one).
_UPSERT_POSTGRESQL = (
    "INSERT INTO {table} AS stored "
    "(version_id, document_id, metrics, fam_id, job_id, computed_at) VALUES %s "
    "ON CONFLICT (version_id, document_id) DO UPDATE SET "
    "metrics = stored.metrics || EXCLUDED.metrics, "
    "fam_id = CASE WHEN EXISTS (SELECT 1 FROM jsonb_object_keys(EXCLUDED.metrics) AS key "
    "WHERE key LIKE '%%@%%') THEN EXCLUDED.fam_id ELSE stored.fam_id END, "
    "job_id = EXCLUDED.job_id, computed_at = EXCLUDED.computed_at"
)
_UPSERT_SQLITE = (
    "INSERT INTO {table} (version_id, document_id, metrics, fam_id, job_id, computed_at) "
    "VALUES (%s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (version_id, document_id) DO UPDATE SET "
    "metrics = json_patch(metrics, excluded.metrics), "
    "fam_id = CASE WHEN EXISTS (SELECT 1 FROM json_each(excluded.metrics) "
    "WHERE key LIKE '%%@%%') THEN excluded.fam_id ELSE fam_id END, "
    "job_id = excluded.job_id, computed_at = excluded.computed_at"
)


def document_scores_upsert(
    *,
    rows: Sequence[ScoreRow] = (),
    outputs: Sequence[OutputScores] = (),
    stale: StaleScores | None = None,
) -> int:
    """Store the values given: each output's metrics are merged into its one stored row.

    The versions' score arrays are deleted first (:func:`~.arrays.score_arrays_drop`): they
    are built again from the rows when the job is done.

    Idempotent: writing the same values twice stores them once. A metric already stored for
    the output is overwritten, the others it has are kept; the row's FAM follows the FAR
    metrics (``@k`` keys) written, and its job and time are this write's. Every value is
    checked first (:func:`~scoring.scores.models.score_value_problem`), so a refused write
    stores nothing. One ``INSERT ... ON CONFLICT`` per :data:`UPSERT_PAGE` outputs (psycopg2
    builds the statement on PostgreSQL; SQLite's JSON functions merge there).

    Args:
        rows: values one by one; a (version, document, metric) at most once.
        outputs: values an output at a time (a scoring chunk's form: no tuple per value);
            merged with ``rows`` of the same output.
        stale: the scores a :func:`document_scores_delete` of the same transaction removes
            next, if any: on PostgreSQL, the outputs written that hold none of their stale
            metrics once merged (as a fresh row never does) are struck from it, so that it
            reads only the rows it changes.

    Returns:
        How many values were written.

    Raises:
        ValidationError: a value out of its metric's range, or not a finite number.
        IntegrityError: an unknown version, document, FAM or job.
    """
    merged = _merged(rows, outputs)
    if not merged:
        return 0
    _checked(merged)
    # The stale scores' versions too: the delete that follows then locks nothing new, so a
    # writer takes its versions' locks in one ordered statement (two would deadlock with a
    # build that holds one of them and waits for the other).
    score_arrays_drop(
        version_ids={output.version_id for output in merged}
        | ({version_id for (version_id, _), _ in stale.items()} if stale else set())
    )
    now = timezone.now()
    values = [
        # orjson writes each float's shortest digits, as json.dumps does, at a tenth of its
        # cost (numpy's floats included).
        (
            version_id,
            document_id,
            orjson.dumps(metrics, option=_NUMPY).decode(),
            fam_id,
            job_id,
            now,
        )
        for version_id, document_id, metrics, fam_id, job_id in merged
    ]
    table = connection.ops.quote_name(DocumentScore._meta.db_table)
    # The raw cursor, so that the driver builds the statement; errors still come out as
    # Django's (IntegrityError, ...).
    with connection.cursor() as cursor, connection.wrap_database_errors:
        if connection.vendor == "postgresql":
            from psycopg2.extras import execute_values

            statement = _UPSERT_POSTGRESQL.format(table=table)
            marked = sorted(stale.metrics()) if stale else []
            if marked:
                # Whether each merged row still holds some stale metric (the keys go in as a
                # literal array: the statement's only parameter is its VALUES list).
                keys = cursor.cursor.mogrify("%s", [marked]).decode().replace("%", "%%")
                statement += f" RETURNING version_id, document_id, metrics ?| {keys}"
            written = execute_values(
                cursor.cursor,
                statement,
                values,
                template="(%s, %s, %s::jsonb, %s, %s, %s)",
                page_size=UPSERT_PAGE,
                fetch=bool(marked),
            )
            for version_id, document_id, holds_stale in written or ():
                if not holds_stale:
                    stale.discard(version_id=version_id, document_id=document_id)
        else:
            cursor.executemany(_UPSERT_SQLITE.format(table=table), values)
    return sum(len(output.metrics) for output in merged)


class StaleScores:
    """Scores to delete: per (version, document), metrics that no longer apply to it."""

    def __init__(self) -> None:
        self._pairs: dict[tuple[int, int], set[str]] = defaultdict(set)

    def add(self, *, version_id: int, document_id: int, metrics: Iterable[str]) -> None:
        """Mark ``metrics`` of one output version's document for deletion (none: nothing)."""
        metrics = set(metrics)
        if metrics:
            self._pairs[(version_id, document_id)] |= metrics

    def discard(self, *, version_id: int, document_id: int) -> None:
        """Unmark every metric of one output version's document (none marked: nothing)."""
        self._pairs.pop((version_id, document_id), None)

    def metrics(self) -> set[str]:
        """Every metric marked for some output."""
        return set().union(*self._pairs.values())

    def __bool__(self) -> bool:
        return bool(self._pairs)

    def items(self) -> Iterable[tuple[tuple[int, int], set[str]]]:
        """``((version, document), metrics)`` pairs."""
        return self._pairs.items()

    def q(self) -> Q:
        """The stored rows that hold some of the marked metrics, as one ``Q`` of a few terms
        (empty when nothing is marked): see :func:`pairs_q`."""
        by_metrics: dict[frozenset[str], dict[int, list[int]]] = defaultdict(
            lambda: defaultdict(list)
        )
        for (version_id, document_id), metrics in self._pairs.items():
            by_metrics[frozenset(metrics)][version_id].append(document_id)
        condition = Q()
        for metrics, pairs in by_metrics.items():
            condition |= pairs_q(pairs) & Q(metrics__has_any_keys=sorted(metrics))
        return condition


def pairs_q(pairs: dict[int, list[int]]) -> Q:
    """Rows of some (version, document) pairs, as one ``Q`` of a few terms.

    Versions with the same documents share a term ``version in (...) and document in (...)``,
    whose cross product is exactly their pairs: a scoring chunk of one version is one term,
    and so is a chunk of every version's outputs of a few documents.

    Args:
        pairs: version id -> its document ids.

    Returns:
        The condition (empty when there are no pairs).
    """
    versions_of: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for version_id, documents in pairs.items():
        versions_of[tuple(sorted(set(documents)))].append(version_id)
    condition = Q()
    for documents, versions in versions_of.items():
        condition |= Q(version_id__in=versions, document_id__in=documents)
    return condition


def document_scores_delete(*, stale: StaleScores) -> int:
    """Remove the stale metrics from the stored rows; a row left without any is deleted, and
    a row left without FAR metrics loses its FAM. The versions' score arrays are deleted.

    Args:
        stale: what to delete.

    Returns:
        How many values were removed.
    """
    if not stale:
        return 0
    marked = dict(stale.items())
    score_arrays_drop(version_ids={version_id for version_id, _ in marked})
    changed, emptied, removed = [], [], 0
    rows = DocumentScore.objects.select_for_update().filter(stale.q()).order_by("pk")
    for row in rows.only("pk", "version_id", "document_id", "metrics", "fam_id"):
        drop = marked[(row.version_id, row.document_id)]
        kept = {metric: value for metric, value in row.metrics.items() if metric not in drop}
        removed += len(row.metrics) - len(kept)
        if not kept:
            emptied.append(row.pk)
            continue
        row.metrics = kept
        if not any("@" in metric for metric in kept):
            row.fam_id = None
        changed.append(row)
    DocumentScore.objects.bulk_update(changed, ["metrics", "fam"], batch_size=1000)
    DocumentScore.objects.filter(pk__in=emptied).delete()
    return removed
