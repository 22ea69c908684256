"""The leaderboard's meta-evaluation: every metric against each per-document human study, and a
release's own scores against Loupe's."""

from __future__ import annotations

from collections.abc import Mapping
from statistics import fmean

from django.conf import settings

from annotation.corpus.models import Dataset
from scoring.judgments.selectors import released_scores_for
from scoring.metrics.leaderboard import (
    RELEASED_LOUPE_KEYS,
    compare_released,
    meta_evaluate,
    released_metric,
)
from scoring.metrics.stats import DEFAULT_SEED, KeyOrder

META_EVALUATION_DEFINITION = (
    "Each metric against a per-document human study (e.g. REALSumm's LitePyramid recall). "
    "System level: one point per system, its mean metric against its mean human score over "
    "the documents every system of the subset has both for; Pearson, Spearman and Kendall "
    "(tau-b) with 95% paired percentile-bootstrap intervals over documents, over all systems, "
    "the abstractive ones, the extractive ones and the top k by mean human score. Summary "
    "level: the coefficient across the subset's systems on each document, averaged over the "
    "documents; a document where the metric or the human scores are the same for every system "
    "has none and is left out (counted in 'undefined'); the interval is a percentile bootstrap "
    "of that mean. Metrics named '<release>:<key>' are the release's own scores, as released."
)
RELEASED_DEFINITION = (
    "The release's own automatic scores against Loupe's on the same outputs: Pearson's r and "
    "the mean absolute difference per metric. Loupe's ROUGE is rouge-score's (Porter stemmer, "
    "its tokenizer); a release's Perl ROUGE-1.5.5 tokenizes and stems a little differently, "
    "and REALSumm's rouge_l is sentence-split ROUGE-L (rougeLsum), compared with Loupe's "
    "rougeLsum when it is scored and with plain rougeL until then (see loupe_key)."
)


def _in_scope(by_system: Mapping, order: KeyOrder) -> dict[str, dict[int, float]]:
    """A study's or metric's values on the documents in scope, as plain dicts."""
    kept = {}
    for system, values in by_system.items():
        within = {d: float(v) for d, v in values.items() if d in order}
        if within:
            kept[system] = within
    return kept


def human_study_means(
    *, studies: Mapping[str, tuple[str, Mapping[str, Mapping]]], order: KeyOrder
) -> dict[str, dict[str, dict]]:
    """Each system's value in each human study, on the documents in scope.

    Args:
        studies: the human studies (see :func:`meta_evaluation_block`).
        order: the documents in scope.

    Returns:
        system slug -> study name -> ``{"mean", "n"}``: the mean of the system's judged
        documents in scope (``n`` of them), or a per-system study's value (``n`` None).
    """
    means: dict[str, dict[str, dict]] = {}
    for name, (_, human) in studies.items():
        for system, values in human.items():
            if None in values:
                means.setdefault(system, {})[name] = {"mean": values[None], "n": None}
                continue
            within = [v for d, v in values.items() if d in order]
            if within:
                means.setdefault(system, {})[name] = {
                    "mean": fmean(within),
                    "n": len(within),
                }
    return means


def meta_evaluation_block(
    *,
    dataset: Dataset,
    scores: Mapping[str, Mapping[str, Mapping[int, float]]],
    metrics: list[str],
    kinds: Mapping[str, str],
    studies: Mapping[str, tuple[str, Mapping[str, Mapping]]],
    order: KeyOrder,
    level: float,
) -> dict:
    """Every metric, Loupe's and the releases' own, against each per-document human study.

    Args:
        dataset: the dataset.
        scores: system slug -> metric -> document id -> value, on the documents in scope.
        metrics: Loupe's automatic metrics to correlate.
        kinds: system slug -> its kind (``abstractive`` or ``extractive``).
        studies: the human studies (:func:`scoring.judgments.selectors.human_judgments_for`);
            per-system ones are left out (they have no summary level and no document to
            resample).
        order: the documents in scope, in the dataset's order.
        level: the intervals' confidence level.

    Returns:
        ``{"available", "definition", "top_k", "ci", "studies", "released",
        "released_definition"}``: one :meth:`MetaEvaluation.as_dict` per per-document study
        and one :meth:`ReleasedComparison.as_dict` per released key Loupe has a counterpart of.
    """
    released = {
        release: {key: _in_scope(by_system, order) for key, by_system in by_key.items()}
        for release, by_key in released_scores_for(dataset=dataset).items()
    }
    judged = {
        name: (kind, values)
        for name, (kind, human) in studies.items()
        if not any(None in v for v in human.values()) and (values := _in_scope(human, order))
    }
    resamples = settings.LOUPE_LEADERBOARD_RESAMPLES
    top_k = settings.LOUPE_META_EVALUATION_TOP_K
    block = {
        "available": False,
        "definition": META_EVALUATION_DEFINITION,
        "top_k": list(top_k),
        "ci": {"level": level, "resamples": resamples, "seed": DEFAULT_SEED},
        "studies": [],
        "released": [],
        "released_definition": RELEASED_DEFINITION,
    }
    if not judged and not released:
        return block  # nothing to compare: no metric's values are read (the score arrays)
    loupe = {
        metric: _in_scope({s: m[metric] for s, m in scores.items() if m.get(metric)}, order)
        for metric in metrics
    }
    metric_scores = dict(loupe)
    for release, by_key in released.items():
        for key, by_system in by_key.items():
            metric_scores[released_metric(release, key)] = by_system
    evaluations = [
        meta_evaluate(
            metric_scores,
            values,
            kinds=kinds,
            name=name,
            kind=kind,
            top_k=top_k,
            order=order,
            level=level,
            resamples=resamples,
            seed=DEFAULT_SEED,
        ).as_dict()
        for name, (kind, values) in judged.items()
    ]
    comparisons = [
        comparison.as_dict()
        for release, by_key in released.items()
        for comparison in compare_released(
            loupe, by_key, release=release, keys=RELEASED_LOUPE_KEYS.get(release, {}), order=order
        )
    ]
    block.update(
        available=bool(evaluations or comparisons), studies=evaluations, released=comparisons
    )
    return block
