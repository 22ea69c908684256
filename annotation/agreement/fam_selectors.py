"""FAM agreement selectors (reads): a campaign's counted FAMs, their digest, the API's envelope.

Also :func:`dataset_agreement_summary`, the latest figures of every campaign and span run of a
dataset, which a release exports as ``agreement.json``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models import (
    F,
    Func,
    IntegerField,
    JSONField,
    QuerySet,
    TextField,
    Value,
)
from django.db.models.functions import Cast

from annotation.adjudication.selectors import campaign_gold_get
from annotation.campaigns.models import Campaign, CampaignKind, SuggestionEvent, Task, TaskStatus
from annotation.campaigns.selectors import campaign_systems_hidden
from annotation.campaigns.timing import active_seconds
from annotation.corpus.models import Dataset
from annotation.fams.models import Fam, FamRevision

from .fam_compute import (
    DEFAULT_OPTIONS,
    FamTaskRow,
    SuggestionRow,
    compared_tasks,
    facet_parts,
    fam_inputs_digest,
    suggestion_pairs,
)
from .models import FamAgreementRun, RunSource, RunStatus, SpanAgreementRun


@dataclass(frozen=True)
class FamAgreementInput:
    """What a run computes from, read in one snapshot.

    Attributes:
        rows: the counted tasks with their FAMs, in the campaign's document order.
        events: their suggestion events.
        gold: document id -> gold facets, for documents with a gold FAM.
        digest: the inputs' digest (:func:`fam_agreement_digest` gives the same one).
    """

    rows: list[FamTaskRow]
    events: list[SuggestionRow] = field(default_factory=list)
    gold: dict[int, list] = field(default_factory=dict)
    digest: str = ""


def _counted_tasks(campaign: Campaign, options: dict) -> QuerySet[Task]:
    tasks = Task.objects.filter(campaign=campaign, output__isnull=True)
    if options.get("submitted_only", True):
        tasks = tasks.filter(status=TaskStatus.SUBMITTED)
    return tasks


def _path(path: str) -> Cast:
    """A jsonpath query over a FAM's facets, as JSON text (PostgreSQL's jsonb_path_query_array)."""
    return Cast(
        Func(F("facets"), Value(path), function="jsonb_path_query_array", output_field=JSONField()),
        TextField(),
    )


def _fam_parts(fams: QuerySet[Fam], wanted: set) -> dict[tuple[int, int], dict]:
    """The counted FAMs' ids, versions, groups and labels, keyed by (document, annotator).

    On PostgreSQL only the groups and the labels are read, as JSON text decoded in one call
    (a third of the facets' bytes, and one decode instead of one per row); a FAM whose facets
    lack a key is read whole.
    """
    fields = ("id", "version", "document_id", "annotator_id", "category_override")
    if connection.vendor != "postgresql":
        rows = [
            r
            for r in fams.values(*fields, "facets")
            if (r["document_id"], r["annotator_id"]) in wanted
        ]
        for row in rows:
            row["groups"], row["labels"] = facet_parts(row.pop("facets"))
        return {(r["document_id"], r["annotator_id"]): r for r in rows}
    found = [
        row
        for row in fams.annotate(
            groups=_path("$[*].groups"),
            labels=_path("$[*].label"),
            facet_count=Func(
                F("facets"), function="jsonb_array_length", output_field=IntegerField()
            ),
        ).values_list(*fields, "groups", "labels", "facet_count")
        if (row[2], row[3]) in wanted
    ]
    groups = json.loads("[" + ",".join(row[5] for row in found) + "]")
    labels = json.loads("[" + ",".join(row[6] for row in found) + "]")
    parts = {}
    for row, row_groups, row_labels in zip(found, groups, labels, strict=True):
        pk, version, document, annotator, override, _, _, count = row
        if len(row_groups) != count or len(row_labels) != count:
            row_groups, row_labels = facet_parts(Fam.objects.get(pk=pk).facets)
        parts[(document, annotator)] = {
            "id": pk,
            "version": version,
            "annotator_id": annotator,
            "category_override": override,
            "groups": row_groups,
            "labels": row_labels,
        }
    return parts


def _counted_events(campaign: Campaign, options: dict) -> QuerySet[SuggestionEvent]:
    """The suggestion events of the counted tasks (a join, not a list of task ids)."""
    return SuggestionEvent.objects.filter(task__in=_counted_tasks(campaign, options))


def _fam_keys(campaign: Campaign, tasks: list[dict]) -> tuple[QuerySet[Fam], set]:
    """The campaign's FAMs (its own set, its reference) and the counted (document, annotator)s.

    The campaign's annotation set is its own, so its FAMs are exactly its tasks' drafts; the
    caller keeps those of the counted tasks.
    """
    wanted = {(task["document_id"], task["annotator_id"]) for task in tasks}
    fams = Fam.objects.filter(
        annotation_set_id=campaign.annotation_set_id,
        reference__position=campaign.reference_position,
        annotator__isnull=False,
    )
    return fams, wanted


def _gold_fams(campaign: Campaign) -> QuerySet[Fam]:
    gold = campaign_gold_get(campaign=campaign)
    if gold is None:
        return Fam.objects.none()
    return Fam.objects.filter(
        annotation_set=gold,
        annotator__isnull=True,
        reference__position=campaign.reference_position,
        document__in=campaign.documents.all(),
    )


def _options(options: dict | None) -> dict:
    return {**DEFAULT_OPTIONS, **(options or {})}


def fam_agreement_digest(*, campaign: Campaign, options: dict | None = None) -> str:
    """The digest of what a FAM campaign's agreement would be computed from now (cheap).

    Args:
        campaign: a FAM campaign.
        options: the run options (default ``DEFAULT_OPTIONS``).

    Returns:
        The SHA-256 hex digest (see :func:`~.fam_compute.fam_inputs_digest`).
    """
    options = _options(options)
    tasks = list(
        _counted_tasks(campaign, options).values("id", "document_id", "annotator_id", "status")
    )
    by_key = {(t["document_id"], t["annotator_id"]): t for t in tasks}
    fams, _ = _fam_keys(campaign, tasks)
    keys, with_fam = [], []
    for pk, version, document, annotator in fams.values_list(
        "pk", "version", "document_id", "annotator_id"
    ):
        task = by_key.get((document, annotator))
        if task is None:
            continue
        keys.append((pk, version, annotator, task["status"] == TaskStatus.SUBMITTED))
        with_fam.append((task["id"], document))
    events = (
        _counted_events(campaign, options)
        .values_list("task_id", "facet", "sentence", "action")
        .order_by()
        .distinct()
    )
    gold = list(_gold_fams(campaign).values_list("pk", "version"))
    return fam_inputs_digest(
        fams=keys,
        gold=gold,
        suggestions=suggestion_pairs(events, compared_tasks(with_fam)),
        options=options,
    )


def _read(campaign: Campaign, options: dict) -> FamAgreementInput:
    tasks = list(
        _counted_tasks(campaign, options)
        .values(
            "id",
            "document_id",
            "annotator_id",
            "status",
            "annotator__username",
            "document__external_id",
            "document__category",
        )
        .order_by("document__position", "document_id", "annotator__username")
    )
    fams, wanted = _fam_keys(campaign, tasks)
    by_key = _fam_parts(fams, wanted)
    saves: dict[int, list] = defaultdict(list)
    owners = {row["id"]: row["annotator_id"] for row in by_key.values()}
    revisions = FamRevision.objects.filter(
        fam__annotation_set_id=campaign.annotation_set_id,
        fam__reference__position=campaign.reference_position,
        fam__annotator__isnull=False,
    )
    for fam_id, author, at in revisions.values_list("fam_id", "author_id", "created_at").iterator(
        chunk_size=10000
    ):
        # Only the counted FAMs' saves by their own annotator: a reassigned draft's earlier
        # saves were the previous annotator's time.
        if owners.get(fam_id, -1) == author:
            saves[fam_id].append(at)
    rows = []
    for task in tasks:
        fam = by_key.get((task["document_id"], task["annotator_id"]))
        if fam is None:
            continue
        rows.append(
            FamTaskRow(
                task=task["id"],
                fam=fam["id"],
                version=fam["version"],
                document=task["document_id"],
                external_id=task["document__external_id"],
                category=task["document__category"],
                annotator_id=task["annotator_id"],
                annotator=task["annotator__username"],
                submitted=task["status"] == TaskStatus.SUBMITTED,
                groups=fam["groups"],
                labels=fam["labels"],
                category_override=fam["category_override"],
                seconds=active_seconds(saves.get(fam["id"], [])),
            )
        )
    events = [
        SuggestionRow(*values)
        for values in _counted_events(campaign, options)
        .order_by("id")
        .values_list("id", "task_id", "facet", "sentence", "action")
    ]
    gold_rows = list(_gold_fams(campaign).values_list("pk", "version", "document_id", "facets"))
    digest = fam_inputs_digest(
        fams=[(row.fam, row.version, row.annotator_id, row.submitted) for row in rows],
        gold=[(pk, version) for pk, version, _, _ in gold_rows],
        suggestions=suggestion_pairs(
            ((e.task, e.facet, e.sentence, e.action) for e in events),
            compared_tasks((row.task, row.document) for row in rows),
        ),
        options=options,
    )
    return FamAgreementInput(
        rows=rows,
        events=events,
        gold={document: facets for _, _, document, facets in gold_rows},
        digest=digest,
    )


def fam_agreement_input(*, campaign: Campaign, options: dict | None = None) -> FamAgreementInput:
    """Read a FAM campaign's counted tasks, their FAMs, times and suggestions, and the gold.

    Outside a transaction the reads share one REPEATABLE READ snapshot, so the digest is
    exactly that of the rows read even while annotators keep saving.

    Args:
        campaign: a FAM campaign.
        options: the run options (default ``DEFAULT_OPTIONS``).

    Returns:
        A :class:`FamAgreementInput`.
    """
    options = _options(options)
    if connection.in_atomic_block or connection.vendor != "postgresql":
        return _read(campaign, options)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        return _read(campaign, options)


def fam_agreement_run_latest(*, campaign: Campaign, status: str | None = None):
    """The campaign's latest FAM agreement run (of a status, if given).

    Args:
        campaign: the campaign.
        status: keep only runs of this status.

    Returns:
        The run, or None.
    """
    runs = FamAgreementRun.objects.filter(campaign=campaign)
    if status is not None:
        runs = runs.filter(status=status)
    return runs.order_by("-created_at", "-id").first()


def _run_brief(run) -> dict | None:
    if run is None:
        return None
    return {
        "id": run.pk,
        "status": run.status,
        "trigger": getattr(run, "trigger", None),
        "created_at": run.created_at.isoformat(),
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "recoveries": run.recoveries,
        "recovery_note": run.recovery_note,
    }


def _envelope(kind: str, latest, shown, current: str | None) -> dict:
    failed = latest is not None and latest.status == RunStatus.FAILED
    return {
        "kind": kind,
        "status": latest.status if latest is not None else "none",
        "stale": bool(shown is not None and shown.inputs_digest != current),
        "inputs_digest": shown.inputs_digest if shown is not None else None,
        "current_digest": current,
        "computed_at": shown.finished_at.isoformat() if shown is not None else None,
        "result": shown.result if shown is not None else None,
        "error": latest.error if failed else "",
        "run": _run_brief(latest),
    }


def _span_digest(run) -> str | None:
    """The current digest of a span run's inputs, from the span agreement selectors if any."""
    from . import selectors

    digest = getattr(selectors, "span_agreement_run_digest", None)
    return digest(run=run) if digest is not None else None


#: What a span result says about systems, hidden where the campaign hides its systems.
_SYSTEM_KEYS = ("system", "output")


def _without_systems(result: dict | None) -> dict | None:
    """A span result without its per-system figures, and its items without system and output
    (their document ids are kept); a copy, the stored result is untouched."""
    if not result:
        return result
    hidden = {key: value for key, value in result.items() if key != "per_system"}
    for key in ("per_item", "lowest"):
        if key in result:
            hidden[key] = [
                {k: v for k, v in row.items() if k not in _SYSTEM_KEYS} for row in result[key]
            ]
    if isinstance(result.get("counts"), dict):
        hidden["counts"] = {k: v for k, v in result["counts"].items() if k != "items_per_system"}
    return hidden


def campaign_agreement_get(*, campaign: Campaign, user=None) -> dict:
    """The campaign's agreement as the API serves it, whatever the campaign's kind.

    The result shown is the latest succeeded run's; ``status`` and ``error`` are the latest
    run's (a run may be queued or running while the previous result is shown); ``stale``
    says that the shown result's inputs differ from the campaign's annotations now.

    Until a system-blind PolyTope campaign is Done, a reader who annotates it or is not an
    admin (or no reader given) gets the span result without ``per_system`` and
    ``counts.items_per_system``, and its ``per_item`` and ``lowest`` rows without ``system``
    and ``output`` (document ids kept); ``systems_hidden`` is then true. The adjudication API
    hides systems the same way.

    Args:
        campaign: a FAM or PolyTope campaign.
        user: who reads (None: systems hidden where the campaign hides them).

    Returns:
        ``{"kind": "fam"|"spans", "status", "stale", "inputs_digest", "current_digest",
        "computed_at", "result", "error", "run", "systems_hidden"}``; ``status`` is "none"
        before any run.
    """
    if campaign.kind == CampaignKind.POLYTOPE:
        runs = SpanAgreementRun.objects.filter(campaign=campaign, source=RunSource.CAMPAIGN)
        latest = runs.order_by("-created_at", "-id").first()
        shown = runs.filter(status=RunStatus.SUCCEEDED).order_by("-created_at", "-id").first()
        current = _span_digest(shown or latest) if (shown or latest) is not None else None
        envelope = _envelope("spans", latest, shown, current)
        if current is None:
            envelope["stale"] = False
        envelope["systems_hidden"] = campaign_systems_hidden(campaign=campaign, user=user)
        if envelope["systems_hidden"]:
            envelope["result"] = _without_systems(envelope["result"])
        return envelope
    latest = fam_agreement_run_latest(campaign=campaign)
    shown = fam_agreement_run_latest(campaign=campaign, status=RunStatus.SUCCEEDED)
    options = shown.options if shown is not None else None
    current = fam_agreement_digest(campaign=campaign, options=options)
    return {**_envelope("fam", latest, shown, current), "systems_hidden": False}


def _overall(result: dict | None) -> dict:
    if not result:
        return {}
    if "measures" in result:
        return {name: measure["overall"] for name, measure in result["measures"].items()}
    return dict(result.get("overall", {}))


def dataset_agreement_summary(*, dataset: Dataset) -> dict:
    """The latest agreement figures of a dataset's campaigns and span runs, JSON-ready.

    Args:
        dataset: the dataset.

    Returns:
        ``{"dataset", "campaigns": [{"id", "slug", "name", "kind", "agreement": {"run",
        "computed_at", "inputs_digest", "stale", "documents", "overall": {measure: figure}} |
        None}], "span_runs": [{"id", "scheme", "annotation_sets", "min_iou", "computed_at",
        "inputs_digest", "overall"}]}``: each campaign's latest succeeded run (FAM, or the
        campaign's span run), and the latest succeeded run of each distinct choice of span
        annotation sets (and ``min_iou``). A figure is ``{"value", "n", "excluded", "reason"}``
        with ``ci_low``, ``ci_high`` and ``ci_level`` when the run computed an interval.
    """
    campaigns = []
    for campaign in Campaign.objects.filter(dataset=dataset).order_by("created_at", "id"):
        entry = {
            "id": campaign.pk,
            "slug": campaign.slug,
            "name": campaign.name,
            "kind": campaign.kind,
            "agreement": None,
        }
        if campaign.kind == CampaignKind.FAM:
            run = fam_agreement_run_latest(campaign=campaign, status=RunStatus.SUCCEEDED)
            if run is not None:
                current = fam_agreement_digest(campaign=campaign, options=run.options)
                entry["agreement"] = {
                    "run": run.pk,
                    "computed_at": run.finished_at.isoformat() if run.finished_at else None,
                    "inputs_digest": run.inputs_digest,
                    "stale": run.inputs_digest != current,
                    "documents": (run.result or {}).get("counts", {}).get("documents"),
                    "overall": _overall(run.result),
                }
        else:
            run = (
                SpanAgreementRun.objects.filter(
                    campaign=campaign, source=RunSource.CAMPAIGN, status=RunStatus.SUCCEEDED
                )
                .order_by("-created_at", "-id")
                .first()
            )
            if run is not None:
                current = _span_digest(run)
                entry["agreement"] = {
                    "run": run.pk,
                    "computed_at": run.finished_at.isoformat() if run.finished_at else None,
                    "inputs_digest": run.inputs_digest,
                    "stale": current is not None and run.inputs_digest != current,
                    "documents": (run.result or {}).get("counts", {}).get("items"),
                    "overall": _overall(run.result),
                }
        campaigns.append(entry)
    span_runs, seen = [], set()
    runs = (
        SpanAgreementRun.objects.filter(
            dataset=dataset, source=RunSource.ANNOTATION_SETS, status=RunStatus.SUCCEEDED
        )
        .prefetch_related("annotation_sets")
        .order_by("-created_at", "-id")
    )
    for run in runs:
        sets = sorted(s.slug for s in run.annotation_sets.all())
        key = (tuple(sets), run.min_iou)
        if key in seen:
            continue
        seen.add(key)
        span_runs.append(
            {
                "id": run.pk,
                "scheme": run.scheme,
                "annotation_sets": sets,
                "min_iou": run.min_iou,
                "computed_at": run.finished_at.isoformat() if run.finished_at else None,
                "inputs_digest": run.inputs_digest,
                "overall": _overall(run.result),
            }
        )
    return {"dataset": dataset.slug, "campaigns": campaigns, "span_runs": span_runs}
