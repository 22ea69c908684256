"""Leaderboard selectors (reads): rows to plain data, the core's table, and the API envelope."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Max

from annotation.corpus.models import Category, Dataset, Document
from annotation.systems.models import OutputVersion, SystemOutput
from config.exceptions import ApplicationError
from scoring.judgments.models import HumanJudgment
from scoring.judgments.selectors import human_judgment_stamp, human_judgments_for
from scoring.metrics.far import DEFAULT_K
from scoring.metrics.leaderboard import (
    FAR_MEASURES,
    ROUGE_KEYS,
    build_leaderboard,
    correlate_with_human,
    far_key,
)
from scoring.metrics.stats import TEST_PERMUTATION
from scoring.scores.models import DocumentScore, JobStatus, ScoringJob
from scoring.scores.selectors import output_version_current_list

from ..models import LeaderboardSnapshot
from ..plots import system_colours

CATEGORIES = {
    "noise": (Category.NOISE,),
    "low": (Category.LOW,),
    "high": (Category.HIGH,),
    "low+high": (Category.LOW, Category.HIGH),
}
METRICS = (*FAR_MEASURES, *ROUGE_KEYS)
ALPHA = 0.05
LEVEL = 0.95


class LeaderboardParamsError(ApplicationError):
    """A leaderboard parameter is not one the dataset can answer (bad category, k or sort)."""


def check_params(category: str | None, k: int) -> None:
    """Refuse an unknown category or a k outside 1..50.

    Args:
        category: a key of :data:`CATEGORIES`, or None/"" for all documents.
        k: the FAR cut-off.

    Raises:
        LeaderboardParamsError: either is bad (HTTP 400).
    """
    if category not in (None, "", *CATEGORIES):
        raise LeaderboardParamsError(
            f"unknown category {category!r}; use one of {', '.join(CATEGORIES)} or none"
        )
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 50:
        raise LeaderboardParamsError(f"k must be an integer from 1 to 50, got {k!r}")


def leaderboard_documents(*, dataset: Dataset, category: str | None) -> dict[int, str]:
    """The dataset's documents in a facet category.

    Args:
        dataset: the dataset.
        category: ``noise``, ``low``, ``high``, ``low+high`` or None for all.

    Returns:
        document id -> external id, in dataset order.
    """
    documents = Document.objects.filter(dataset=dataset)
    if category:
        documents = documents.filter(category__in=CATEGORIES[category])
    return dict(documents.order_by("position", "id").values_list("id", "external_id"))


def leaderboard_scores(
    *, versions: list[OutputVersion], k: int, category: str | None = None, metrics=METRICS
) -> dict[int, dict[str, dict[int, float]]]:
    """Per-document scores of some versions under leaderboard names (``far`` for ``far@k``).

    Args:
        versions: output versions.
        k: the FAR cut-off to read.
        category: only documents of this facet category (the filter runs in the database).
        metrics: leaderboard metric names to read.

    Returns:
        version id -> metric -> document id -> value.
    """
    stored = {far_key(m, k) if m in FAR_MEASURES else m: m for m in metrics}
    rows = DocumentScore.objects.filter(
        version_id__in=[v.pk for v in versions], metric__in=list(stored)
    )
    if category:
        rows = rows.filter(document__category__in=CATEGORIES[category])
    scores: dict[int, dict[str, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    for version_id, document_id, metric, value in rows.values_list(
        "version_id", "document_id", "metric", "value"
    ).order_by():
        scores[version_id][stored[metric]][document_id] = value
    return scores


def _stamp(dataset: Dataset, versions: list[OutputVersion]) -> str:
    """A digest of everything a leaderboard is computed from: versions, the last finished job,
    the judgments and every document's category."""
    last_job = (
        ScoringJob.objects.filter(
            dataset=dataset, status__in=[JobStatus.SUCCEEDED, JobStatus.FAILED]
        )
        .order_by("-finished_at", "-id")
        .values_list("id", "finished_at")
        .first()
    )
    digest = hashlib.sha256()
    digest.update(",".join(str(v.pk) for v in versions).encode())
    digest.update(f"|{last_job[0]}@{last_job[1].isoformat()}|".encode() if last_job else b"|-|")
    digest.update(human_judgment_stamp(dataset=dataset).encode())
    for document_id, category in (
        Document.objects.filter(dataset=dataset).order_by("id").values_list("id", "category")
    ):
        digest.update(f"|{document_id}:{category}".encode())
    return digest.hexdigest()


def _compute(dataset, versions, *, category, k, sort, common_only) -> dict:
    documents = leaderboard_documents(dataset=dataset, category=category)
    by_version = leaderboard_scores(versions=versions, k=k, category=category)
    covered: dict[int, set[int]] = defaultdict(set)
    for version_id, document_id in SystemOutput.objects.filter(
        version__in=versions, document_id__in=list(documents)
    ).values_list("version_id", "document_id"):
        covered[version_id].add(document_id)
    slugs = {v.pk: v.system.slug for v in versions}
    scores = {slugs[v]: metrics for v, metrics in by_version.items()}
    metrics = [m for m in METRICS if any(m in s for s in scores.values())]
    if not metrics:
        metrics = ["rouge1_f"]
    sort = sort or ("far" if "far" in metrics else "rouge1_f")
    if sort not in metrics:
        raise LeaderboardParamsError(f"cannot sort by {sort!r}; columns: {', '.join(metrics)}")
    resamples = settings.LOUPE_LEADERBOARD_RESAMPLES
    board = build_leaderboard(
        scores,
        documents=documents,
        covered={slugs[v.pk]: covered.get(v.pk, set()) for v in versions},
        metrics=metrics,
        sort=sort,
        common_only=common_only,
        alpha=ALPHA,
        level=LEVEL,
        resamples=resamples,
        names={v.system.slug: v.system.name for v in versions},
    )
    info = {v.system.slug: v for v in versions}
    systems = []
    for row in board.rows:
        version = info[row.system]
        entry = {
            "system": row.system,
            "name": version.system.name,
            "kind": version.system.kind,
            "version": version.number,
            "n_documents": row.n_documents,
        }
        entry.update({m: (c.as_dict() if c else None) for m, c in row.cells.items()})
        entry["vs_next"] = row.comparison.as_dict() if row.comparison else None
        systems.append(entry)
    return {
        "dataset": dataset.slug,
        "dataset_name": dataset.name,
        "category": category or None,
        "k": k,
        "sort": sort,
        "common_only": common_only,
        "metrics": list(board.metrics),
        "n_documents": board.n_documents,
        "common_documents": board.common_documents,
        "comparable": board.comparable,
        "notes": list(board.notes) + _judgment_notes(dataset, versions),
        "ci": {"method": "percentile bootstrap", "level": LEVEL, "resamples": resamples,
               "seed": board.seed},
        "significance": {"test": TEST_PERMUTATION, "alternative": "two-sided", "alpha": ALPHA,
                         "metric": sort, "resamples": resamples},
        "systems": systems,
        "correlations": _correlations(dataset, scores, documents, metrics),
    }  # fmt: skip


def _judgment_notes(dataset, versions) -> list[str]:
    """Studies that judged a system before its current outputs were uploaded."""
    judged = (
        HumanJudgment.objects.filter(dataset=dataset)
        .values_list("name", "system_id")
        .annotate(last=Max("created_at"))
        .order_by("name", "system_id")
    )
    current = {v.system_id: v for v in versions}
    notes = []
    for name, system_id, last in judged:
        version = current.get(system_id)
        if version is not None and version.number > 1 and last < version.created_at:
            notes.append(
                f"Human study {name!r} judged {version.system.name} before its version "
                f"{version.number} was uploaded: its correlations pair those judgments with "
                "the new outputs."
            )
    return notes


def _correlations(dataset, scores, documents, metrics) -> list[dict]:
    """Every human study against every metric, on the documents in the filter."""
    metric_scores = {
        metric: {system: s[metric] for system, s in scores.items() if s.get(metric)}
        for metric in metrics
    }
    results = []
    for name, (kind, human) in human_judgments_for(dataset=dataset).items():
        human = {
            system: kept
            for system, values in human.items()
            if (kept := {d: v for d, v in values.items() if d is None or d in documents})
        }
        if not human:
            continue
        for correlation in correlate_with_human(metric_scores, human, kind=kind, name=name):
            results.append(correlation.as_dict())
    return results


@dataclass(frozen=True)
class LeaderboardRead:
    """A leaderboard as read: its cache key, the stamp of its inputs, and the payload.

    ``stored`` says the payload came from a snapshot that is still current; otherwise it was
    computed now and the caller may store it (``leaderboard_snapshot_store``).
    """

    params: str
    stamp: str
    payload: dict
    stored: bool


def leaderboard_read(
    *,
    dataset: Dataset,
    category: str | None = None,
    k: int = DEFAULT_K,
    sort: str | None = None,
    common_only: bool = False,
) -> LeaderboardRead:
    """The dataset's leaderboard (see README, "Leaderboards"), from its snapshot or computed.

    Computed from the stored per-document scores of every system's latest output version. A
    snapshot is used while nothing it depends on changed (versions, finished jobs, judgments,
    categories). Nothing is written here.

    Args:
        dataset: the dataset.
        category: ``noise``, ``low``, ``high``, ``low+high`` or None for all documents.
        k: the FAR cut-off.
        sort: the metric to sort and test by (default ``far``, else ``rouge1_f``).
        common_only: restrict every system to the documents all of them cover.

    Returns:
        A :class:`LeaderboardRead` whose payload holds the dataset, filters, metrics,
        coverage, notes, CI and test settings, ``systems`` and ``correlations``.

    Raises:
        LeaderboardParamsError: an unknown category, a bad k or a sort metric without data.
    """
    check_params(category, k)
    category = category or None
    versions = output_version_current_list(dataset=dataset)
    params = f"c={category}|k={k}|s={sort}|common={int(common_only)}|"
    params += f"r={settings.LOUPE_LEADERBOARD_RESAMPLES}"
    stamp = _stamp(dataset, versions)
    snapshot = LeaderboardSnapshot.objects.filter(dataset=dataset, params=params).first()
    if snapshot is not None and snapshot.stamp == stamp:
        return LeaderboardRead(params, stamp, snapshot.payload, stored=True)
    payload = _compute(
        dataset, versions, category=category, k=k, sort=sort, common_only=common_only
    )
    return LeaderboardRead(params, stamp, payload, stored=False)


def leaderboard_colours(*, dataset: Dataset) -> dict[str, str]:
    """One colour per system of the dataset's board, for every plot and the table's swatches.

    The systems are those with outputs for the dataset, in slug order, so a system keeps its
    colour whatever the filters, the sort or which systems a plot leaves out.

    Args:
        dataset: the dataset.

    Returns:
        system slug -> ``#rrggbb``.
    """
    slugs = OutputVersion.objects.filter(dataset=dataset).values_list("system__slug", flat=True)
    return system_colours(slugs.order_by().distinct())


def leaderboard_per_document(
    *, dataset: Dataset, metric: str = "far", category: str | None = None, k: int = DEFAULT_K
) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Every system's per-document values of one metric (for the distribution plot).

    Args:
        dataset: the dataset.
        metric: a leaderboard metric name.
        category: the facet-category filter.
        k: the FAR cut-off.

    Returns:
        ``(system slug -> values in document order, system slug -> name)``.

    Raises:
        LeaderboardParamsError: a bad category, k or metric.
    """
    check_params(category, k)
    if metric not in METRICS:
        raise LeaderboardParamsError(f"unknown metric {metric!r}")
    versions = output_version_current_list(dataset=dataset)
    documents = leaderboard_documents(dataset=dataset, category=category)
    scores = leaderboard_scores(versions=versions, k=k, category=category, metrics=[metric])
    order = {d: i for i, d in enumerate(documents)}
    values, names = {}, {}
    for version in versions:
        per_doc = scores.get(version.pk, {}).get(metric, {})
        if per_doc:
            values[version.system.slug] = [per_doc[d] for d in sorted(per_doc, key=order.get)]
            names[version.system.slug] = version.system.name
    return values, names
