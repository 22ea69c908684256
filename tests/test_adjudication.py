"""Adjudication services and selectors: the gold set, gold FAMs and spans with provenance,
versioning and 409, done/reopen and the reopen guard, the gold counting for scoring only while
its document is done (the rescoring done and reopen queue on commit; FAR and PolyTope follow,
worked by hand), the adjudicators, and the list's hand-worked counts and agreement."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.accounts.services import user_create
from annotation.adjudication.models import CampaignGold, DocumentAdjudication
from annotation.adjudication.selectors import (
    adjudication_fam_document,
    adjudication_list,
    adjudication_spans_document,
    user_may_adjudicate,
)
from annotation.adjudication.services import (
    campaign_adjudicators_set,
    document_adjudication_mark,
    document_adjudication_reopen,
    gold_fam_save,
    gold_spans_save,
)
from annotation.campaigns.models import Task
from annotation.campaigns.services import (
    campaign_create,
    polytope_campaign_create,
    task_fam_save,
    task_reopen,
    task_spans_save,
    task_submit,
    tasks_assign_manual,
)
from annotation.corpus.models import Dataset, Document
from annotation.fams.models import AnnotationSet, Fam, FamRevision
from annotation.jobs.kernel import job_send
from annotation.spans.models import SpanAnnotation
from annotation.spans.services import SpanRecord, span_annotations_replace
from config.exceptions import ApplicationError, ConflictError
from scoring.scores.models import DocumentScore, ErrorBreakdown, JobStatus, ScoringJob
from scoring.scores.selectors import scoring_fam_map, scoring_fam_rows
from scoring.scores.services import scoring_pending_run_inline
from tests.release_helpers import build, members
from tests.test_polytope_campaigns import SUMMARY_002, span

pytestmark = pytest.mark.django_db


def f(groups, label="supported"):
    return {"groups": groups, "label": label, "note": ""}


def prov(method, *names):
    return {"method": method, "annotators": list(names)}


# demo-001's reference has three facets. annotator ("alice" below) and annotator2 ("bob"):
ALICE = [f([[0]]), f([[3, 4]]), f([[5]])]
BOB = [f([[0], [1]]), f([[4, 3]]), f([], "no_support")]


@pytest.fixture
def world(demo, users):
    """A FAM campaign over demo-001 and demo-002, both annotated by two annotators; demo-001
    submitted by both, demo-002 started by annotator only."""
    dataset = Dataset.objects.get(slug="demo")
    user_create(username="annotator2", password="pw-2", role="Annotator")
    campaign = campaign_create(
        dataset=dataset,
        slug="adj",
        name="Adj",
        documents=["demo-001", "demo-002"],
        annotators_per_document=2,
        scorers=[],
    )
    tasks = tasks_assign_manual(
        campaign=campaign,
        assignments=[
            (doc, name) for doc in ("demo-001", "demo-002") for name in ("annotator", "annotator2")
        ],
    )
    by = {(t.document.external_id, t.annotator.username): t for t in tasks}
    for name, facets in (("annotator", ALICE), ("annotator2", BOB)):
        task = by[("demo-001", name)]
        task_fam_save(task=task, user=task.annotator, facets=facets, base_version=1)
        task_submit(task=task)
    started = by[("demo-002", "annotator")]
    task_fam_save(
        task=started, user=started.annotator, facets=[f([[1]]), f([]), f([])], base_version=1
    )
    return {
        "dataset": dataset,
        "campaign": campaign,
        "doc": Document.objects.get(dataset=dataset, external_id="demo-001"),
        "doc2": Document.objects.get(dataset=dataset, external_id="demo-002"),
        "tasks": by,
        "admin": users["admin"],
    }


GOLD = [
    {
        "groups": [[1], [0]],
        "label": "supported",
        "provenance": prov("union", "annotator2", "annotator"),
    },
    {
        "groups": [[3, 4]],
        "label": "supported",
        "provenance": prov("agreed", "annotator", "annotator2"),
    },
    {"groups": [[2]], "label": "supported", "provenance": prov("edited", "annotator")},
]


def test_the_side_by_side_view_and_its_diff(world):
    body = adjudication_fam_document(
        campaign=world["campaign"], document=world["doc"], user=world["admin"]
    )
    assert [a["annotator"] for a in body["annotations"]] == ["annotator", "annotator2"]
    assert body["annotations"][1]["facets"][1]["groups"] == [[3, 4]]  # stored sorted
    assert body["waiting"] == []
    assert len(body["reference"]["facets"]) == 3 and body["reference"]["position"] == 0
    f0, f1, f2 = body["diff"]
    assert (f0["agree"], f0["union"], f0["intersection"]) == (False, [[0], [1]], [[0]])
    assert (f0["support_union"], f0["support_intersection"]) == ([0, 1], [0])
    assert f1["agree"] is True and f1["union"] == [[3, 4]]
    assert (f2["agree"], f2["union"], f2["intersection"]) == (False, [[5]], [])
    # Facet 0 {0} vs {0, 1} = 1/2, facet 1 = 1, facet 2 {5} vs none = 0: mean 1/2.
    assert body["agreement"] == pytest.approx(0.5)
    assert body["gold"]["version"] == 0 and body["status"] == "pending" and body["editable"]
    assert body["gold"]["facets"][0] == {
        "groups": [],
        "label": "supported",
        "note": "",
        "provenance": None,
    }
    # demo-002: annotator2 has not started; annotator's in-progress FAM is listed.
    other = adjudication_fam_document(
        campaign=world["campaign"], document=world["doc2"], user=world["admin"]
    )
    assert [a["annotator"] for a in other["annotations"]] == ["annotator"]
    assert other["annotations"][0]["task_status"] == "in_progress"
    assert other["waiting"] == ["annotator2"] and other["agreement"] is None


def test_gold_with_provenance_is_versioned_and_made_in_its_own_gold_set(world):
    campaign, doc, admin = world["campaign"], world["doc"], world["admin"]
    fam = gold_fam_save(campaign=campaign, document=doc, facets=GOLD, base_version=0, user=admin)
    assert fam.version == 1 and fam.annotator is None
    gold_set = CampaignGold.objects.get(campaign=campaign).annotation_set
    assert (gold_set.slug, gold_set.kind, gold_set.scheme) == ("adj-gold", "gold", "fam")
    assert fam.annotation_set == gold_set and fam.reference.position == 0
    both = ("annotator", "annotator2")
    assert fam.facets == [
        {
            "groups": [[1], [0]],
            "label": "supported",
            "note": "",
            "provenance": prov("union", *both),
        },
        {"groups": [[3, 4]], "label": "supported", "note": "", "provenance": prov("agreed", *both)},
        {"groups": [[2]], "label": "supported", "note": "", "provenance": prov("edited", both[0])},
    ]
    # Facet 2 taken from alice instead: a new version whose revision names the change.
    facets = [
        *fam.facets[:2],
        {"groups": [[5]], "label": "supported", "provenance": prov("take", "annotator")},
    ]
    fam = gold_fam_save(campaign=campaign, document=doc, facets=facets, base_version=1, user=admin)
    assert fam.version == 2 and fam.facets[2]["provenance"] == prov("take", "annotator")
    revision = FamRevision.objects.get(fam=fam, version=2)
    assert revision.author == admin and revision.facets == fam.facets
    assert revision.changes == [
        "facet 2: removed group [2]",
        "facet 2: added group [5]",
        "facet 2: provenance edited (annotator) -> take (annotator)",
    ]
    # One gold set per campaign, however many saves.
    assert (
        AnnotationSet.objects.filter(dataset=world["dataset"], kind="gold").count() == 2
    )  # + demo's
    view = adjudication_fam_document(campaign=campaign, document=doc, user=admin)
    assert view["gold"]["version"] == 2 and view["gold"]["updated_by"] == admin.username


def test_a_provenance_that_does_not_hold_is_refused_and_nothing_is_written(world):
    campaign, doc, admin = world["campaign"], world["doc"], world["admin"]
    # The intersection of the two facet-0 FAMs is [[0]], not [[0], [1]].
    wrong = [{**GOLD[0], "provenance": prov("intersection", "annotator", "annotator2")}, *GOLD[1:]]
    with pytest.raises(
        ApplicationError,
        match=r"facet 0: .*intersection of annotator, annotator2.*\[\[0\]\].*mark it edited",
    ):
        gold_fam_save(campaign=campaign, document=doc, facets=wrong, base_version=0, user=admin)
    stranger = [*GOLD[:2], {**GOLD[2], "provenance": prov("take", "nobody")}]
    with pytest.raises(ApplicationError, match=r"facet 2: no annotation by \['nobody'\]"):
        gold_fam_save(campaign=campaign, document=doc, facets=stranger, base_version=0, user=admin)
    with pytest.raises(ApplicationError, match="Expected 3 facets"):
        gold_fam_save(campaign=campaign, document=doc, facets=GOLD[:2], base_version=0, user=admin)
    not_groups = [*GOLD[:2], {**GOLD[2], "groups": [3]}]
    with pytest.raises(ApplicationError, match="facet 2: groups must be a list of lists"):
        gold_fam_save(
            campaign=campaign, document=doc, facets=not_groups, base_version=0, user=admin
        )
    bad_group = [{**GOLD[0], "groups": [[99]], "provenance": None}, *GOLD[1:]]
    with pytest.raises(ValidationError, match="out of range"):
        gold_fam_save(campaign=campaign, document=doc, facets=bad_group, base_version=0, user=admin)
    assert not CampaignGold.objects.exists()
    assert not AnnotationSet.objects.filter(slug="adj-gold").exists()
    assert not ScoringJob.objects.filter(trigger="fams").exists()


def test_a_stale_base_version_gets_the_servers_gold_and_an_empty_save_leaves_none(world):
    campaign, doc, admin = world["campaign"], world["doc"], world["admin"]
    empty = [{"groups": [], "label": "supported", "provenance": None}] * 3
    nothing = gold_fam_save(
        campaign=campaign, document=doc, facets=empty, base_version=0, user=admin
    )
    assert nothing.version == 0 and not Fam.objects.filter(annotation_set__slug="adj-gold").exists()
    gold_fam_save(campaign=campaign, document=doc, facets=GOLD, base_version=0, user=admin)
    other = [GOLD[0], GOLD[1], {"groups": [], "label": "noise", "provenance": prov("edited")}]
    with pytest.raises(ConflictError) as conflict:
        gold_fam_save(campaign=campaign, document=doc, facets=other, base_version=0, user=admin)
    server = conflict.value.extra["server"]
    assert server["version"] == 1 and server["facets"][2]["groups"] == [[2]]
    assert server["updated_by"] == admin.username
    # The same state sent again (a retry whose answer was lost) is no conflict.
    again = gold_fam_save(campaign=campaign, document=doc, facets=GOLD, base_version=0, user=admin)
    assert again.version == 1


def _queued_on_commit(callbacks) -> list[int]:
    """The scoring jobs whose Celery task is sent once the transaction commits."""
    sent = [c.args for c in callbacks if getattr(c, "func", None) is job_send]
    return [job_id for kind, job_id in sent if kind.name == "scoring"]


def test_far_counts_the_campaign_gold_only_while_its_document_is_adjudicated(
    world, django_capture_on_commit_callbacks
):
    campaign, doc, doc2, admin, dataset = (
        world["campaign"],
        world["doc"],
        world["doc2"],
        world["admin"],
        world["dataset"],
    )
    scoring_pending_run_inline(dataset=dataset, ks=[3])

    def far(document):
        return DocumentScore.objects.get(version__system__slug="lead-3", document=document).metrics[
            "far@3"
        ]

    def scored_set(document):
        chosen = scoring_fam_map(dataset=dataset)[document.pk]
        # The scoring chunks' plain rows pick the same FAM.
        row = scoring_fam_rows(dataset=dataset, document_ids=[document.pk])[document.pk]
        assert (row.pk, row.kind) == (chosen.pk, chosen.annotation_set.kind)
        return chosen.annotation_set.slug

    # The demo's own gold FAMs (an imported set, tied to no campaign): demo-001 is
    # [0] | [3, 4] | [5] or [6], demo-002 [0] | [3, 4] | [8]; lead-3 extracts 0, 1, 2, which
    # covers only facet 0 of each: 1/3.
    assert (far(doc), far(doc2)) == (pytest.approx(1 / 3), pytest.approx(1 / 3))
    # Gold saved for both documents, neither adjudicated: nothing is queued, FAR stays put.
    facets = [*GOLD[:2], {**GOLD[2], "groups": [[1, 2]]}]
    edited = [
        {"groups": [[i]], "label": "supported", "provenance": prov("edited")} for i in (0, 1, 2)
    ]
    with django_capture_on_commit_callbacks(execute=False) as saves:
        gold_fam_save(campaign=campaign, document=doc, facets=GOLD, base_version=0, user=admin)
        gold_fam_save(campaign=campaign, document=doc, facets=facets, base_version=1, user=admin)
        gold_fam_save(campaign=campaign, document=doc2, facets=edited, base_version=0, user=admin)
    assert _queued_on_commit(saves) == [] and not ScoringJob.objects.filter(trigger="fams").exists()
    scoring_pending_run_inline(dataset=dataset, ks=[3])
    assert (scored_set(doc), scored_set(doc2)) == ("gold", "gold")
    assert (far(doc), far(doc2)) == (pytest.approx(1 / 3), pytest.approx(1 / 3))
    # demo-001 marked done: one rescoring, sent to the workers on commit.
    with django_capture_on_commit_callbacks(execute=False) as marked:
        document_adjudication_mark(campaign=campaign, document=doc, user=admin)
    job = ScoringJob.objects.get(trigger="fams", status=JobStatus.QUEUED)
    assert _queued_on_commit(marked) == [job.pk]
    assert (scored_set(doc), scored_set(doc2)) == ("adj-gold", "gold")
    scoring_pending_run_inline(dataset=dataset, ks=[3])
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED
    # demo-001's adjudicated gold is [0] or [1] | [3, 4] | [1, 2]: facets 0 and 2 covered, 2/3.
    # demo-002's gold, [0] | [1] | [2], would give 3/3, but it is not adjudicated: still 1/3.
    assert (far(doc), far(doc2)) == (pytest.approx(2 / 3), pytest.approx(1 / 3))
    # Reopening demo-001's adjudication takes its gold out again: one more rescoring.
    with django_capture_on_commit_callbacks(execute=False) as reopened:
        document_adjudication_reopen(campaign=campaign, document=doc, user=admin)
    again = ScoringJob.objects.get(trigger="fams", status=JobStatus.QUEUED)
    assert again.pk != job.pk and _queued_on_commit(reopened) == [again.pk]
    scoring_pending_run_inline(dataset=dataset, ks=[3])
    assert scored_set(doc) == "gold" and far(doc) == pytest.approx(1 / 3)


def test_the_releases_far_files_hold_the_campaign_gold_of_done_documents_only(world):
    campaign, doc, doc2, admin = world["campaign"], world["doc"], world["doc2"], world["admin"]
    edited = [
        {"groups": [[i]], "label": "supported", "provenance": prov("edited")} for i in (0, 1, 2)
    ]
    gold_fam_save(campaign=campaign, document=doc, facets=GOLD, base_version=0, user=admin)
    gold_fam_save(campaign=campaign, document=doc2, facets=edited, base_version=0, user=admin)
    document_adjudication_mark(campaign=campaign, document=doc, user=admin)
    low = json.loads(members(build(world["dataset"]))["far/FAMs.json"])["low_abs"]
    # demo-001 (idx 0) is adjudicated: its campaign gold, groups as saved. demo-002 (idx 1) is
    # not: the demo's own FAM [0] | [3, 4] | [8], as scoring reads it.
    assert low["0"] == {"0": [[1], [0]], "1": [[3, 4]], "2": [[2]]}
    assert low["1"] == {"0": [[0]], "1": [[3, 4]], "2": [[8]]}


def test_a_done_that_rolls_back_leaves_no_rescoring_behind(world):
    campaign, doc, admin = world["campaign"], world["doc"], world["admin"]
    gold_fam_save(campaign=campaign, document=doc, facets=GOLD, base_version=0, user=admin)
    with pytest.raises(RuntimeError), transaction.atomic():
        document_adjudication_mark(campaign=campaign, document=doc, user=admin)
        assert ScoringJob.objects.filter(trigger="fams").count() == 1  # inside the transaction
        raise RuntimeError("the caller's transaction fails")
    assert not ScoringJob.objects.filter(trigger="fams").exists()
    assert not DocumentAdjudication.objects.filter(status="done").exists()


def test_done_needs_a_complete_gold_and_blocks_reopening_the_documents_tasks(world):
    campaign, doc, admin = world["campaign"], world["doc"], world["admin"]
    with pytest.raises(ApplicationError, match="No gold FAM is saved"):
        document_adjudication_mark(campaign=campaign, document=doc, user=admin)
    undecided = [*GOLD[:2], {"groups": [], "label": "supported", "provenance": None}]
    gold_fam_save(campaign=campaign, document=doc, facets=undecided, base_version=0, user=admin)
    with pytest.raises(ApplicationError, match=r"Facet\(s\) \[3\] of the gold FAM") as refused:
        document_adjudication_mark(campaign=campaign, document=doc, user=admin)
    assert refused.value.extra == {"undecided_facets": [2]}
    gold_fam_save(campaign=campaign, document=doc, facets=GOLD, base_version=1, user=admin)
    state = document_adjudication_mark(campaign=campaign, document=doc, user=admin)
    assert (state.status, state.by, state.self_adjudicated) == ("done", admin, False)
    assert state.at is not None
    alice = world["tasks"][("demo-001", "annotator")]
    with pytest.raises(
        ApplicationError, match="'demo-001' is adjudicated: its tasks can no longer"
    ):
        task_reopen(task=alice)
    with pytest.raises(ApplicationError, match="reopen its adjudication to change the gold"):
        gold_fam_save(campaign=campaign, document=doc, facets=GOLD, base_version=2, user=admin)
    # Marking again is a no-op; reopening the adjudication lets the task reopen.
    assert document_adjudication_mark(campaign=campaign, document=doc, user=admin).pk == state.pk
    assert (
        document_adjudication_reopen(campaign=campaign, document=doc, user=admin).status
        == "pending"
    )
    assert task_reopen(task=alice).status == "in_progress"
    # In adjudication a task of a document that is not adjudicated may still be reopened.
    campaign.status = "adjudication"
    campaign.save(update_fields=["status"])
    bob = world["tasks"][("demo-001", "annotator2")]
    assert task_reopen(task=bob).status == "in_progress"


def test_a_closed_campaign_refuses_every_adjudication_write(world):
    campaign, doc, admin = world["campaign"], world["doc"], world["admin"]
    gold_fam_save(campaign=campaign, document=doc, facets=GOLD, base_version=0, user=admin)
    campaign.status = "closed"
    campaign.save(update_fields=["status"])
    for write in (
        lambda: gold_fam_save(
            campaign=campaign, document=doc, facets=GOLD, base_version=1, user=admin
        ),
        lambda: document_adjudication_mark(campaign=campaign, document=doc, user=admin),
        lambda: document_adjudication_reopen(campaign=campaign, document=doc, user=admin),
    ):
        with pytest.raises(ApplicationError, match="campaign is closed"):
            write()
    assert not DocumentAdjudication.objects.filter(status="done").exists()


def test_an_adjudicator_who_annotated_the_document_is_recorded(world):
    campaign, doc = world["campaign"], world["doc"]
    alice = world["tasks"][("demo-001", "annotator")].annotator
    campaign_adjudicators_set(campaign=campaign, usernames=["annotator"], user=world["admin"])
    assert user_may_adjudicate(user=alice, campaign_id=campaign.pk)
    gold_fam_save(campaign=campaign, document=doc, facets=GOLD, base_version=0, user=alice)
    state = document_adjudication_mark(campaign=campaign, document=doc, user=alice)
    assert state.self_adjudicated is True
    view = adjudication_fam_document(campaign=campaign, document=doc, user=alice)
    assert view["you_annotated"] is True and view["self_adjudicated"] is True
    assert view["editable"] is False and view["status_by"] == "annotator"


def test_adjudicators_are_set_exactly_and_checked(world, users):
    campaign = world["campaign"]
    grants = campaign_adjudicators_set(
        campaign=campaign, usernames=["t-researcher", "annotator", "t-researcher"]
    )
    assert [g.user.username for g in grants] == ["annotator", "t-researcher"]
    assert user_may_adjudicate(user=users["researcher"], campaign_id=campaign.pk)
    assert not user_may_adjudicate(user=users["annotator"], campaign_id=campaign.pk)
    assert user_may_adjudicate(user=users["admin"], campaign_id=campaign.pk)  # admins always
    with pytest.raises(ApplicationError, match=r"Unknown user\(s\) \['ghost'\]"):
        campaign_adjudicators_set(campaign=campaign, usernames=["annotator", "ghost"])
    with pytest.raises(ApplicationError, match=r"\['t-norole'\] have no Loupe role"):
        campaign_adjudicators_set(campaign=campaign, usernames=["t-norole"])
    assert [
        g.user.username
        for g in campaign_adjudicators_set(campaign=campaign, usernames=["annotator"])
    ] == ["annotator"]
    assert not user_may_adjudicate(user=users["researcher"], campaign_id=campaign.pk)
    assert campaign_adjudicators_set(campaign=campaign, usernames=[]) == []


def test_the_list_counts_agreement_status_and_gold_version(world):
    campaign, doc, admin = world["campaign"], world["doc"], world["admin"]
    gold_fam_save(campaign=campaign, document=doc, facets=GOLD, base_version=0, user=admin)
    document_adjudication_mark(campaign=campaign, document=doc, user=admin)
    body = adjudication_list(campaign=campaign, user=admin)
    assert body["campaign"]["gold_set"]["slug"] == "adj-gold"
    assert body["agreement_measure"] == "jaccard_union"
    first, second = body["documents"]
    assert first == {
        "id": doc.pk,
        "external_id": "demo-001",
        "category": doc.category,
        "annotators": 2,
        "submitted": 2,
        "agreement": pytest.approx(0.5),  # as worked out in the side-by-side test
        "status": "done",
        "gold_version": 1,
    }
    assert (second["annotators"], second["submitted"], second["agreement"]) == (2, 0, None)
    assert (second["status"], second["gold_version"]) == ("pending", None)


# --- PolyTope ---------------------------------------------------------------------------------


def _submit_marks(tasks, marks: dict[str, list]) -> None:
    """Save each task's errors (``marks`` by annotator) and submit it."""
    for task in tasks:
        task_spans_save(
            task=task, user=task.annotator, errors=marks[task.annotator.username],
            no_errors=False, base_version=1,
        )  # fmt: skip
        task_submit(task=task)


@pytest.fixture
def spans_world(demo, users):
    dataset = Dataset.objects.get(slug="demo")
    user_create(username="annotator2", password="pw-2", role="Annotator")
    campaign = polytope_campaign_create(
        dataset=dataset, slug="adj-pt", name="PT", systems=["demo-abs"], documents=["demo-002"],
        annotators_per_document=2,
    )  # fmt: skip
    tasks = tasks_assign_manual(
        campaign=campaign, assignments=[("demo-002", "annotator"), ("demo-002", "annotator2")]
    )
    half = span(SUMMARY_002, "half", "Inaccuracy Intrinsic", "Number & Time")
    word = span(SUMMARY_002, "silver-backed", "Word Form", "Attribute")
    marks = {"annotator": [half, word], "annotator2": [half]}
    _submit_marks(tasks, marks)
    output = tasks[0].output
    return {
        "campaign": campaign,
        "doc": tasks[0].document,
        "output": output,
        "half": half,
        "word": word,
        "admin": users["admin"],
        "dataset": dataset,
    }


def test_span_gold_with_provenance_409_per_item_and_a_spans_rescoring_once_done(spans_world):
    w = spans_world
    view = adjudication_spans_document(campaign=w["campaign"], document=w["doc"], user=w["admin"])
    (item,) = view["items"]
    assert item["output"] == w["output"].pk and item["system"] == "demo-abs"
    assert [(d["error"]["words"], d["annotators"], d["agree"]) for d in item["diff"]] == [
        ("half", ["annotator", "annotator2"], True),
        ("silver-backed", ["annotator"], False),
    ]
    # Exact span F1 over the pair: one match out of 2 + 1 errors = 2/3.
    assert view["agreement"] == pytest.approx(2 / 3)
    errors = [
        {**w["half"], "provenance": prov("intersection", "annotator", "annotator2")},
        {**w["word"], "provenance": prov("union", "annotator")},
    ]
    body = {"output": w["output"].pk, "base_version": 0, "errors": errors, "no_errors": False}
    ScoringJob.objects.all().delete()
    (row,) = gold_spans_save(
        campaign=w["campaign"], document=w["doc"], items=[body], user=w["admin"]
    )
    assert row.version == 1 and row.annotator is None
    assert row.annotation_set.slug == "adj-pt-gold" and row.annotation_set.scheme == "polytope"
    assert [e["provenance"] for e in row.errors] == [
        prov("intersection", "annotator", "annotator2"),
        prov("union", "annotator"),
    ]
    assert row.errors[0]["severity"] == "Critical"  # derived by the scheme, kept with provenance
    assert not ScoringJob.objects.exists()  # not adjudicated yet: the gold does not count
    # annotator2 did not mark "silver-backed": a provenance naming them is refused.
    lying = {
        **body,
        "base_version": 1,
        "errors": [{**w["word"], "provenance": prov("union", "annotator2")}],
    }
    with pytest.raises(
        ApplicationError, match=rf"output {w['output'].pk}, error 1: .*annotator2 did not mark"
    ):
        gold_spans_save(campaign=w["campaign"], document=w["doc"], items=[lying], user=w["admin"])
    with pytest.raises(ConflictError) as stale:
        gold_spans_save(
            campaign=w["campaign"],
            document=w["doc"],
            items=[{**body, "errors": []}],
            user=w["admin"],
        )
    assert stale.value.extra["output"] == w["output"].pk
    assert stale.value.extra["server"]["version"] == 1
    with pytest.raises(ApplicationError, match="not one of this document's items"):
        gold_spans_save(
            campaign=w["campaign"],
            document=w["doc"],
            items=[{**body, "output": 10**6}],
            user=w["admin"],
        )
    # Complete: the item has gold errors, so the document can be marked done, which rescores.
    assert (
        document_adjudication_mark(
            campaign=w["campaign"], document=w["doc"], user=w["admin"]
        ).status
        == "done"
    )
    assert ScoringJob.objects.get().trigger == "spans"
    listed = adjudication_list(campaign=w["campaign"], user=w["admin"])["documents"]
    assert listed == [
        {
            "id": w["doc"].pk, "external_id": "demo-002", "category": w["doc"].category,
            "annotators": 2, "submitted": 2, "agreement": pytest.approx(2 / 3), "status": "done",
            "gold_version": 1, "gold_items": 1,
        }
    ]  # fmt: skip
    assert SpanAnnotation.objects.filter(annotation_set__slug="adj-pt-gold").count() == 1
    task = Task.objects.filter(campaign=w["campaign"]).first()
    with pytest.raises(ApplicationError, match="is adjudicated"):
        task_reopen(task=task)


def test_polytope_scores_the_campaign_gold_only_while_its_document_is_adjudicated(
    spans_world, django_capture_on_commit_callbacks
):
    w = spans_world
    campaign, doc, output, admin = w["campaign"], w["doc"], w["output"], w["admin"]
    released = AnnotationSet.objects.create(
        dataset=w["dataset"], slug="pt-release", name="Released", kind="released",
        scheme="polytope", read_only=True,
    )  # fmt: skip
    span_annotations_replace(
        annotation_set=released, records=[SpanRecord(output.pk, (), True)], output_ids=[output.pk]
    )
    scoring_pending_run_inline(dataset=w["dataset"], ks=[3])

    def polytope():
        stored = DocumentScore.objects.get(version=output.version, document=doc).metrics
        values = {m: v for m, v in stored.items() if m.startswith("polytope")}
        breakdown = ErrorBreakdown.objects.get(version=output.version, document=doc)
        return values, breakdown.annotation_set.slug

    # The release marks demo-abs's summary of demo-002 "no errors": 100.
    values, source = polytope()
    assert (values["polytope"], values["polytope_critical"], source) == (100.0, 0.0, "pt-release")
    # The gold (the Critical "half" both annotators marked) saved, not adjudicated: no job.
    agreed = {**w["half"], "provenance": prov("agreed", "annotator", "annotator2")}
    item = {"output": output.pk, "base_version": 0, "errors": [agreed], "no_errors": False}
    with django_capture_on_commit_callbacks(execute=False) as saved:
        gold_spans_save(campaign=campaign, document=doc, items=[item], user=admin)
    assert _queued_on_commit(saved) == []
    assert not ScoringJob.objects.filter(trigger="spans", status=JobStatus.QUEUED).exists()
    scoring_pending_run_inline(dataset=w["dataset"], ks=[3])
    assert polytope()[0]["polytope"] == 100.0
    # Done: one spans rescoring, queued on commit; the gold is scored.
    with django_capture_on_commit_callbacks(execute=False) as marked:
        document_adjudication_mark(campaign=campaign, document=doc, user=admin)
    job = ScoringJob.objects.get(trigger="spans", status=JobStatus.QUEUED)
    assert _queued_on_commit(marked) == [job.pk]
    scoring_pending_run_inline(dataset=w["dataset"], ks=[3])
    values, source = polytope()
    # The summary has 19 + 16 + 9 = 44 words (silver-backed is one); one Critical error
    # (penalty 5): 100 * (1 - 5 / 44) = 975 / 11.
    assert source == "adj-pt-gold"
    assert values["polytope"] == pytest.approx(975 / 11)
    assert (values["polytope_penalty"], values["polytope_words"]) == (5.0, 44.0)
    assert (values["polytope_critical"], values["polytope_major"]) == (1.0, 0.0)
    # Reopened: the release's "no errors" counts again, after one more rescoring.
    with django_capture_on_commit_callbacks(execute=False) as reopened:
        document_adjudication_reopen(campaign=campaign, document=doc, user=admin)
    again = ScoringJob.objects.get(trigger="spans", status=JobStatus.QUEUED)
    assert _queued_on_commit(reopened) == [again.pk]
    scoring_pending_run_inline(dataset=w["dataset"], ks=[3])
    values, source = polytope()
    assert (values["polytope"], values["polytope_critical"], source) == (100.0, 0.0, "pt-release")


def test_the_adjudication_pages_and_the_agreement_page_give_one_exact_span_f1(
    demo, users, client_for
):
    """One definition of "span F1, exact": the agreement page's (the core's ``span_f1`` with
    exact matching: errors paired one to one by their offsets, type and label not compared,
    pooled over items and pairs). Annotator marks "half" (Inaccuracy Intrinsic) and
    "silver-backed"; annotator2 marks the same "half" as Inaccuracy Extrinsic. One pair of
    spans matches out of 2 + 1: 2 * 1 / 3 = 0.667 on every page (the adjudication pages said
    0.00: they also compared the type)."""
    from annotation.agreement.models import SpanAgreementRun
    from tests.agreement_helpers import span_run_compute

    dataset = Dataset.objects.get(slug="demo")
    user_create(username="annotator2", password="pw-2", role="Annotator")
    campaign = polytope_campaign_create(
        dataset=dataset, slug="one-f1", name="One F1", systems=["demo-abs"],
        documents=["demo-002"], annotators_per_document=2,
    )  # fmt: skip
    tasks = tasks_assign_manual(
        campaign=campaign, assignments=[("demo-002", "annotator"), ("demo-002", "annotator2")]
    )
    marks = {
        "annotator": [
            span(SUMMARY_002, "half", "Inaccuracy Intrinsic", "Number & Time"),
            span(SUMMARY_002, "silver-backed", "Word Form", "Attribute"),
        ],
        "annotator2": [span(SUMMARY_002, "half", "Inaccuracy Extrinsic", "Number & Time")],
    }
    _submit_marks(tasks, marks)
    run = SpanAgreementRun.objects.filter(campaign=campaign).latest("id")
    assert span_run_compute(run.pk) == "succeeded"
    admin = client_for("admin")
    agreement = admin.get(f"/api/campaigns/{campaign.pk}/agreement/").json()
    (item,) = agreement["result"]["per_item"]
    assert item["span_f1_exact"]["value"] == pytest.approx(2 / 3)
    assert agreement["result"]["overall"]["span_f1_exact"]["value"] == pytest.approx(2 / 3)
    listed = admin.get(f"/api/campaigns/{campaign.pk}/adjudication/").json()
    assert listed["agreement_measure"] == "span_f1_exact"
    (row,) = listed["documents"]
    assert row["agreement"] == pytest.approx(2 / 3)
    document = admin.get(f"/api/campaigns/{campaign.pk}/adjudication/{row['id']}/").json()
    assert (document["agreement_measure"], document["agreement"]) == (
        "span_f1_exact",
        pytest.approx(2 / 3),
    )
