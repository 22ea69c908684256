"""Leaderboard selectors (reads): rows to plain data, the core's table, and the API envelope."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import fmean

from django.conf import settings
from django.db.models import Max

from annotation.corpus.models import Dataset, Document
from annotation.corpus.selectors import CATEGORY_GROUPS, document_order
from annotation.systems.models import OutputVersion, SystemOutput
from config.exceptions import ApplicationError
from scoring.apes.nlp import ANSWERER_KEYS as APES_KEYS
from scoring.apes.nlp import APES_DEFINITION
from scoring.apes.selectors import apes_stamp
from scoring.autofar.selectors import autofar_leaderboard_block, autofar_stamp
from scoring.judgments.models import HumanJudgment
from scoring.judgments.selectors import (
    human_judgment_stamp,
    human_judgments_for,
    released_score_stamp,
)
from scoring.metrics.far import DEFAULT_K
from scoring.metrics.leaderboard import (
    FAITHFULNESS,
    FAR_MEASURES,
    HUMAN_METRICS,
    POLYTOPE,
    POLYTOPE_COUNTS,
    ColumnDocuments,
    ScoreColumn,
    build_leaderboard,
    correlate_with_human,
    far_key,
    rank_by_polytope,
)
from scoring.metrics.rouge import DEFAULT_ROUGE, RougeConfig, parse_rouge_key
from scoring.metrics.stats import (
    DEFAULT_SEED,
    TEST_PERMUTATION,
    TEST_RATIO_PERMUTATION,
    KeyOrder,
)
from scoring.scores.models import AUTOFAR_L, JobStatus, ScoringJob
from scoring.scores.selectors import (
    NO_ARRAYS,
    ArrayRead,
    RougeRead,
    ScoreArrayGone,
    document_score_map,
    output_version_current_list,
    rouge_settings_get,
    score_array_map,
)
from scoring.scores.services.arrays import ARRAY_LEVEL

from ..models import LeaderboardSnapshot
from ..plots import system_colours
from .meta_evaluation import human_study_means, meta_evaluation_block
from .polytope import (
    HUMAN_FAITHFULNESS,
    HUMAN_POLYTOPE,
    human_score_correlations,
    polytope_columns,
    polytope_correlations,
    polytope_human_study,
    polytope_meta,
    polytope_notes,
    polytope_row,
)

CATEGORIES = CATEGORY_GROUPS
FAITHFULNESS_DEFINITION = (
    "Faithfulness (Maynez et al. 2020): the share of a summary's words outside the spans an "
    "annotator marked as hallucinated (a word counts as marked when a span holds all of it, the "
    "XSum release's rule), averaged over the annotators; a system's value is the mean over its "
    "annotated outputs."
)
# The metric columns; faithfulness is a human score (the XSum annotators'), shown as a column
# and correlated with the others as a human study, never as a metric. AutoFAR-L (beside FAR)
# is an estimate of FAR from machine FAMs (scoring.autofar), labelled as such.
# APES (scoring.apes) adds one column per answerer: the share of the reference's cloze
# questions a summary answers. The ROUGE columns are those of the dataset's settings
# (scoring.scores.models.RougeSettings): P, R and F of each type.


def leaderboard_metrics(rouge: RougeConfig) -> tuple[str, ...]:
    """The metric columns of a leaderboard whose ROUGE is ``rouge``, in order.

    Args:
        rouge: the dataset's ROUGE configuration.

    Returns:
        FAR, AutoFAR-L, the rest of the FAR family, ROUGE's keys, APES, faithfulness.
    """
    return (
        FAR_MEASURES[0], AUTOFAR_L, *FAR_MEASURES[1:], *rouge.keys(), *APES_KEYS, FAITHFULNESS
    )  # fmt: skip


# The columns with Loupe's default ROUGE (a dataset's own: dataset_metrics).
METRICS = leaderboard_metrics(DEFAULT_ROUGE)


def dataset_metrics(*, dataset: Dataset) -> tuple[RougeRead, tuple[str, ...]]:
    """A dataset's ROUGE settings and the metric columns they give its leaderboard.

    Args:
        dataset: the dataset.

    Returns:
        ``(settings as read, metric columns)``.
    """
    rouge = rouge_settings_get(dataset=dataset)
    return rouge, leaderboard_metrics(rouge.config)


def rouge_block(rouge: RougeRead) -> dict:
    """The leaderboard's ``rouge`` entry: the settings, their state and each key's names.

    Args:
        rouge: the dataset's settings as read.

    Returns:
        :meth:`RougeRead.as_dict` with ``labels``: key -> ``[short, title]``.
    """
    labels = {}
    for key in rouge.config.keys():
        parsed = parse_rouge_key(key)
        labels[key] = [parsed.short, parsed.title]
    return {**rouge.as_dict(), "labels": labels}


ALPHA = 0.05
LEVEL = ARRAY_LEVEL
# How the figures are computed, part of every snapshot's stamp: changing it makes the stored
# snapshots stale, so none computed the old way is served. 2: documents in the dataset's order
# (position, then external id) instead of their database ids' text order. 3: the
# meta-evaluation block and each system's means per human study.
COMPUTATION = b"computation=3|"


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

    The order is the dataset's own (position, then external id), never the database ids, so
    two copies of a dataset list their documents alike; the leaderboard adds, resamples and
    pairs documents in this order.

    Args:
        dataset: the dataset.
        category: ``noise``, ``low``, ``high``, ``low+high`` or None for all.

    Returns:
        document id -> external id, in dataset order.
    """
    return document_order(dataset=dataset, category=category)


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
    found = document_score_map(
        version_ids=[v.pk for v in versions],
        metrics=stored,
        categories=CATEGORIES[category] if category else None,
    )
    scores: dict[int, dict[str, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    for version_id, by_metric in found.items():
        scores[version_id].update((stored[m], values) for m, values in by_metric.items())
    return scores


def leaderboard_columns(
    *,
    dataset: Dataset,
    versions: list[OutputVersion],
    documents: dict[int, str],
    k: int,
    category: str | None = None,
    arrays: ArrayRead | None = None,
    metrics=METRICS,
) -> tuple[dict[int, dict[str, Mapping[int, float]]], dict[int, set[int] | frozenset[int]]]:
    """Every version's per-document scores and the documents it has outputs for.

    From the versions' score arrays where they are built (columns whose values are read only
    if a figure needs them, with their stored intervals), else from the score rows.

    Args:
        dataset: the dataset.
        versions: its output versions.
        documents: the documents in scope (:func:`leaderboard_documents`).
        k: the FAR cut-off to read.
        category: the facet category of ``documents`` (None: all).
        arrays: the versions' arrays if already read (:func:`leaderboard_arrays`).
        metrics: leaderboard metric names to read.

    Returns:
        ``(version id -> metric -> document id -> value, version id -> covered documents)``.
    """
    stored = {far_key(m, k) if m in FAR_MEASURES else m: m for m in metrics}
    if arrays is None:
        arrays = leaderboard_arrays(dataset=dataset, versions=versions, k=k, metrics=metrics)
    scores: dict[int, dict[str, Mapping[int, float]]] = defaultdict(dict)
    within: dict[int, tuple] = {}  # per shared ColumnDocuments: those in scope
    for version_id, columns in arrays.columns.items():
        for key, column in columns.items():
            if key not in stored:
                continue  # another column read with them (PolyTope's)
            if category:  # as the rows of the category are: only its documents
                found = within.get(id(column.documents))
                if found is None:
                    docs = [d for d in column.documents.documents if d in documents]
                    found = within[id(column.documents)] = (
                        column.documents, ColumnDocuments(docs) if docs else None
                    )  # fmt: skip
                if found[1] is None:
                    continue
                column = column.within(found[1])
            scores[version_id][stored[key]] = column
    scoped: dict[int, tuple] = {}  # versions covering the same documents share one set
    covered: dict[int, set[int] | frozenset[int]] = {}
    for version_id, found in arrays.covered.items():
        if id(found) not in scoped:
            full = len(found) == len(documents) and found >= documents.keys()
            scoped[id(found)] = (found, found if full else found & documents.keys())
        covered[version_id] = scoped[id(found)][1]
    rest = [v for v in versions if v.pk not in arrays.covered]
    if rest:
        scores.update(leaderboard_scores(versions=rest, k=k, category=category, metrics=metrics))
        for version_id, document_id in (
            SystemOutput.objects.filter(version__in=rest)
            .values_list("version_id", "document_id")
            .order_by()
        ):
            if document_id in documents:  # the scope: a dict, so no list of ids in the SQL
                covered.setdefault(version_id, set()).add(document_id)
    return scores, covered


def leaderboard_arrays(
    *, dataset: Dataset, versions: list[OutputVersion], k: int, metrics=METRICS
) -> ArrayRead:
    """The versions' score arrays a leaderboard reads: its metric columns at ``k`` and
    PolyTope's per-output figures (see :func:`~scoring.scores.selectors.score_array_map`).

    Args:
        dataset: the dataset.
        versions: its output versions.
        k: the FAR cut-off.
        metrics: the leaderboard's metric names (:func:`dataset_metrics`).

    Returns:
        The :class:`~scoring.scores.selectors.ArrayRead`.
    """
    keys = [far_key(m, k) if m in FAR_MEASURES else m for m in metrics]
    return score_array_map(
        dataset=dataset, version_ids=[v.pk for v in versions], keys=[*keys, *POLYTOPE_COUNTS]
    )


def _stamp(dataset: Dataset, versions: list[OutputVersion], rouge: RougeRead) -> str:
    """A digest of everything a leaderboard is computed from: how (:data:`COMPUTATION`), the
    versions, the last finished job, the ROUGE settings and their state, the judgments, the
    APES and AutoFAR-L runs and every document's category."""
    last_job = (
        ScoringJob.objects.filter(
            dataset=dataset, status__in=[JobStatus.SUCCEEDED, JobStatus.FAILED]
        )
        .order_by("-finished_at", "-id")
        .values_list("id", "finished_at")
        .first()
    )
    digest = hashlib.sha256(COMPUTATION)
    digest.update(",".join(str(v.pk) for v in versions).encode())
    digest.update(f"|{last_job[0]}@{last_job[1].isoformat()}|".encode() if last_job else b"|-|")
    digest.update(f"rouge={rouge.revision}:{rouge.status}|".encode())
    digest.update(human_judgment_stamp(dataset=dataset).encode())
    digest.update(f"|{released_score_stamp(dataset=dataset)}|".encode())
    # Figures written outside scoring jobs: the last finished APES and AutoFAR-L runs.
    digest.update(f"|apes={apes_stamp(dataset)}|autofar={autofar_stamp(dataset)}".encode())
    for document_id, category in (
        Document.objects.filter(dataset=dataset).order_by("id").values_list("id", "category")
    ):
        digest.update(f"|{document_id}:{category}".encode())
    return digest.hexdigest()


def _compute(dataset, versions, rouge, *, category, k, sort, common_only, arrays=None) -> dict:
    documents = leaderboard_documents(dataset=dataset, category=category)
    # Every figure takes the documents in the dataset's order, never in database-id order.
    order = KeyOrder(documents)
    columns = leaderboard_metrics(rouge.config)
    if rouge.status == "rescoring":  # partly scored: no ROUGE column until the job is done
        columns = tuple(m for m in columns if parse_rouge_key(m) is None)
    if arrays is None:
        arrays = leaderboard_arrays(dataset=dataset, versions=versions, k=k, metrics=columns)
    by_version, covered = leaderboard_columns(
        dataset=dataset, versions=versions, documents=documents, k=k, category=category,
        arrays=arrays, metrics=columns,
    )  # fmt: skip
    slugs = {v.pk: v.system.slug for v in versions}
    names = {v.system.slug: v.system.name for v in versions}
    scores = {slugs[v]: metrics for v, metrics in by_version.items()}
    metrics = [m for m in columns if any(m in s for s in scores.values())]
    if not metrics:
        metrics = [rouge.config.f_keys()[0]]
    automatic = [m for m in metrics if m not in HUMAN_METRICS]
    resamples = settings.LOUPE_LEADERBOARD_RESAMPLES
    cells, extras, segments = polytope_columns(
        versions=versions,
        documents=documents,
        covered=covered,
        arrays=arrays,
        level=LEVEL,
        resamples=resamples,
        seed=DEFAULT_SEED,
        order=order,
    )
    has_polytope = any(cell is not None for cell in cells.values())
    # FAR, else the first ROUGE F (ROUGE-1's), else the first column (e.g. AutoFAR-L before
    # ROUGE was scored).
    sort = sort or next((m for m in ("far", *rouge.config.f_keys()) if m in metrics), metrics[0])
    by_polytope = sort == POLYTOPE
    if by_polytope and not has_polytope:
        raise LeaderboardParamsError(
            "cannot sort by 'polytope': no output in this view has a released or gold PolyTope "
            "annotation"
        )
    if not by_polytope and sort not in metrics:
        columns = ", ".join([*metrics, *([POLYTOPE] if has_polytope else [])])
        raise LeaderboardParamsError(f"cannot sort by {sort!r}; columns: {columns}")
    board = build_leaderboard(
        scores,
        documents=documents,
        covered={slugs[v.pk]: covered.get(v.pk, set()) for v in versions},
        metrics=metrics,
        sort=metrics[0] if by_polytope else sort,
        common_only=common_only,
        alpha=ALPHA,
        level=LEVEL,
        resamples=resamples,
        seed=DEFAULT_SEED,
        names=names,
        order=order,
    )
    rows = {row.system: row for row in board.rows}
    ranked = [row.system for row in board.rows]
    comparisons = {row.system: row.comparison for row in board.rows}
    significance = {"test": TEST_PERMUTATION, "alternative": "two-sided", "alpha": ALPHA,
                    "metric": sort, "resamples": resamples}  # fmt: skip
    if by_polytope:
        ranked, comparisons = rank_by_polytope(
            cells, segments, ranked, alpha=ALPHA, resamples=resamples, seed=DEFAULT_SEED,
            names=names, order=order,
        )  # fmt: skip
        significance["test"] = TEST_RATIO_PERMUTATION
    info = {v.system.slug: v for v in versions}
    autofar = autofar_leaderboard_block(dataset=dataset)
    studies = human_judgments_for(dataset=dataset)
    human = human_study_means(studies=studies, order=order)
    systems = []
    for slug in ranked:
        row, version = rows[slug], info[slug]
        entry = {
            "system": slug,
            "name": version.system.name,
            "kind": version.system.kind,
            "version": version.number,
            "n_documents": row.n_documents,
        }
        entry.update({m: (c.as_dict() if c else None) for m, c in row.cells.items()})
        entry[POLYTOPE] = polytope_row(cells.get(slug), extras.get(slug, {}))
        entry["human"] = human.get(slug, {})
        entry["vs_next"] = comparisons[slug].as_dict() if comparisons.get(slug) else None
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
        "notes": list(board.notes) + polytope_notes(cells, extras, names)
        + _judgment_notes(dataset, versions) + _autofar_notes(autofar, metrics)
        + _rouge_notes(rouge),
        "ci": {"method": "percentile bootstrap", "level": LEVEL, "resamples": resamples,
               "seed": board.seed},
        "significance": significance,
        "systems": systems,
        "polytope": {
            **polytope_meta(
                available=has_polytope, level=LEVEL, resamples=resamples, seed=DEFAULT_SEED
            ),
            "correlations": polytope_correlations(
                scores=scores, metrics=automatic, cells=cells, segments=segments, order=order
            ),
        },
        "rouge": rouge_block(rouge),
        "faithfulness": _faithfulness(scores, automatic, order),
        "autofar": autofar,
        "apes": _apes(scores, metrics, order),
        "correlations": _correlations(
            studies, scores, order, automatic,
            {HUMAN_POLYTOPE: polytope_human_study(segments),
             HUMAN_FAITHFULNESS: _human_values(scores, FAITHFULNESS)},
        ),
        "meta_evaluation": meta_evaluation_block(
            dataset=dataset, scores=scores, metrics=automatic, studies=studies, order=order,
            kinds={slug: version.system.kind for slug, version in info.items()}, level=LEVEL,
        ),
    }  # fmt: skip


def _rouge_notes(rouge: RougeRead) -> list[str]:
    """Why the ROUGE columns are missing (being rescored) or may cover only some outputs."""
    call = rouge.config.scorer_call()
    if rouge.status == "rescoring":
        return [
            f"ROUGE is being rescored with the dataset's new settings ({call}): its columns "
            "are back when the scoring job is done."
        ]
    if rouge.status == "failed":
        return [
            f"Rescoring ROUGE with the dataset's settings ({call}) failed ({rouge.error}): "
            "its columns hold only the outputs scored before the failure (see n)."
        ]
    return []


def _autofar_notes(autofar: dict, metrics: list[str]) -> list[str]:
    """The AutoFAR-L column's notes: an estimate (with its fit); abstractive systems lack it."""
    if not autofar["available"] or AUTOFAR_L not in metrics:
        return []
    return [autofar["note"], autofar["abstractive"]]


def _apes(scores, metrics, order: KeyOrder) -> dict:
    """The APES columns' block: what they are and their correlations with FAR (human FAMs)."""
    keys = [m for m in APES_KEYS if m in metrics]
    far = _human_values(scores, FAR_MEASURES[0]) if keys else {}
    return {
        "available": bool(keys),
        "keys": keys,
        "definition": APES_DEFINITION,
        "correlations": human_score_correlations(
            scores=scores,
            metrics=keys,
            human_documents=far,
            human_systems={slug: fmean(values.values()) for slug, values in far.items()},
            name=FAR_MEASURES[0],
            order=order,
        )
        if keys
        else [],
    }


def _human_values(scores, metric) -> dict[str, dict[int, float]]:
    """A human score column as a per-document study: slug -> document id -> value."""
    return {slug: dict(s[metric]) for slug, s in scores.items() if s.get(metric)}


def _faithfulness(scores, automatic, order: KeyOrder) -> dict:
    """The faithfulness column's block: what it is and its correlations with every metric."""
    human = _human_values(scores, FAITHFULNESS)
    return {
        "available": bool(human),
        "definition": FAITHFULNESS_DEFINITION,
        "correlations": human_score_correlations(
            scores=scores,
            metrics=automatic,
            human_documents=human,
            human_systems={slug: fmean(values.values()) for slug, values in human.items()},
            name=FAITHFULNESS,
            order=order,
        ),
    }


def _judgment_notes(dataset, versions) -> list[str]:
    """Studies that judged a system before its current outputs were uploaded."""
    judged = (
        HumanJudgment.objects.filter(dataset=dataset)
        .values_list("name", "system_id")
        .annotate(last=Max("created_at"))
        .order_by("name", "system__slug")
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


def _correlations(judged, scores, documents: KeyOrder, metrics, span_studies) -> list[dict]:
    """Every human study against every automatic metric, on the documents in the filter.

    The studies are the uploaded (or imported) judgments, ``judged`` (see
    :func:`~scoring.judgments.selectors.human_judgments_for`), and the human scores that come
    from annotations:
    PolyTope's segment scores and the XSum faithfulness (per-document, higher is better).
    ``documents`` are those in the filter, in the dataset's order.
    """
    metric_scores = {
        metric: {system: s[metric] for system, s in scores.items() if s.get(metric)}
        for metric in metrics
    }
    studies = dict(judged)
    studies.update({name: ("score", values) for name, values in span_studies.items() if values})
    results = []
    for name, (kind, human) in studies.items():
        human = {
            system: kept
            for system, values in human.items()
            if (kept := {d: v for d, v in values.items() if d is None or d in documents})
        }
        if not human:
            continue
        for correlation in correlate_with_human(
            metric_scores, human, kind=kind, name=name, order=documents
        ):
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
        sort: the metric to sort and test by (default ``far``, else ``rouge1_f``), or
            ``polytope`` (the pooled PolyTope score, tested by the paired permutation test of
            pooled ratios on the outputs both systems have annotated).
        common_only: restrict every system to the documents all of them cover.

    Returns:
        A :class:`LeaderboardRead` whose payload holds the dataset, filters, metrics,
        coverage, notes, CI and test settings, ``systems`` (each with its ``polytope`` entry,
        None when none of its outputs in scope is annotated), ``polytope`` (how that column is
        computed, and its correlations with every automatic metric at system and instance
        level) and ``correlations`` (the human studies, PolyTope's segment scores among them).

    Raises:
        LeaderboardParamsError: an unknown category, a bad k or a sort metric without data.
    """
    check_params(category, k)
    category = category or None
    params = f"c={category}|k={k}|s={sort}|common={int(common_only)}|"
    params += f"r={settings.LOUPE_LEADERBOARD_RESAMPLES}"
    params += f"|top={','.join(map(str, settings.LOUPE_META_EVALUATION_TOP_K))}"
    versions = output_version_current_list(dataset=dataset)
    rouge = rouge_settings_get(dataset=dataset)
    stamp = _stamp(dataset, versions, rouge)
    snapshot = LeaderboardSnapshot.objects.filter(dataset=dataset, params=params).first()
    if snapshot is not None and snapshot.stamp == stamp:
        return LeaderboardRead(params, stamp, snapshot.payload, stored=True)
    options = {"category": category, "k": k, "sort": sort, "common_only": common_only}
    try:
        payload = _compute(dataset, versions, rouge, **options)
    except ScoreArrayGone:
        # A score write dropped arrays while the table read them: read the rows instead.
        payload = _compute(dataset, versions, rouge, **options, arrays=NO_ARRAYS)
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
    if metric not in dataset_metrics(dataset=dataset)[1]:
        raise LeaderboardParamsError(f"unknown metric {metric!r}")
    versions = output_version_current_list(dataset=dataset)
    documents = leaderboard_documents(dataset=dataset, category=category)
    try:
        return _per_document(dataset, versions, documents, metric, category, k)
    except ScoreArrayGone:  # a score write dropped arrays meanwhile: read the rows
        return _per_document(dataset, versions, documents, metric, category, k, NO_ARRAYS)


def _per_document(dataset, versions, documents, metric, category, k, arrays=None):
    scores, _ = leaderboard_columns(
        dataset=dataset, versions=versions, documents=documents, k=k, category=category,
        metrics=[metric], arrays=arrays,
    )  # fmt: skip
    order = {d: i for i, d in enumerate(documents)}
    values, names = {}, {}
    for version in versions:
        per_doc = scores.get(version.pk, {}).get(metric, {})
        if isinstance(per_doc, ScoreColumn):  # its documents are in the dataset's order
            values[version.system.slug] = per_doc.array().tolist()
        elif per_doc:
            values[version.system.slug] = [per_doc[d] for d in sorted(per_doc, key=order.get)]
        if per_doc:
            names[version.system.slug] = version.system.name
    return values, names
