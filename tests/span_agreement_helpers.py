"""A small hand-worked PolyTope campaign and two XSum-style sets for the span agreement tests.

Dataset ``agree``: two documents, two systems, four outputs (o1..o4). Users alice and bob both
annotate o1, o2 and o3; carol alone annotates o4 (left out: one annotator); dave has an empty,
unjudged row on o1 (left out: not annotated). The figures the tests expect are worked out by
hand in ``tests/test_span_agreement.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model

from annotation.accounts.roles import ANNOTATOR
from annotation.accounts.services import user_create
from annotation.campaigns.models import Campaign, CampaignKind, Task, TaskStatus
from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSet, AnnotationSetKind
from annotation.spans.models import SpanAnnotation
from annotation.systems.models import OutputVersion, System, SystemOutput

SOURCE_1 = ["Alice met Bob in Rome on Monday.", "They talked about the budget."]
SOURCE_2 = ["The council approved the new library.", "Work starts in spring."]
SUMMARIES = {
    "o1": (0, "s1", "Alice met Bob in Paris on Monday."),  # 7 words
    "o2": (0, "s2", "Bob met Alice twice in Rome."),  # 6 words
    "o3": (1, "s1", "The council rejected the library in spring."),  # 7 words
    "o4": (1, "s2", "Work on the library starts in spring."),
}
BUDGET = " ".join(SOURCE_1).find("budget")  # 55


def summary_span(start: int, end: int, type_: str, label: str = "") -> dict:
    """A summary-side error."""
    return {"side": "summary", "start": start, "end": end, "type": type_, "label": label}


def source_span(start: int, end: int, type_: str, label: str) -> dict:
    """A source-side error (PolyTope Omission)."""
    return {"side": "source", "start": start, "end": end, "type": type_, "label": label}


def nowhere(words: str, type_: str, label: str) -> dict:
    """An error known only by its issue words."""
    return {"side": "none", "words": words, "type": type_, "label": label}


# alice (A) and bob (B): see the module docstring of the tests for the worked figures.
ALICE = {
    "o1": [
        summary_span(17, 22, "Inaccuracy Extrinsic", "Place & Name"),  # Paris, Critical
        summary_span(23, 32, "Addition", "Number & Time"),  # on Monday, Major
    ],
    "o2": [
        summary_span(14, 19, "Addition", "Attribute"),  # twice, Major
        source_span(BUDGET, BUDGET + 6, "Omission", "Object"),  # budget, Critical
    ],
    "o3": [
        summary_span(12, 20, "Inaccuracy Intrinsic", "Predicate"),  # rejected, Critical
        nowhere("new", "Omission", "Attribute"),  # Major, no offsets
    ],
}
BOB = {
    "o1": [summary_span(14, 22, "Inaccuracy Extrinsic", "Place & Name")],  # in Paris, Critical
    "o2": [
        source_span(BUDGET - 4, BUDGET + 6, "Omission", "Object"),  # the budget, Critical
        summary_span(14, 19, "Word Form", "Attribute"),  # twice, Minor
    ],
    "o3": None,  # marked as having no errors
}
# Two XSum-style sets (each one annotator): X and Y.
SET_X = {
    "o1": [summary_span(17, 22, "extrinsic")],
    "o2": None,
    "o3": [summary_span(12, 20, "intrinsic"), summary_span(4, 11, "extrinsic")],
}
SET_Y = {
    "o1": [summary_span(14, 22, "extrinsic")],
    "o2": None,
    "o3": [summary_span(12, 20, "extrinsic")],
}


@dataclass
class World:
    """What :func:`build` made."""

    dataset: Dataset
    outputs: dict[str, SystemOutput]
    users: dict[str, object]
    campaign: Campaign | None = None


def span_row(annotation_set, output, errors, *, annotator=None) -> SpanAnnotation:
    """Write one checked SpanAnnotation (``errors=None``: marked as having no errors).

    Args:
        annotation_set: the set.
        output: the output.
        errors: the errors, or None for the no-errors mark.
        annotator: the user, or None for a set's own row.

    Returns:
        The saved row.
    """
    row = SpanAnnotation(
        annotation_set=annotation_set,
        output=output,
        annotator=annotator,
        errors=list(errors or []),
        no_errors=errors is None,
    )
    row.full_clean()
    row.save()
    return row


def build(slug: str = "agree") -> World:
    """The dataset, its systems and outputs, and the four annotator users.

    Args:
        slug: the dataset's slug (systems are prefixed with it).

    Returns:
        The :class:`World`.
    """
    dataset = Dataset.objects.create(slug=slug, name=slug)
    documents = []
    for position, sentences in enumerate((SOURCE_1, SOURCE_2)):
        document = Document.objects.create(
            dataset=dataset, external_id=f"{slug}-d{position + 1}", position=position,
            sentences=sentences,
        )  # fmt: skip
        Reference.objects.create(document=document, sentences=[sentences[0]])
        documents.append(document)
    versions = {}
    for name in ("s1", "s2"):
        system = System.objects.create(slug=f"{slug}-{name}", name=name, kind="abstractive")
        versions[name] = OutputVersion.objects.create(system=system, dataset=dataset, number=1)
    outputs = {}
    for key, (doc, system, text) in SUMMARIES.items():
        version = versions[system]
        outputs[key] = SystemOutput.objects.create(
            system=version.system, version=version, document=documents[doc], sentences=[text]
        )
    users = {}
    for name in ("alice", "bob", "carol", "dave"):
        existing = get_user_model().objects.filter(username=name).first()
        users[name] = existing or user_create(username=name, password="pw", role=ANNOTATOR)
    return World(dataset=dataset, outputs=outputs, users=users)


def span_set(world: World, slug: str, scheme: str, kind=AnnotationSetKind.HUMAN) -> AnnotationSet:
    """A new annotation set of the world's dataset.

    Args:
        world: the world.
        slug: the set's slug.
        scheme: its scheme.
        kind: its kind.

    Returns:
        The set.
    """
    return AnnotationSet.objects.create(
        dataset=world.dataset, slug=slug, name=slug, kind=kind, scheme=scheme
    )


def polytope_campaign(world: World, *, bob_submits_o3: bool = True) -> Campaign:
    """The hand-worked PolyTope campaign: tasks for everyone, alice's and bob's annotations.

    Args:
        world: the world (its ``campaign`` is set).
        bob_submits_o3: whether bob's o3 task is submitted (else in progress).

    Returns:
        The campaign.
    """
    annotation_set = span_set(world, f"campaign-{world.dataset.slug}", "polytope")
    campaign = Campaign.objects.create(
        dataset=world.dataset,
        slug=f"{world.dataset.slug}-pt",
        name="Agreement",
        kind=CampaignKind.POLYTOPE,
        annotation_set=annotation_set,
        annotators_per_document=2,
    )
    users = world.users
    plan = [
        ("alice", ALICE, {"o1", "o2", "o3"}),
        ("bob", BOB, {"o1", "o2"} | ({"o3"} if bob_submits_o3 else set())),
        ("carol", {"o4": [summary_span(0, 4, "Addition", "Subject")]}, {"o4"}),
    ]
    for name, marked, submitted in plan:
        for key, errors in marked.items():
            output = world.outputs[key]
            Task.objects.create(
                campaign=campaign,
                document=output.document,
                output=output,
                annotator=users[name],
                status=TaskStatus.SUBMITTED if key in submitted else TaskStatus.IN_PROGRESS,
            )
            span_row(annotation_set, output, errors, annotator=users[name])
    span_row(annotation_set, world.outputs["o1"], [], annotator=users["dave"])  # not judged
    world.campaign = campaign
    return campaign


def xsum_sets(world: World) -> tuple[AnnotationSet, AnnotationSet]:
    """Sets X and Y of scheme xsum-hallucinations (one annotator each, rows without a user).

    Args:
        world: the world.

    Returns:
        ``(X, Y)``.
    """
    made = []
    for slug, marked in (("set-x", SET_X), ("set-y", SET_Y)):
        annotation_set = span_set(world, slug, "xsum-hallucinations")
        for key, errors in marked.items():
            span_row(annotation_set, world.outputs[key], errors)
        made.append(annotation_set)
    return made[0], made[1]
