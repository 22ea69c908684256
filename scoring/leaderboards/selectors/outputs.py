"""Selectors for one system on one dataset: its versions, per-document scores and Fig. 1 view."""

from __future__ import annotations

from statistics import fmean

from django.conf import settings

from annotation.corpus.models import Dataset, Reference
from annotation.systems.models import OutputVersion, System, SystemOutput
from scoring.metrics.far import DEFAULT_K, considered_sentences
from scoring.metrics.leaderboard import FAITHFULNESS, FAR_MEASURES, POLYTOPE, far_key
from scoring.metrics.stats import DEFAULT_SEED
from scoring.scores.models import DocumentScore
from scoring.scores.selectors import document_score_list, scoring_fam_map

from .board import LEVEL, check_params, dataset_metrics, leaderboard_documents
from .polytope import polytope_columns, polytope_row, polytope_segments


def output_version_list(*, dataset: Dataset, system: System) -> list[dict]:
    """Every upload of a system's outputs for a dataset, newest first.

    Args:
        dataset: the dataset.
        system: the system.

    Returns:
        One dict per version: number, source, uploader, time, output count and report.
    """
    versions = (
        OutputVersion.objects.filter(dataset=dataset, system=system)
        .select_related("uploaded_by")
        .order_by("-number")
    )
    return [
        {
            "number": v.number,
            "source": v.source,
            "uploaded_by": v.uploaded_by.username if v.uploaded_by else None,
            "created_at": v.created_at.isoformat(),
            "outputs": v.outputs.count(),
            "report": v.report,
        }
        for v in versions
    ]


def output_version_get(*, dataset: Dataset, system: System, number: int | None) -> OutputVersion:
    """A version by number, or the latest.

    Args:
        dataset: the dataset.
        system: the system.
        number: the version number, or None for the latest.

    Returns:
        The version.

    Raises:
        OutputVersion.DoesNotExist: no such version.
    """
    versions = OutputVersion.objects.filter(dataset=dataset, system=system).select_related("system")
    if number is None:
        version = versions.order_by("-number").first()
        if version is None:
            raise OutputVersion.DoesNotExist(f"{system.slug} has no outputs for {dataset.slug}")
        return version
    return versions.get(number=number)


def _stored_names(k: int, metrics) -> dict[str, str]:
    return {far_key(m, k) if m in FAR_MEASURES else m: m for m in metrics}


NO_FAM = "no gold or released FAM"
NO_SUPPORT = "its FAM has no supported facet"
NO_REFERENCE = "no reference"
NOT_SCORED = "not scored (yet)"
NOT_JUDGED = "no annotator judged it for hallucinations"


def _left_out_reasons(version: OutputVersion, metric: str, document_ids: list[int]) -> list[str]:
    """Why each document has no score for ``metric``: what FAR or ROUGE needs and it lacks."""
    if not document_ids:
        return []
    if metric in FAR_MEASURES:
        fams = scoring_fam_map(dataset=version.dataset, document_ids=document_ids)

        def far_reason(document_id: int) -> str:
            if document_id not in fams:
                return NO_FAM
            supported = any(facet.get("groups") for facet in fams[document_id].facets)
            return NOT_SCORED if supported else NO_SUPPORT

        return [far_reason(d) for d in document_ids]
    if metric == FAITHFULNESS:
        return [NOT_JUDGED] * len(document_ids)
    with_reference = set(
        Reference.objects.filter(document_id__in=document_ids).values_list("document_id", flat=True)
    )
    return [NOT_SCORED if d in with_reference else NO_REFERENCE for d in document_ids]


def _means(version: OutputVersion, documents: list[dict], metrics: list[str]) -> dict:
    """Per metric, the mean over the documents that have the score, and those left out."""
    means = {}
    known: dict[tuple[bool, tuple[int, ...]], list[str]] = {}  # the FAR family shares its FAMs
    for metric in metrics:
        values = [d[metric] for d in documents if d[metric] is not None]
        missing = [d for d in documents if d[metric] is None]
        ids = tuple(d["document_id"] for d in missing)
        key = (metric in FAR_MEASURES, ids)
        if key not in known:
            known[key] = _left_out_reasons(version, metric, list(ids))
        reasons = known[key]
        means[metric] = {
            "mean": fmean(values) if values else None,
            "n": len(values),
            "left_out": [
                {"external_id": d["external_id"], "reason": reason}
                for d, reason in zip(missing, reasons, strict=True)
            ],
        }
    return means


def output_score_table(
    *, version: OutputVersion, k: int = DEFAULT_K, category: str | None = None
) -> dict:
    """Per-document scores of one output version, in document order, and each metric's mean.

    A metric's mean is over the documents that have its score: FAR and its family only exist
    where the document has a gold or released FAM with a supported facet, ROUGE where it has
    a reference. The documents left out are named with the reason.

    Args:
        version: the output version.
        k: the FAR cut-off.
        category: the facet-category filter.

    Returns:
        ``{"metrics": [...], "documents": [{"document_id", "external_id", "category",
        <metric>: value or None, ...}], "means": {<metric>: {"mean", "n", "left_out":
        [{"external_id", "reason"}]}}, "polytope": ...}``. When some output of the version
        has a scored PolyTope annotation, each document also has ``polytope`` (its score in
        percent, words, penalty and errors by severity, or None when not annotated) and
        ``polytope`` is the pooled cell with its ratio CI, breakdown and ``not_annotated``
        (external ids); otherwise ``polytope`` is None.

    Raises:
        LeaderboardParamsError: a bad category.
    """
    check_params(category, k)
    in_scope = leaderboard_documents(dataset=version.dataset, category=category)
    _, metrics = dataset_metrics(dataset=version.dataset)
    names = _stored_names(k, metrics)
    values: dict[int, dict[str, float]] = {}
    for _, document_id, metric, value in document_score_list(
        version_ids=[version.pk], metrics=names
    ):
        values.setdefault(document_id, {})[names[metric]] = value
    outputs = (
        SystemOutput.objects.filter(version=version, document_id__in=list(in_scope))
        .order_by("document__position", "document__external_id")
        .values_list("document_id", "document__external_id", "document__category")
    )
    present = [m for m in metrics if any(m in row for row in values.values())]
    outputs = list(outputs)
    segments = polytope_segments(versions=[version], documents=in_scope).get(version.pk, {})
    documents = [
        {
            "document_id": document_id,
            "external_id": external_id,
            "category": doc_category or None,
            **{m: values.get(document_id, {}).get(m) for m in present},
            **({POLYTOPE: _segment(segments.get(document_id))} if segments else {}),
        }
        for document_id, external_id, doc_category in outputs
    ]
    table = {
        "metrics": present,
        "documents": documents,
        "means": _means(version, documents, present),
        "polytope": None,
    }
    if segments:
        table["polytope"] = _polytope_summary(version, segments, documents, in_scope)
    return table


def _segment(segment) -> dict | None:
    """One output's PolyTope figures on the system page (None: not annotated)."""
    if segment is None:
        return None
    fields = ("score", "words", "penalty", "critical", "major", "minor", "errors")
    return {field: getattr(segment, field) for field in fields}


def _polytope_summary(version, segments, documents, in_scope) -> dict:
    """The version's pooled PolyTope cell, breakdown and the outputs nobody annotated."""
    covered = {version.pk: [d["document_id"] for d in documents]}
    cells, extras, _ = polytope_columns(
        versions=[version],
        documents=in_scope,
        order=in_scope,
        covered=covered,
        level=LEVEL,
        resamples=settings.LOUPE_LEADERBOARD_RESAMPLES,
        seed=DEFAULT_SEED,
    )
    return {
        **polytope_row(cells[version.system.slug], extras[version.system.slug]),
        "not_annotated": [d["external_id"] for d in documents if d["document_id"] not in segments],
    }


def output_document_view(*, version: OutputVersion, external_id: str, k: int = DEFAULT_K) -> dict:
    """One output against the document's support groups, as in Mao et al. (2020), Fig. 1.

    Args:
        version: the output version.
        external_id: the document's id in the dataset.
        k: the FAR cut-off (the first k extracted sentences are considered).

    Returns:
        The document's sentences, the output (summary, extracted indices, the considered set),
        the reference facets with their support groups marked covered or not, the FAM's
        source and the stored scores (``scores_stale`` when they were computed against
        another FAM than the one shown).

    Raises:
        SystemOutput.DoesNotExist: the version has no output for this document.
    """
    output = SystemOutput.objects.select_related("document").get(
        version=version, document__external_id=external_id
    )
    document = output.document
    references = list(document.references.order_by("position"))
    fam = scoring_fam_map(dataset=version.dataset, document_ids=[document.pk]).get(document.pk)
    considered = (
        sorted(considered_sentences(output.extracted, k)) if output.extracted is not None else []
    )
    chosen = set(considered)
    facets = []
    if fam is not None:
        for position, sentence in enumerate(fam.reference.sentences):
            facet = fam.facets[position]
            groups = [
                {"sentences": sorted(group), "covered": bool(group) and set(group) <= chosen}
                for group in facet["groups"]
            ]
            facets.append(
                {
                    "index": position,
                    "text": sentence,
                    "label": facet.get("label", "supported"),
                    "groups": groups,
                    "covered": any(g["covered"] for g in groups),
                }
            )
    names = _stored_names(k, dataset_metrics(dataset=version.dataset)[1])
    row = DocumentScore.objects.filter(version=version, document=document).first()
    stored = row.metrics if row else {}
    scores = {m: stored[m] for m in names if m in stored}  # in the leaderboard's order
    # FAR scores computed against another FAM than the one shown are stale until rescored.
    far_fams = {row.fam_id} if any("@" in metric for metric in scores) else set()
    stale = bool(far_fams) and far_fams != {fam.pk if fam else None}
    return {
        "dataset": version.dataset.slug,
        "system": version.system.slug,
        "name": version.system.name,
        "kind": version.system.kind,
        "version": version.number,
        "k": k,
        "document": {
            "external_id": document.external_id,
            "category": document.category or None,
            "sentences": document.sentences,
        },
        "summary": output.sentences,
        "extracted": output.extracted,
        "extraction_method": output.extraction_method or None,
        "match_confidence": output.match_confidence,
        "considered": considered,
        "reference": references[0].sentences if references else [],
        "fam": (
            {
                "source": fam.annotation_set.kind,
                "annotation_set": fam.annotation_set.slug,
                "facets": facets,
            }
            if fam is not None
            else None
        ),
        "scores": {names[m]: v for m, v in scores.items()},
        "scores_stale": stale,
    }
