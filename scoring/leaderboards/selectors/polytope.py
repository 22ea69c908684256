"""PolyTope on the leaderboard (reads): stored segment figures to pooled cells, breakdowns, notes.

The scoring job stores, per annotated output, the segment score, penalty, words and severity
counts as DocumentScore values and the errors by subtype and label as an ErrorBreakdown row
(with the set it scored: gold wins over released). Here they become each system's pooled score
with its ratio CI, its counts, its breakdown and how many of its outputs are annotated.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping

from annotation.spans.models import SpanAnnotation
from annotation.systems.models import OutputVersion
from scoring.metrics.leaderboard import (
    POLYTOPE,
    POLYTOPE_COUNTS,
    PolytopeCell,
    breakdown_dict,
    breakdown_sum,
    correlate_human_scores,
    polytope_cell,
    segment_from_values,
)
from scoring.metrics.polytope import LABELS, SUBTYPES, PolytopeSegmentScore
from scoring.metrics.stats import METHOD_RATIO, TEST_RATIO_PERMUTATION, KeyOrder, key_order
from scoring.scores.models import ErrorBreakdown
from scoring.scores.selectors import (
    POLYTOPE_SCHEME,
    ArrayRead,
    document_score_list,
    score_array_map,
)

# Huang et al. (2020), Table 4: Pearson r between ROUGE and PolyTope over their 10 systems and
# 1,500 annotated outputs. Shown beside Loupe's figures, never as what Loupe reproduces.
PAPER_TABLE_4 = {
    "source": "Huang et al. (2020), Table 4",
    "n_systems": 10,
    "n_outputs": 1500,
    "pearson": {
        "system": {"rouge1_f": 0.78, "rouge2_f": 0.73, "rougeL_f": 0.52},
        "instance": {"rouge1_f": 0.40, "rouge2_f": 0.32, "rougeL_f": 0.32},
    },
}
HUMAN_POLYTOPE = "PolyTope (annotated outputs)"
HUMAN_FAITHFULNESS = "Faithfulness (XSum annotators)"


def polytope_segments(
    *, versions: list[OutputVersion], documents: Collection[int], arrays: ArrayRead | None = None
) -> dict[int, dict[int, PolytopeSegmentScore]]:
    """Each version's annotated outputs' segment figures, on the documents in scope (from the
    versions' score arrays where they are built, else from the score rows).

    Args:
        versions: output versions.
        documents: the document ids in scope.
        arrays: the versions' arrays with PolyTope's keys, if already read.

    Returns:
        version id -> document id -> :class:`PolytopeSegmentScore` (annotated outputs only).
    """
    if not versions:
        return {}
    if arrays is None:
        arrays = score_array_map(
            dataset=versions[0].dataset, version_ids=[v.pk for v in versions], keys=POLYTOPE_COUNTS
        )
    values: dict[tuple[int, int], dict[str, float]] = defaultdict(dict)
    scope = set(documents)
    for version_id, columns in arrays.columns.items():
        for metric, column in columns.items():  # annotated outputs only: few values
            if metric in POLYTOPE_COUNTS:
                for document_id in scope & column.keys():
                    values[version_id, document_id][metric] = column[document_id]
    rest = [v.pk for v in versions if v.pk not in arrays.covered]
    if rest:
        for version_id, document_id, metric, value in document_score_list(
            version_ids=rest, metrics=POLYTOPE_COUNTS, document_ids=documents
        ):
            values[version_id, document_id][metric] = value
    segments: dict[int, dict[int, PolytopeSegmentScore]] = defaultdict(dict)
    for (version_id, document_id), stored in values.items():
        if len(stored) == len(POLYTOPE_COUNTS):  # a row half-written never is: all or none
            segments[version_id][document_id] = segment_from_values(document_id, stored)
    return segments


def polytope_breakdowns(
    *, versions: list[OutputVersion], documents: Collection[int]
) -> tuple[dict[int, list[dict]], dict[int, dict[str, int]], dict[int, int]]:
    """Each version's stored error counts, which kinds of sets they came from, and how many of
    its scored annotations were made on an annotated text that is not the stored output's.

    Args:
        versions: output versions.
        documents: the document ids in scope.

    Returns:
        ``(version id -> [counts per document], version id -> {set kind: outputs}, version id
        -> outputs scored on their annotated text)``.
    """
    counts: dict[int, list[dict]] = defaultdict(list)
    sources: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    scope = set(documents)
    version_ids = [v.pk for v in versions]
    rows = ErrorBreakdown.objects.filter(
        version_id__in=version_ids, scheme=POLYTOPE_SCHEME
    ).values_list(
        "version_id", "document_id", "counts", "annotation_set_id", "annotation_set__kind"
    )
    scored = set()
    for version_id, document_id, found, set_id, kind in rows.order_by():
        if document_id not in scope:
            continue
        counts[version_id].append(found)
        sources[version_id][kind or "deleted set"] += 1
        scored.add((version_id, document_id, set_id))
    texts: dict[int, int] = defaultdict(int)
    own = (
        SpanAnnotation.objects.filter(
            output__version_id__in=version_ids,
            annotator__isnull=True,
            annotation_set__scheme=POLYTOPE_SCHEME,
        )
        .exclude(annotated_text="")
        .values_list("output__version_id", "output__document_id", "annotation_set_id")
    )
    for key in own.order_by():
        if key in scored:
            texts[key[0]] += 1
    return counts, {v: dict(kinds) for v, kinds in sources.items()}, dict(texts)


def polytope_columns(
    *,
    versions: list[OutputVersion],
    documents: Collection[int],
    covered: Mapping[int, Collection[int]],
    arrays: ArrayRead | None = None,
    level: float,
    resamples: int,
    seed: int,
    order: KeyOrder | Iterable[int],
) -> tuple[dict[str, PolytopeCell | None], dict[str, dict], dict[str, dict]]:
    """Every system's PolyTope cell and its extras, on the documents in scope.

    Args:
        versions: the current output versions.
        documents: the document ids in scope.
        covered: version id -> the documents it has outputs for (in scope).
        arrays: the versions' score arrays if already read (PolyTope's keys among them).
        level: the CI's confidence level.
        resamples: bootstrap resamples.
        seed: the bootstrap's seed.
        order: the documents in the dataset's order (a ``KeyOrder``, or the ids in order,
            as :func:`.board.leaderboard_documents` gives them); the cells' intervals
            resample them in it.

    Returns:
        ``(slug -> cell or None, slug -> the row's "polytope" dict or None-free extras,
        slug -> document id -> segment)``: the extras hold ``outputs`` (in scope), ``sources``
        (``{"gold": n, "released": n}``), ``annotated_text`` (how many were scored on the text
        their annotators judged, not the stored output's) and ``breakdown``.
    """
    order = key_order(order)
    segments = polytope_segments(versions=versions, documents=documents, arrays=arrays)
    counts, sources, texts = polytope_breakdowns(versions=versions, documents=documents)
    cells, extras, by_slug = {}, {}, {}
    for version in versions:
        slug = version.system.slug
        mine = segments.get(version.pk, {})
        by_slug[slug] = mine
        cells[slug] = polytope_cell(mine, level=level, resamples=resamples, seed=seed, order=order)
        extras[slug] = {
            "outputs": len(covered.get(version.pk, ())),
            "sources": sources.get(version.pk, {}),
            "annotated_text": texts.get(version.pk, 0),
            "breakdown": breakdown_dict(breakdown_sum(counts.get(version.pk, []))),
        }
    return cells, extras, by_slug


def polytope_row(cell: PolytopeCell | None, extras: dict) -> dict | None:
    """A system's ``polytope`` entry in the leaderboard: its cell, coverage and breakdown.

    Args:
        cell: the system's cell (None: none of its outputs is annotated).
        extras: from :func:`polytope_columns`.

    Returns:
        The cell's dict plus ``outputs``, ``sources`` and ``breakdown``; None without a cell.
    """
    if cell is None:
        return None
    return {**cell.as_dict(), **extras}


def polytope_notes(
    cells: Mapping[str, PolytopeCell | None], extras: Mapping[str, dict], names: Mapping[str, str]
) -> list[str]:
    """What a reader must know about the PolyTope columns.

    Args:
        cells: slug -> cell.
        extras: slug -> extras (outputs, sources).
        names: slug -> display name.

    Returns:
        One line per annotated system (how many of its outputs, from which sets) and the rule
        that gold wins over released; nothing when no system is annotated.
    """
    notes = []
    for slug, cell in cells.items():
        if cell is None:
            continue
        kinds = extras[slug]["sources"]
        origin = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        notes.append(
            f"PolyTope: {cell.n} of {names.get(slug, slug)}'s {extras[slug]['outputs']} outputs "
            f"are annotated ({origin}); its score is pooled over those outputs' words."
        )
        if extras[slug].get("annotated_text"):
            notes.append(
                f"PolyTope: {extras[slug]['annotated_text']} of {names.get(slug, slug)}'s "
                "annotated outputs were judged on a text that is not the stored output's (an "
                "official workbook's Target); their errors and words are counted on that text, "
                "as the workbook counts them."
            )
    if notes:
        notes.append(
            "PolyTope scores only annotated outputs: an output nobody annotated is not counted "
            "as clean. Where an output has both a gold (adjudicated) and a released annotation, "
            "the gold one is scored."
        )
    return notes


def polytope_meta(*, available: bool, level: float, resamples: int, seed: int) -> dict:
    """The envelope's ``polytope`` block: how the column is computed.

    Args:
        available: whether any system has an annotated output in scope.
        level: the CI's confidence level.
        resamples: bootstrap resamples.
        seed: the bootstrap's seed.

    Returns:
        ``{"available", "scale", "ci", "test", "paper", "subtypes", "labels"}``: the subtypes
        (each with its aspect) and the labels in the official order, as lists, since the
        breakdowns' objects lose their key order in a stored snapshot.
    """
    return {
        "available": available,
        "subtypes": [{"name": s.value, "aspect": s.aspect.value} for s in SUBTYPES],
        "labels": [label.value for label in LABELS],
        "scale": "percent: 100 * (1 - penalty / words), pooled over the annotated outputs",
        "ci": {"method": METHOD_RATIO, "level": level, "resamples": resamples, "seed": seed},
        "test": TEST_RATIO_PERMUTATION,
        "paper": PAPER_TABLE_4,
    }


def human_score_correlations(
    *,
    scores: Mapping[str, Mapping[str, Mapping[int, float]]],
    metrics: list[str],
    human_documents: Mapping[str, Mapping[int, float]],
    human_systems: Mapping[str, float],
    name: str,
    order: KeyOrder | Iterable[int],
) -> list[dict]:
    """A per-output human score against every automatic metric, at system and instance level.

    Args:
        scores: slug -> metric -> document id -> value (the leaderboard's).
        metrics: the automatic metrics to correlate.
        human_documents: slug -> document id -> the output's human score.
        human_systems: slug -> the system's human score (its system-level point).
        name: the human score's name.
        order: the documents in the dataset's order (the outputs are paired in it).

    Returns:
        :meth:`HumanScoreCorrelation.as_dict` per metric and level (Pearson, Spearman and
        Kendall, each with its n or the reason it is undefined).
    """
    human_documents = {slug: values for slug, values in human_documents.items() if values}
    if not human_documents:
        return []
    metric_scores = {m: {slug: s.get(m, {}) for slug, s in scores.items()} for m in metrics}
    return [
        result.as_dict()
        for result in correlate_human_scores(
            metric_scores, human_documents, human_systems, name=name, order=order
        )
    ]


def polytope_correlations(
    *,
    scores: Mapping[str, Mapping[str, Mapping[int, float]]],
    metrics: list[str],
    cells: Mapping[str, PolytopeCell | None],
    segments: Mapping[str, Mapping[int, PolytopeSegmentScore]],
    order: KeyOrder | Iterable[int],
) -> list[dict]:
    """PolyTope against every automatic metric: the system-level point is the pooled score.

    Args:
        scores: slug -> metric -> document id -> value (the leaderboard's).
        metrics: the automatic metrics to correlate.
        cells: slug -> PolyTope cell.
        segments: slug -> document id -> segment figures (the instance-level points).
        order: the documents in the dataset's order.

    Returns:
        See :func:`human_score_correlations`.
    """
    return human_score_correlations(
        scores=scores,
        metrics=metrics,
        human_documents=polytope_human_study(segments),
        human_systems={slug: cell.score for slug, cell in cells.items() if cell is not None},
        name=POLYTOPE,
        order=order,
    )


def polytope_human_study(
    segments: Mapping[str, Mapping[int, PolytopeSegmentScore]],
) -> dict[str, dict[int, float]]:
    """PolyTope's segment scores as a per-document human study for the correlation view.

    Args:
        segments: slug -> document id -> segment figures.

    Returns:
        slug -> document id -> segment score (systems without annotations left out).
    """
    return {slug: {d: s.score for d, s in mine.items()} for slug, mine in segments.items() if mine}
