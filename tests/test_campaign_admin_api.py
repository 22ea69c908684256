"""Campaign administration API: create (document choice, seeded samples, annotators, every
refusal), detail and edits, states, adding annotators (overlap top-up), reassigning a task with
its draft, and the users list."""

from __future__ import annotations

import random

import pytest

from annotation.accounts.services import user_create
from annotation.campaigns.models import Campaign, Task
from annotation.campaigns.services import (
    campaign_create,
    polytope_campaign_create,
    task_fam_save,
    task_spans_save,
    task_submit,
    tasks_assign_manual,
)
from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSet, Fam, FamRevision
from annotation.spans.models import SpanAnnotation, SpanAnnotationRevision

pytestmark = pytest.mark.django_db

# The demo's documents in dataset order, with their categories (fixtures/demo/dataset.jsonl).
DEMO = ["demo-001", "demo-002", "demo-003", "demo-004", "demo-005", "demo-006"]
CATEGORY = {"demo-001": "low", "demo-002": "low", "demo-003": "low", "demo-004": "noise"}
CATEGORY |= {"demo-005": "low", "demo-006": "high"}


@pytest.fixture
def admin(demo, client_for):
    for name in ("ann-a", "ann-b", "ann-c", "ann-d"):
        user_create(username=name, password="pw", role="Annotator")
    return client_for("admin")


def create(admin, **fields):
    body = {"dataset": "demo", "slug": "c", "name": "C", "scorers": [], **fields}
    return admin.post("/api/campaigns/create/", body, format="json")


def docs_of(campaign_id: int) -> list[str]:
    campaign = Campaign.objects.get(pk=campaign_id)
    return list(campaign.documents.order_by("position", "id").values_list("external_id", flat=True))


def pairs_of(campaign_id: int) -> list[tuple[str, str]]:
    return sorted(
        Task.objects.filter(campaign_id=campaign_id).values_list(
            "document__external_id", "annotator__username"
        )
    )


# --- creation -----------------------------------------------------------------------------


def test_create_by_categories_with_instructions_and_the_detail_it_answers(admin):
    made = create(admin, categories=["high", "noise"], instructions="Mark every facet.\nTwice.")
    assert made.status_code == 201, made.content
    body = made.json()
    assert docs_of(body["id"]) == ["demo-004", "demo-006"]
    assert body["document_count"] == 2 and body["sample"] is None
    assert body["instructions"] == "Mark every facet.\nTwice."
    assert (body["status"], body["status_label"]) == ("open", "Annotating")
    assert body["statuses_allowed"] == ["adjudication"]
    assert body["annotators"] == [] and body["tasks_created"] == 0 and body["notes"] == []
    assert body["dataset"] == "demo" and body["kind"] == "fam"
    detail = admin.get(f"/api/campaigns/{body['id']}/").json()
    assert {k: v for k, v in detail.items() if k not in ("tasks_created", "notes")} == {
        k: v for k, v in body.items() if k not in ("tasks_created", "notes")
    }


def test_create_with_annotators_assigns_them_round_robin_with_the_overlap(admin):
    made = create(admin, annotators=["ann-a", "ann-b", "ann-c"], annotators_per_document=2)
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["tasks_created"] == 12 and body["annotators"] == ["ann-a", "ann-b", "ann-c"]
    # Document i goes to annotators (2i + j) mod 3 for j = 0, 1 (a=0, b=1, c=2):
    # 001 a,b  002 c,a  003 b,c  004 a,b  005 c,a  006 b,c
    expected = {
        "demo-001": "ab",
        "demo-002": "ca",
        "demo-003": "bc",
        "demo-004": "ab",
        "demo-005": "ca",
        "demo-006": "bc",
    }
    assert pairs_of(body["id"]) == sorted(
        (doc, f"ann-{letter}") for doc, letters in expected.items() for letter in letters
    )


def test_a_polytope_campaign_by_categories_with_annotators(admin):
    made = create(
        admin,
        kind="polytope",
        systems=["demo-abs"],
        categories=["noise"],
        annotators=["ann-a"],
        instructions="Spans only.",
    )
    assert made.status_code == 201, made.content
    body = made.json()
    assert (body["kind"], body["systems"], body["instructions"]) == (
        "polytope",
        ["demo-abs"],
        "Spans only.",
    )
    assert pairs_of(body["id"]) == [("demo-004", "ann-a")]


def sample_rule(size: int, seed: int, categories=None) -> list[str]:
    """The sampling rule as the create API documents it, applied to the demo's order."""
    pool = [d for d in DEMO if categories is None or CATEGORY[d] in categories]
    return [pool[i] for i in sorted(random.Random(seed).sample(range(len(pool)), size))]


def test_a_seeded_sample_is_reproducible_and_follows_the_documented_rule(admin):
    first = create(admin, slug="s1", sample={"size": 3, "seed": 42}).json()
    second = create(admin, slug="s2", sample={"size": 3, "seed": 42}).json()
    assert first["sample"] == {"size": 3, "seed": 42, "categories": []}
    assert docs_of(first["id"]) == docs_of(second["id"]) == sample_rule(3, 42)
    # Seeds that pick other documents exist, and each is reproduced too.
    others = {tuple(sample_rule(3, seed)) for seed in range(20)}
    assert len(others) > 1
    third = create(admin, slug="s3", sample={"size": 3, "seed": 7}).json()
    assert docs_of(third["id"]) == sample_rule(3, 7)
    # Within categories: the pool is the four low-abstraction documents.
    low = create(admin, slug="s4", sample={"size": 2, "seed": 5, "categories": ["low"]}).json()
    assert low["sample"] == {"size": 2, "seed": 5, "categories": ["low"]}
    assert docs_of(low["id"]) == sample_rule(2, 5, ["low"])
    assert all(CATEGORY[d] == "low" for d in docs_of(low["id"]))


def test_a_sample_without_a_seed_records_the_one_drawn(admin):
    body = create(admin, slug="s1", sample={"size": 4}).json()
    seed = body["sample"]["seed"]
    assert isinstance(seed, int)
    again = create(admin, slug="s2", sample={"size": 4, "seed": seed}).json()
    assert docs_of(again["id"]) == docs_of(body["id"]) == sample_rule(4, seed)


@pytest.fixture
def sparse(demo):
    """A second dataset with two low-abstraction documents only."""
    dataset = Dataset.objects.create(slug="sparse", name="Sparse")
    for position, external_id in enumerate(("s-1", "s-2")):
        document = Document.objects.create(
            dataset=dataset,
            external_id=external_id,
            position=position,
            sentences=["One.", "Two."],
            category="low",
        )
        Reference.objects.create(document=document, sentences=["One."])
    return dataset


REFUSALS = [
    # (fields, field named, message)
    (
        {"documents": ["demo-001"], "categories": ["low"]},
        "documents",
        "Choose the documents one way: a list of documents, categories or a sample; got "
        "documents and categories.",
    ),
    (
        {"categories": ["low"], "sample": {"size": 1, "seed": 1}},
        "categories",
        "Choose the documents one way: a list of documents, categories or a sample; got "
        "categories and sample.",
    ),
    (
        {"documents": []},
        "documents",
        "documents is an empty list: give at least one document id, or leave it out to "
        "annotate every document.",
    ),
    (
        {"documents": ["demo-001", "demo-002", "demo-001"]},
        "documents",
        "Documents listed twice: ['demo-001'].",
    ),
    (
        {"documents": ["demo-001", "x-9", "x-1"]},
        "documents",
        "Unknown documents in 'demo': ['x-9', 'x-1']",
    ),
    (
        {"categories": ["low", "middle"]},
        "categories",
        "Unknown categories in categories: ['middle']; choose from ['noise', 'low', 'high'].",
    ),
    (
        {"categories": []},
        "categories",
        "categories is empty: choose at least one of ['noise', 'low', 'high'], or leave it out.",
    ),
    (
        {"sample": {"size": 7, "seed": 1}},
        "sample.size",
        "A sample of 7 documents was asked for, but 'demo' has only 6 document(s).",
    ),
    (
        {"sample": {"size": 2, "seed": 1, "categories": ["high"]}},
        "sample.size",
        "A sample of 2 documents was asked for, but 'demo' has only 1 document(s) in the "
        "categories ['high'].",
    ),
    (
        {"sample": {"size": 1, "seed": 1, "categories": ["odd"]}},
        "sample.categories",
        "Unknown categories in sample.categories: ['odd']; choose from ['noise', 'low', 'high'].",
    ),
    (
        {"reference_position": 1},
        "reference_position",
        "Documents without reference 1: ['demo-001', 'demo-002', 'demo-004', 'demo-005', "
        "'demo-006']",
    ),
    (
        {"annotators": ["ann-a", "ghost", "researcher", "ann-a"]},
        "annotators",
        "Refused annotators: listed twice: ['ann-a']; unknown users: ['ghost']; not annotators "
        "(no Annotator role): ['researcher'].",
    ),
    (
        {"annotators": ["ann-a", "ann-b"], "annotators_per_document": 3},
        "annotators_per_document",
        "3 annotators per document, but only 2 annotator(s) are given: add annotators or lower "
        "the overlap.",
    ),
    (
        {"kind": "polytope", "systems": ["demo-abs"], "scorers": ["tfidf"]},
        "scorers",
        "A PolyTope campaign has no suggestions: give no scorers.",
    ),
    (
        {"kind": "polytope"},
        "systems",
        "A PolyTope campaign needs at least one system (a list of slugs).",
    ),
    (
        {"kind": "polytope", "systems": ["demo-abs", "ghost"]},
        "systems",
        "Unknown systems: ['ghost'].",
    ),
    (
        {"systems": ["demo-abs"]},
        "systems",
        "A FAM campaign annotates documents: give no systems.",
    ),
    ({"dataset": "nowhere"}, "dataset", "Unknown dataset 'nowhere'."),
    ({"slug": "demo-fam"}, "slug", "A campaign 'demo-fam' already exists; choose another slug."),
]


@pytest.mark.parametrize(("fields", "field", "message"), REFUSALS)
def test_every_refused_choice_names_its_field_and_writes_nothing(admin, fields, field, message):
    campaign_create(dataset=Dataset.objects.get(slug="demo"), slug="demo-fam", name="D")
    before = (Campaign.objects.count(), AnnotationSet.objects.count(), Task.objects.count())
    refused = create(admin, **fields)
    assert refused.status_code == 400, refused.content
    body = refused.json()
    assert body["message"] == message
    assert body["extra"]["field"] == field and body["extra"]["fields"] == {field: [message]}
    after = (Campaign.objects.count(), AnnotationSet.objects.count(), Task.objects.count())
    assert after == before


def test_no_document_in_the_chosen_categories_is_refused(admin, sparse):
    refused = create(admin, dataset="sparse", categories=["noise", "high"])
    assert refused.status_code == 400
    assert refused.json()["message"] == (
        "No document of 'sparse' is in the categories ['noise', 'high']."
    )


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"sample": {"size": 0, "seed": 1}}, "sample"),
        ({"sample": {"size": 2, "seed": "abc"}}, "sample"),
        ({"top_k": 21}, "top_k"),
        ({"annotators_per_document": 0}, "annotators_per_document"),
        ({"kind": "ranking"}, "kind"),
        ({"scorers": ["magic"]}, "scorers"),
        ({"instructions": "x" * 20001}, "instructions"),
    ],
)
def test_badly_typed_fields_are_refused_under_their_names(admin, fields, field):
    refused = create(admin, **fields)
    assert refused.status_code == 400, refused.content
    assert field in refused.json()["extra"]["fields"]
    assert not Campaign.objects.filter(slug="c").exists()


def test_adjudicators_are_stored_at_creation_and_may_read_the_campaign(admin, client_for):
    made = create(admin, adjudicators=["researcher"]).json()
    assert made["adjudicators"] == ["researcher"] and made["notes"] == []
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    reader = APIClient()
    reader.force_authenticate(get_user_model().objects.get(username="researcher"))
    assert reader.get(f"/api/campaigns/{made['id']}/").status_code == 200
    # Another researcher is not one of them.
    assert client_for("researcher").get(f"/api/campaigns/{made['id']}/").status_code == 403
    unknown = create(admin, slug="c2", adjudicators=["ghost"])
    assert unknown.status_code == 400 and unknown.json()["extra"]["field"] == "adjudicators"
    assert "ghost" in unknown.json()["message"]
    assert not Campaign.objects.filter(slug="c2").exists()


# --- detail, edits and states ---------------------------------------------------------------


def test_patch_changes_the_name_and_the_instructions_annotators_read(admin, client_for):
    made = create(admin, documents=["demo-001"], annotators=["annotator"]).json()
    url = f"/api/campaigns/{made['id']}/"
    changed = admin.patch(
        url, {"name": "Renamed", "instructions": "Read the source first."}, format="json"
    )
    assert changed.status_code == 200, changed.content
    assert (changed.json()["name"], changed.json()["instructions"]) == (
        "Renamed",
        "Read the source first.",
    )
    task = Task.objects.get(campaign_id=made["id"])
    from rest_framework.test import APIClient

    annotator = APIClient()
    annotator.force_authenticate(task.annotator)
    body = annotator.get(f"/api/tasks/{task.pk}/").json()
    assert body["campaign"]["instructions"] == "Read the source first."
    blank = admin.patch(url, {"name": "   "}, format="json")
    assert blank.status_code == 400 and "name" in blank.json()["extra"]["fields"]
    assert admin.patch(url, {"instructions": ""}, format="json").json()["instructions"] == ""
    assert Campaign.objects.get(pk=made["id"]).name == "Renamed"


def test_states_move_annotating_adjudicating_done_and_done_is_final(admin):
    made = create(admin, documents=["demo-001"]).json()
    url = f"/api/campaigns/{made['id']}/status/"

    def move(status):
        return admin.post(url, {"status": status}, format="json")

    skipped = move("closed")
    assert skipped.status_code == 400
    assert skipped.json()["message"] == (
        "A campaign that is Annotating can move to Adjudicating (adjudication), not to Done."
    )
    assert skipped.json()["extra"]["allowed"] == ["adjudication"]
    moved = move("adjudication").json()
    assert (moved["status"], moved["status_label"]) == ("adjudication", "Adjudicating")
    assert moved["statuses_allowed"] == ["closed", "open"]
    assert move("adjudication").json()["status"] == "adjudication"  # asking again: no change
    assert move("open").json()["status_label"] == "Annotating"
    move("adjudication")
    done = move("closed").json()
    assert (done["status"], done["status_label"], done["statuses_allowed"]) == (
        "closed",
        "Done",
        [],
    )
    final = move("open")
    assert final.status_code == 400
    assert final.json()["message"] == "The campaign is Done: that state is final."
    unknown = move("paused")
    assert unknown.status_code == 400 and "status" in unknown.json()["extra"]["fields"]
    assert Campaign.objects.get(pk=made["id"]).status == "closed"


# --- adding annotators ----------------------------------------------------------------------


def test_added_annotators_top_up_the_documents_that_lack_annotators(admin):
    dataset = Dataset.objects.get(slug="demo")
    campaign = campaign_create(
        dataset=dataset,
        slug="top",
        name="Top",
        scorers=[],
        annotators_per_document=2,
        documents=["demo-001", "demo-002", "demo-004"],
    )
    # demo-001 is full (a, b), demo-002 lacks one (a), demo-004 lacks two.
    tasks_assign_manual(
        campaign=campaign,
        assignments=[("demo-001", "ann-a"), ("demo-001", "ann-b"), ("demo-002", "ann-a")],
    )
    url = f"/api/campaigns/{campaign.pk}/annotators/"
    added = admin.post(url, {"annotators": ["ann-c", "ann-d"]}, format="json")
    assert added.status_code == 201, added.content
    # Turns: c takes demo-002 (the turn passes to d); demo-004 needs two: d, then c.
    assert added.json()["created"] == 3
    assert sorted(
        (t["document"]["external_id"], t["annotator"]) for t in added.json()["tasks"]
    ) == [
        ("demo-002", "ann-c"),
        ("demo-004", "ann-c"),
        ("demo-004", "ann-d"),
    ]
    assert Fam.objects.filter(annotation_set=campaign.annotation_set).count() == 6
    again = admin.post(url, {"annotators": ["ann-c", "ann-d"]}, format="json")
    assert again.status_code == 400
    assert again.json()["message"] == (
        "Nothing to give them: every item already has 2 annotator(s) (annotators_per_document), "
        "or these annotators already work on the items that lack some."
    )
    assert Task.objects.filter(campaign=campaign).count() == 6


def test_a_polytope_top_up_counts_annotators_per_item(admin):
    dataset = Dataset.objects.get(slug="demo")
    campaign = polytope_campaign_create(
        dataset=dataset,
        slug="pt-top",
        name="PT",
        systems=["demo-abs", "lead-3"],
        documents=["demo-002"],
        annotators_per_document=2,
    )
    # a has both items; b only lead-3's: demo-abs's item lacks one annotator.
    tasks_assign_manual(
        campaign=campaign, assignments=[("demo-002", "ann-a"), ("demo-002", "ann-b", "lead-3")]
    )
    added = admin.post(
        f"/api/campaigns/{campaign.pk}/annotators/",
        {"annotators": ["ann-b", "ann-c"]},
        format="json",
    )
    assert added.status_code == 201, added.content
    assert [(t["annotator"], t["output"]["system"]["slug"]) for t in added.json()["tasks"]] == [
        ("ann-b", "demo-abs")
    ]


def test_adding_annotators_is_refused_clearly(admin):
    made = create(admin, documents=["demo-001"]).json()
    url = f"/api/campaigns/{made['id']}/annotators/"
    wrong = admin.post(url, {"annotators": ["researcher", "nobody"]}, format="json")
    assert wrong.status_code == 400
    assert wrong.json()["message"] == (
        "Refused annotators: unknown users: ['nobody']; not annotators (no Annotator role): "
        "['researcher']."
    )
    empty = admin.post(url, {"annotators": []}, format="json")
    assert empty.status_code == 400 and "annotators" in empty.json()["extra"]["fields"]
    admin.post(f"/api/campaigns/{made['id']}/status/", {"status": "adjudication"}, format="json")
    late = admin.post(url, {"annotators": ["ann-a"]}, format="json")
    assert late.status_code == 400
    assert late.json()["message"] == (
        "Annotators can be added only while the campaign is Annotating; it is Adjudicating."
    )
    assert not Task.objects.filter(campaign_id=made["id"]).exists()


# --- reassigning ----------------------------------------------------------------------------


def facets(task, groups):
    n = task.document.references.get(position=0).facet_count
    empty = {"groups": [], "label": "supported", "note": ""}
    return [{"groups": groups, "label": "supported", "note": ""}] + [empty] * (n - 1)


def test_a_task_moves_to_another_annotator_with_its_draft_and_history(admin, client_for):
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    users = {u.username: u for u in get_user_model().objects.filter(username__startswith="ann-")}
    campaign = campaign_create(
        dataset=Dataset.objects.get(slug="demo"), slug="re", name="Re", scorers=[]
    )
    task, other = tasks_assign_manual(
        campaign=campaign, assignments=[("demo-001", "ann-a"), ("demo-002", "ann-b")]
    )
    task_fam_save(task=task, user=users["ann-a"], facets=facets(task, [[0]]), base_version=1)
    task_fam_save(task=task, user=users["ann-a"], facets=facets(task, [[1]]), base_version=2)
    moved = admin.post(f"/api/tasks/{task.pk}/reassign/", {"annotator": "ann-b"}, format="json")
    assert moved.status_code == 200, moved.content
    assert (moved.json()["annotator"], moved.json()["status"]) == ("ann-b", "in_progress")
    fam = Fam.objects.get(annotation_set=campaign.annotation_set, document=task.document)
    assert (fam.annotator.username, fam.version, fam.facets[0]["groups"]) == ("ann-b", 3, [[1]])
    authors = list(FamRevision.objects.filter(fam=fam).values_list("version", "author__username"))
    assert sorted(authors) == [(2, "ann-a"), (3, "ann-a")]
    old, new = APIClient(), APIClient()
    old.force_authenticate(users["ann-a"])
    new.force_authenticate(users["ann-b"])
    body = new.get(f"/api/tasks/{task.pk}/").json()
    assert body["fam"]["version"] == 3 and body["editable"] is True
    saved = new.put(
        f"/api/tasks/{task.pk}/fam/",
        {"base_version": 3, "facets": facets(task, [[0], [1]])},
        format="json",
    )
    assert saved.status_code == 200 and saved.json()["version"] == 4
    refused = old.put(
        f"/api/tasks/{task.pk}/fam/",
        {"base_version": 4, "facets": facets(task, [[2]])},
        format="json",
    )
    assert refused.status_code == 404  # no longer theirs: not even visible
    assert [t["id"] for t in new.get("/api/tasks/").json()["results"]] == [task.pk, other.pk]
    assert old.get("/api/tasks/").json()["total"] == 0


def test_a_polytope_draft_moves_with_its_task(admin):
    from django.contrib.auth import get_user_model

    campaign = polytope_campaign_create(
        dataset=Dataset.objects.get(slug="demo"),
        slug="pt-re",
        name="PT",
        systems=["demo-abs"],
        documents=["demo-002"],
    )
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-002", "ann-a")])
    author = get_user_model().objects.get(username="ann-a")
    task_spans_save(task=task, user=author, errors=[], no_errors=True, base_version=1)
    moved = admin.post(f"/api/tasks/{task.pk}/reassign/", {"annotator": "ann-c"}, format="json")
    assert moved.status_code == 200, moved.content
    row = SpanAnnotation.objects.get(annotation_set=campaign.annotation_set)
    assert (row.annotator.username, row.no_errors, row.version) == ("ann-c", True, 2)
    revision = SpanAnnotationRevision.objects.get(annotation=row)
    assert revision.author.username == "ann-a"


def test_reassigning_is_refused_clearly(admin):
    from django.contrib.auth import get_user_model

    campaign = campaign_create(
        dataset=Dataset.objects.get(slug="demo"), slug="re", name="Re", scorers=[]
    )
    task, done, other = tasks_assign_manual(
        campaign=campaign,
        assignments=[("demo-001", "ann-a"), ("demo-002", "ann-a"), ("demo-001", "ann-b")],
    )
    author = get_user_model().objects.get(username="ann-a")
    complete = [{"groups": [[0]], "label": "supported", "note": ""}] + [
        {"groups": [], "label": "no_support", "note": ""}
    ] * (done.document.references.get(position=0).facet_count - 1)
    task_fam_save(task=done, user=author, facets=complete, base_version=1)
    task_submit(task=done)

    def reassign(which, annotator):
        response = admin.post(
            f"/api/tasks/{which.pk}/reassign/", {"annotator": annotator}, format="json"
        )
        assert response.status_code == 400, response.content
        return response.json()["message"]

    assert reassign(done, "ann-c") == (
        f"Task {done.pk} is submitted: a submitted task keeps its annotator (ann-a); only tasks "
        "not yet submitted can be reassigned."
    )
    assert reassign(task, "ghost") == "Refused annotator: unknown users: ['ghost']."
    assert reassign(task, "researcher") == (
        "Refused annotator: not annotators (no Annotator role): ['researcher']."
    )
    assert reassign(task, "ann-b") == ("ann-b already has document 'demo-001' in this campaign.")
    assert reassign(task, "ann-a") == f"Task {task.pk} is already ann-a's."
    Campaign.objects.filter(pk=campaign.pk).update(status="closed")
    assert reassign(task, "ann-c") == "The campaign is Done: its tasks can no longer be reassigned."
    assert Task.objects.get(pk=task.pk).annotator.username == "ann-a"
    assert Task.objects.get(pk=other.pk).annotator.username == "ann-b"


# --- users ----------------------------------------------------------------------------------


def test_the_users_list_filters_by_role_and_sorts_by_username(admin, users):
    annotators = admin.get("/api/users/?role=Annotator").json()
    assert [u["username"] for u in annotators] == [
        "ann-a",
        "ann-b",
        "ann-c",
        "ann-d",
        "annotator",
        "annotator-b",
        "t-annotator",
    ]
    assert all(u["roles"] == ["Annotator"] for u in annotators)
    everyone = {u["username"]: u["roles"] for u in admin.get("/api/users/").json()}
    assert everyone["t-admin"] == ["Admin"] and everyone["researcher"] == ["Researcher"]
    assert "t-norole" not in everyone
    wrong = admin.get("/api/users/?role=Boss")
    assert wrong.status_code == 400 and "role" in wrong.json()["extra"]["fields"]
