"""FAM campaign agreement from plain rows: the core's input, its figures, the JSON, the digest.

No database here: ``fam_selectors`` reads the rows and ``fam_services`` stores the dict that
:func:`fam_agreement_compute` returns. The figures come from
:func:`scoring.metrics.agreement.fam_campaign_agreement` (its README defines each measure).

Conventions (also written into every result under ``conventions``):

- What counts: the FAM of each submitted task (``submitted_only``, the default), for the
  campaign's reference. A document is compared when two annotators or more count on it.
- An annotator's document category is their override, else the one derived from the facets'
  labels (any "no support" facet: high abstraction; every facet noise: noise; else low).
- Time per task follows ``annotation.campaigns.timing`` (first to last save by the task's
  annotator, gaps over 10 minutes counted as 10 minutes), as the campaign progress page does.
- Suggestions: a task "saw suggestions" when the workspace logged any suggestion event for it
  (shown, accepted or ignored). A document is ``shown`` when every counted task of it saw
  suggestions, ``not_shown`` when none did, ``mixed`` otherwise. An empty group (``shown`` in a
  campaign without suggestions, ``not_shown`` when some annotator saw them on every document)
  says why it is empty (its ``reason``).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from annotation.campaigns.timing import IDLE_CAP_SECONDS, seconds_summary
from scoring.metrics.agreement import (
    FAM_CAMPAIGN_MEASURES,
    FamCampaignAgreement,
    fam_campaign_agreement,
    fam_category,
)

DEFAULT_OPTIONS = {
    "submitted_only": True,
    "both_empty": "skip",
    "resamples": 1000,
    "seed": 0,
    "level": 0.95,
}
LOWEST = 10
LOWEST_MEASURE = "jaccard_union"
# The per-document figures stored with each document (category measures have none).
DOCUMENT_MEASURES = (
    "jaccard_union",
    "jaccard_groups",
    "f1_union",
    "f1_groups",
    "alpha_masi_union",
    "alpha_masi_groups",
)

MEASURES = {
    "jaccard_union": (
        "Jaccard, support sentences",
        "Per facet and annotator pair, |S_a ∩ S_b| / |S_a ∪ S_b| of the support sentences (the "
        "union of the facet's groups), the FAR paper's measure; the mean over (facet, pair) "
        "units. Facets neither annotator supports are left out.",
    ),
    "jaccard_groups": (
        "Jaccard, groups",
        "Per facet and pair, the Jaccard index of the two sets of support groups: a group is "
        "shared only when both annotators made exactly that group.",
    ),
    "f1_union": (
        "F1, support sentences",
        "Per facet and pair, the F1 (Dice) of the two sets of support sentences.",
    ),
    "f1_groups": (
        "F1, groups (best match)",
        "Per facet and pair, the harmonic mean of the mean best match of each annotator's groups "
        "in the other's (Dice between groups); partial credit for overlapping groups.",
    ),
    "alpha_masi_union": (
        "α (MASI), support sentences",
        "Krippendorff's alpha over (document, facet) units, each annotator's value the facet's "
        "support sentences, with the MASI distance; an empty support is a value.",
    ),
    "alpha_masi_groups": (
        "α (MASI), groups",
        "Krippendorff's alpha with the MASI distance between the annotators' sets of groups.",
    ),
    "category_kappa": (
        "κ, document category",
        "Cohen's kappa of the annotators' document categories (noise, low, high) per pair; "
        "overall, the mean of the pairs' defined kappas (Light's kappa).",
    ),
    "category_alpha": (
        "α, document category",
        "Krippendorff's alpha (nominal) of the document categories, one unit per document.",
    ),
}

CONVENTIONS = {
    "counted": "the FAM of every submitted task, for the campaign's reference; documents with "
    "FAMs from two annotators or more are compared",
    "both_empty": "a facet neither annotator of a pair supports is left out of the Jaccard and "
    "F1 means (counted in excluded)",
    "empty_support": "for alpha, an empty support (or set of groups) is a value: it agrees with "
    "another empty one and disagrees with any other",
    "category": "an annotator's category override, else derived from the labels (any no "
    "support facet: high; every facet noise: noise; else low)",
    "intervals": "percentile bootstrap over documents (shared resamples); alpha keeps the "
    "campaign's expected disagreement, as Krippendorff's bootstrap does",
    "time_per_task": f"first to last save by the task's annotator, gaps over "
    f"{IDLE_CAP_SECONDS // 60} minutes counted as {IDLE_CAP_SECONDS // 60} minutes",
    "suggestions": "a task saw suggestions when any suggestion event was logged for it; a "
    "document is shown when all its counted tasks saw some, not_shown when none did, mixed "
    "otherwise; an accepted suggestion survives into gold when the gold FAM supports that "
    "facet with that sentence",
    "lowest": f"the {LOWEST} documents with the lowest defined {LOWEST_MEASURE}",
}


@dataclass(frozen=True)
class FamTaskRow:
    """One counted task: its FAM and what else the figures need.

    Attributes:
        task: the task's id.
        fam: the FAM's id.
        version: the FAM's version.
        document: the document's id.
        external_id: the document's external id.
        category: the document's category in the dataset ("" when it has none).
        annotator_id: the annotator's user id.
        annotator: the annotator's username.
        submitted: whether the task is submitted.
        groups: the FAM's support groups, per facet (lists of sentence indices).
        labels: the FAM's facet labels (supported, no_support, noise).
        category_override: the annotator's category ("" = derived from the labels).
        seconds: time spent on the task (None when never saved).
    """

    task: int
    fam: int
    version: int
    document: int
    external_id: str
    category: str
    annotator_id: int
    annotator: str
    submitted: bool
    groups: Sequence[Sequence[Sequence[int]]]
    labels: Sequence[str]
    category_override: str = ""
    seconds: float | None = None


@dataclass(frozen=True)
class SuggestionRow:
    """One logged suggestion event of a counted task (``action``: shown, accepted, ignored)."""

    id: int
    task: int
    facet: int
    sentence: int
    action: str


def compared_tasks(rows: Iterable[tuple[int, int]]) -> set[int]:
    """The tasks on documents that two annotators or more count on (the compared ones).

    Args:
        rows: ``(task id, document id)`` of every counted task that has a FAM.

    Returns:
        The ids of the tasks whose document has two counted tasks or more.
    """
    by_document: dict[int, list[int]] = defaultdict(list)
    for task, document in rows:
        by_document[document].append(task)
    return {task for tasks in by_document.values() if len(tasks) >= 2 for task in tasks}


#: Per task id, the ``(facet, sentence)`` pairs of its suggestion events.
TaskPairs = dict[int, set[tuple[int, int]]]


def suggestion_pairs(
    events: Iterable[tuple[int, int, int, str]], tasks: set[int]
) -> tuple[TaskPairs, TaskPairs]:
    """What the split by suggestions reads of the events: per task, the pairs seen and accepted.

    :func:`suggestions_split` reads, per compared task, the set of ``(facet, sentence)`` it
    logged any event for and the set it logged ``accepted`` for; neither the scorer, nor the
    order, nor a repeated event changes a figure.

    Args:
        events: ``(task, facet, sentence, action)`` of the counted tasks' events.
        tasks: the compared tasks (:func:`compared_tasks`); others' events are left out.

    Returns:
        ``(seen, accepted)``: task id -> set of ``(facet, sentence)``, for the tasks with any.
    """
    seen: TaskPairs = defaultdict(set)
    accepted: TaskPairs = defaultdict(set)
    for task, facet, sentence, action in events:
        if task not in tasks:
            continue
        pair = (int(facet), int(sentence))
        seen[int(task)].add(pair)
        if action == "accepted":
            accepted[int(task)].add(pair)
    return dict(seen), dict(accepted)


def _flat(pairs: TaskPairs) -> list[list[int]]:
    """Per-task pairs as sorted ``[task, facet, sentence]`` (for the digest)."""
    return sorted(
        [task, facet, sentence] for task, some in pairs.items() for facet, sentence in some
    )


def fam_inputs_digest(
    *,
    fams: Iterable[tuple[int, int, int, bool]],
    gold: Iterable[tuple[int, int]],
    suggestions: tuple[TaskPairs, TaskPairs],
    options: Mapping,
) -> str:
    """SHA-256 over what a campaign's agreement is computed from.

    Suggestion events enter only as what a figure reads of them (:func:`suggestion_pairs`):
    an event that repeats a seen pair (an ``ignored`` logged at submission for a pair shown
    before, say) or that is on a document nobody else annotated leaves the digest as it is.

    Args:
        fams: ``(fam id, version, annotator id, submitted)`` of every counted FAM.
        gold: ``(fam id, version)`` of the campaign's gold FAMs (for the suggestions' survival).
        suggestions: ``(seen, accepted)`` from :func:`suggestion_pairs`.
        options: the run's options.

    Returns:
        64 hex digits; the same inputs in any order give the same digest.
    """
    seen, accepted = suggestions
    payload = {
        "fams": sorted([int(f), int(v), int(a), bool(s)] for f, v, a, s in fams),
        "gold": sorted([int(f), int(v)] for f, v in gold),
        "suggestions": {
            "seen": _flat(seen),
            "accepted": _flat(accepted),
        },
        "options": {key: options[key] for key in sorted(options)},
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def facet_parts(facets: Sequence[dict]) -> tuple[list, list[str]]:
    """A FAM's facets as ``(groups per facet, labels)``.

    Args:
        facets: ``{"groups", "label", ...}`` dicts.

    Returns:
        The groups (lists of sentence indices) and the labels (``supported`` when unset).
    """
    return (
        [[list(group) for group in facet.get("groups", [])] for facet in facets],
        [facet.get("label", "supported") for facet in facets],
    )


def _figure(score, interval=None) -> dict:
    figure = score.as_dict()
    if interval is not None:
        figure.update(
            ci_low=interval.low,
            ci_high=interval.high,
            ci_level=interval.level,
            ci_reason=interval.reason,
            ci_undefined=interval.undefined,
        )
    return figure


def _support(groups: Sequence[Sequence[Sequence[int]]], facet: int) -> set[int]:
    if facet >= len(groups):
        return set()
    return {sentence for group in groups[facet] for sentence in group}


def _share(part: int, whole: int, reason: str) -> dict:
    if whole == 0:
        return {"value": None, "n": 0, "reason": reason}
    return {"value": part / whole, "n": whole, "reason": None}


# Why a group of the suggestions split has no document.
_EMPTY_GROUP = {
    "shown": "no compared document on which every annotator saw suggestions",
    "not_shown": "no compared document without suggestions: on each, some annotator saw them",
}


def _group_entry(result: FamCampaignAgreement, documents, rows, key: str) -> dict:
    entry: dict = {"documents": len(documents), "tasks": len(rows)}
    if not documents:
        entry["reason"] = _EMPTY_GROUP[key]
    for name, (score, interval) in result.subset(documents).items():
        entry[name] = _figure(score, interval)
    median, mean = seconds_summary([row.seconds for row in rows])
    entry["seconds_per_task_median"] = median
    entry["seconds_per_task_mean"] = mean
    entry["tasks_timed"] = sum(1 for row in rows if row.seconds is not None)
    return entry


def suggestions_split(
    result: FamCampaignAgreement,
    rows: Sequence[FamTaskRow],
    events: Sequence[SuggestionRow],
    gold: Mapping[int, Sequence[dict]],
) -> dict:
    """Agreement and time per task with and without suggestions; how accepted ones fared.

    Args:
        result: the campaign's figures (its documents are the compared ones).
        rows: the counted tasks.
        events: their suggestion events.
        gold: document id -> the campaign's gold facets, for the documents that have gold.

    Returns:
        ``{"shown": group, "not_shown": group[, "mixed": group], "suggestions_shown": n,
        "suggestions_accepted": n, "accept_rate": share, "accepted_kept": share,
        "accepted_in_gold": share}``: a group has ``documents``, ``tasks``, the four mean
        measures with their intervals and the median and mean seconds per task, and when it
        has no document a ``reason`` saying why; a share is ``{"value", "n", "reason"}``.
    """
    compared = set(result.documents)
    rows = [row for row in rows if row.document in compared]
    gold_groups = {document: facet_parts(facets)[0] for document, facets in gold.items()}
    task_ids = {row.task for row in rows}
    seen, accepted = suggestion_pairs(
        ((event.task, event.facet, event.sentence, event.action) for event in events), task_ids
    )
    by_document: dict[int, list[FamTaskRow]] = defaultdict(list)
    for row in rows:
        by_document[row.document].append(row)
    groups: dict[str, list[int]] = {"shown": [], "not_shown": [], "mixed": []}
    for document in result.documents:
        saw = [bool(seen.get(row.task)) for row in by_document[document]]
        key = "shown" if all(saw) else "not_shown" if not any(saw) else "mixed"
        groups[key].append(document)
    split: dict = {}
    for key, documents in groups.items():
        if key == "mixed" and not documents:
            continue
        members = [row for document in documents for row in by_document[document]]
        split[key] = _group_entry(result, documents, members, key)
    shown = sum(len(pairs) for pairs in seen.values())
    n_accepted = sum(len(pairs) for pairs in accepted.values())
    kept = in_gold = with_gold = 0
    for row in rows:
        for facet, sentence in accepted.get(row.task, ()):
            kept += sentence in _support(row.groups, facet)
            if row.document in gold:
                with_gold += 1
                in_gold += sentence in _support(gold_groups[row.document], facet)
    split["suggestions_shown"] = shown
    split["suggestions_accepted"] = n_accepted
    split["accept_rate"] = _share(n_accepted, shown, "no suggestion was shown")
    split["accepted_kept"] = _share(kept, n_accepted, "no suggestion was accepted")
    split["accepted_in_gold"] = _share(
        in_gold,
        with_gold,
        "no accepted suggestion is on an adjudicated document"
        if n_accepted
        else "no suggestion was accepted",
    )
    return split


def fam_agreement_compute(
    *,
    rows: Sequence[FamTaskRow],
    events: Sequence[SuggestionRow] = (),
    gold: Mapping[int, Sequence[dict]] | None = None,
    options: Mapping | None = None,
) -> dict:
    """Every FAM agreement figure of a campaign, as the JSON the API serves.

    Args:
        rows: the counted tasks, in the campaign's document order.
        events: the counted tasks' suggestion events.
        gold: document id -> gold facets (documents with a gold FAM).
        options: see ``DEFAULT_OPTIONS``.

    Returns:
        ``{"measures", "annotators", "documents", "lowest", "suggestions", "conventions",
        "counts", "options"}``; see CONTRACTS section B.

    Raises:
        AgreementError: no document has two annotators (the service checks first), or a
            malformed FAM.
    """
    options = {**DEFAULT_OPTIONS, **(options or {})}
    by_document: dict[int, dict[str, FamTaskRow]] = defaultdict(dict)
    info: dict[int, FamTaskRow] = {}
    for row in rows:
        by_document[row.document][row.annotator] = row
        info.setdefault(row.document, row)
    compared = {doc: people for doc, people in by_document.items() if len(people) >= 2}
    documents = {
        doc: {name: row.groups for name, row in people.items()} for doc, people in compared.items()
    }
    categories = {
        doc: {name: fam_category(row.labels, row.category_override) for name, row in people.items()}
        for doc, people in compared.items()
    }
    result = fam_campaign_agreement(
        documents,
        categories=categories,
        both_empty=options["both_empty"],
        resamples=options["resamples"],
        seed=options["seed"],
        level=options["level"],
    )
    measures = {}
    for name in FAM_CAMPAIGN_MEASURES:
        label, description = MEASURES[name]
        measures[name] = {
            "label": label,
            "description": description,
            "overall": _figure(result.overall[name], result.intervals[name]),
            "per_pair": [
                {"a": a, "b": b, **score.as_dict()}
                for (a, b), score in result.per_pair[name].items()
            ],
        }
    document_rows = []
    for doc in result.documents:
        people = compared[doc]
        entry = {
            "id": doc,
            "external_id": info[doc].external_id,
            "category": info[doc].category,
            "annotators": sorted(people),
            "categories": dict(sorted(result.categories[doc].items())),
        }
        for name in DOCUMENT_MEASURES:
            entry[name] = result.per_document[name][doc].value
        document_rows.append(entry)
    defined = [entry for entry in document_rows if entry[LOWEST_MEASURE] is not None]
    lowest = sorted(defined, key=lambda entry: entry[LOWEST_MEASURE])[:LOWEST]
    return {
        "measures": measures,
        "annotators": sorted({name for people in compared.values() for name in people}),
        "documents": document_rows,
        "lowest": [
            {
                "document_id": entry["id"],
                "external_id": entry["external_id"],
                "value": entry[LOWEST_MEASURE],
                "measure": LOWEST_MEASURE,
            }
            for entry in lowest
        ],
        "suggestions": suggestions_split(result, rows, events, gold or {}),
        "conventions": CONVENTIONS,
        "counts": {
            "documents": len(result.documents),
            "documents_with_one_annotator": len(by_document) - len(compared),
            "tasks": len(rows),
            "pairs": len(result.per_pair["jaccard_union"]),
        },
        "options": options,
    }
