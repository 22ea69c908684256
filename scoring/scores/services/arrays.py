"""Per-version score arrays: built from the score rows when a job is done, dropped on any write."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
import orjson
from django.conf import settings
from django.db import connection, transaction
from django.db.models import TextField
from django.db.models.functions import Cast

from annotation.corpus.models import Dataset
from annotation.corpus.selectors import CATEGORY_GROUPS, document_order
from annotation.systems.models import OutputVersion, SystemOutput
from scoring.metrics.leaderboard import interval_cells, scope_key
from scoring.metrics.stats.bootstrap import DEFAULT_SEED

from ..models import OUTPUTS_KEY, DocumentScore, ScoreArray
from ..selectors import score_array_documents, score_array_missing, score_arrays_lacking

log = logging.getLogger(__name__)

# Score rows fetched at a time while building (a server-side cursor on PostgreSQL).
READ_BATCH = 20_000
# The confidence level of the intervals stored with the arrays (the leaderboard's).
ARRAY_LEVEL = 0.95


def score_arrays_drop(*, version_ids: Iterable[int]) -> None:
    """Delete the arrays of versions whose scores are being written (by the score store).

    On PostgreSQL the versions' rows are first locked ``FOR KEY SHARE``: writers share it, and
    a build (which locks them ``FOR UPDATE``) waits for the writers to commit, or they for it,
    so that no array is built from rows a writer is changing.

    Args:
        version_ids: the versions written.
    """
    ids = sorted(set(version_ids))
    if not ids:
        return
    if connection.vendor == "postgresql":  # (Django's select_for_update has no KEY SHARE)
        table = connection.ops.quote_name(OutputVersion._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT id FROM {table} WHERE id = ANY(%s) ORDER BY id FOR KEY SHARE", [ids]
            )
    ScoreArray.objects.filter(version_id__in=ids).delete()


def _read(version_ids: list[int], position: dict[int, int], n: int) -> dict[int, dict]:
    """Every value of the versions' score rows, and their outputs, as arrays over the
    documents (NaN where there is none)."""
    # Every version has its outputs' array, even without outputs: it marks the version built.
    arrays = {v: {OUTPUTS_KEY: np.full(n, np.nan)} for v in version_ids}
    outputs = SystemOutput.objects.filter(version_id__in=version_ids).order_by()
    for version_id, document_id in outputs.values_list("version_id", "document_id"):
        arrays[version_id][OUTPUTS_KEY][position[document_id]] = 1.0
    rows = (
        DocumentScore.objects.filter(version_id__in=version_ids)
        .order_by()
        .values_list("version_id", "document_id", Cast("metrics", TextField()))
    )
    # orjson: 1.0 µs a row against the standard library's 4.5, and the same floats (checked on
    # the 1,149,000 rows of the 100-system benchmark); an integer (PostgreSQL writes 1e300 back
    # as digits) goes into the float array as its float.
    for version_id, document_id, text in rows.iterator(chunk_size=READ_BATCH):
        at = position[document_id]
        columns = arrays[version_id]
        for key, value in orjson.loads(text).items():
            column = columns.get(key)
            if column is None:
                column = columns[key] = np.full(n, np.nan)
            column[at] = value
    return arrays


def _cells(arrays: dict[int, dict], scopes, positions: dict, **settings) -> dict[tuple, dict]:
    """Each column's intervals over each scope's documents it has values for (columns over
    the same documents computed together, as the leaderboard table groups them)."""
    cells: dict[tuple, dict] = defaultdict(dict)
    for scope in scopes:
        if not scope:
            continue
        at = np.fromiter(map(positions.__getitem__, scope), dtype=np.intp, count=len(scope))
        everything = tuple(scope)
        kept = np.asarray(scope)
        groups: dict[bytes, tuple[tuple, list]] = {}
        for version_id, columns in arrays.items():
            for key, values in columns.items():
                if key == OUTPUTS_KEY:
                    continue
                part = values[at]
                present = ~np.isnan(part)
                if not present.any():
                    continue
                mask = present.tobytes()
                if mask not in groups:
                    docs = everything if present.all() else tuple(kept[present].tolist())
                    groups[mask] = (docs, [])
                groups[mask][1].append((version_id, key, part[present]))
        for docs, members in groups.values():
            matrix = np.column_stack([values for _, _, values in members])
            name = scope_key(docs, **settings)
            for (version_id, key, _), cell in zip(
                members, interval_cells(matrix, **settings), strict=True
            ):
                cells[(version_id, key)][name] = [cell.mean, cell.ci_low, cell.ci_high, cell.n]
    return cells


@transaction.atomic
def score_arrays_build(
    *,
    dataset: Dataset,
    scopes: Sequence[Sequence[int]],
    level: float,
    resamples: int,
    seed: int,
    version_ids: Iterable[int] | None = None,
) -> int:
    """Build the arrays of every current version of the dataset that has none for its
    documents' current order (or of those among ``version_ids``), with their intervals over
    each scope.

    Idempotent: versions whose arrays are current are left alone, and a version's arrays are
    replaced as a whole. On PostgreSQL the versions are locked ``FOR UPDATE`` while their rows
    are read (see :func:`score_arrays_drop`).

    Args:
        dataset: the dataset.
        scopes: document id lists in the dataset's order (all documents, each facet
            category): each column's interval is computed over the documents of each that it
            has values for, as the leaderboard computes it.
        level: confidence level of the intervals.
        resamples: bootstrap resamples.
        seed: bootstrap seed.
        version_ids: only these versions (a part of a build run beside the others); None:
            every current version.

    Returns:
        How many versions were built.
    """
    ids, order = score_array_documents(dataset=dataset)
    missing = score_array_missing(dataset=dataset, order=order)
    if version_ids is not None:
        wanted = set(version_ids)
        missing = [v for v in missing if v in wanted]
    if missing and connection.vendor == "postgresql":
        list(
            OutputVersion.objects.filter(pk__in=missing)
            .select_for_update()
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        missing = score_arrays_lacking(missing, order)  # another build may have finished
    if not missing:
        return 0
    positions = {document_id: i for i, document_id in enumerate(ids)}
    arrays = _read(missing, positions, len(ids))
    cells = _cells(
        arrays, scopes, positions, level=level, resamples=resamples, seed=seed
    )  # fmt: skip
    built = []
    for version_id, columns in arrays.items():
        for key, values in columns.items():
            array = ScoreArray(
                version_id=version_id,
                key=key,
                order=order,
                count=int(np.count_nonzero(~np.isnan(values))),
                values=values.astype("<f8").tobytes(),
                cells=cells.get((version_id, key), {}),
            )
            array.full_clean(validate_unique=False, validate_constraints=False)
            built.append(array)
    ScoreArray.objects.filter(version_id__in=missing).delete()
    ScoreArray.objects.bulk_create(built, batch_size=100)
    log.info("built score arrays of %d versions of dataset %s", len(missing), dataset.pk)
    return len(missing)


def score_arrays_build_missing(*, dataset: Dataset, version_ids: list[int] | None = None) -> int:
    """Build the score arrays of the dataset's versions that lack them, with the intervals the
    leaderboard shows: over all documents and over each facet category group, at
    :data:`ARRAY_LEVEL`, ``LOUPE_LEADERBOARD_RESAMPLES`` resamples and the default seed.

    Args:
        dataset: the dataset.
        version_ids: only these of its versions (None: all that lack arrays).

    Returns:
        How many versions were built.
    """
    missing = score_array_missing(dataset=dataset)
    if version_ids is not None:
        missing = sorted(set(missing) & set(version_ids))
    if not missing:
        return 0  # the usual case after a job's parts: no scope's documents read for nothing
    scopes = {}
    for category in (None, *CATEGORY_GROUPS):
        documents = tuple(document_order(dataset=dataset, category=category))
        if documents:
            scopes.setdefault(documents, None)
    return score_arrays_build(
        dataset=dataset,
        scopes=list(scopes),
        level=ARRAY_LEVEL,
        resamples=settings.LOUPE_LEADERBOARD_RESAMPLES,
        seed=DEFAULT_SEED,
        version_ids=missing,
    )


def array_parts(version_ids: list[int], parts: int) -> list[list[int]]:
    """Versions dealt into ``parts`` lists of nearly equal size (every ``parts``-th one).

    Args:
        version_ids: the versions, in order.
        parts: how many lists (at least 1).

    Returns:
        The non-empty lists.
    """
    return [part for i in range(parts) if (part := version_ids[i::parts])]
