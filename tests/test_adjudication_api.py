"""The adjudication API: who may adjudicate (admins, a campaign's adjudicators who are not
admins), take/union/intersection/edited provenance built from the served diff, 409 on a stale
gold, the leaderboard's FAR following the gold once the document is done (the rescoring done
and reopen queue), done and the annotators' reopen refused, PolyTope items, and clear
refusals."""

from __future__ import annotations

import pytest

from annotation.accounts.services import user_create
from annotation.campaigns.services import (
    campaign_create,
    polytope_campaign_create,
    task_fam_save,
    task_spans_save,
    task_submit,
    tasks_assign_manual,
)
from annotation.corpus.models import Dataset, Document
from scoring.scores.models import JobStatus, ScoringJob
from scoring.scores.services import scoring_pending_run_inline
from tests.test_polytope_campaigns import SUMMARY_002, span

pytestmark = pytest.mark.django_db


def f(groups, label="supported"):
    return {"groups": groups, "label": label, "note": ""}


def gold(groups, label="supported", method=None, *names):
    """A gold facet as the page sends it (no provenance when ``method`` is None)."""
    provenance = {"method": method, "annotators": list(names)} if method else None
    return {"groups": groups, "label": label, "provenance": provenance}


BOTH = ("t-annotator", "t-annotator2")


# demo-001 has three facets; t-annotator and t-annotator2 annotate and submit it.
FIRST = [f([[0]]), f([[3, 4]]), f([[5], [6]])]
SECOND = [f([[0], [1]]), f([[3, 4]]), f([[6]])]


@pytest.fixture
def world(demo, users):
    dataset = Dataset.objects.get(slug="demo")
    second = user_create(username="t-annotator2", password="pw-2", role="Annotator")
    campaign = campaign_create(
        dataset=dataset,
        slug="api-adj",
        name="API adjudication",
        documents=["demo-001", "demo-002"],
        annotators_per_document=2,
        scorers=[],
    )
    other = campaign_create(
        dataset=dataset, slug="other", name="Other", documents=["demo-003"], scorers=[]
    )
    tasks = tasks_assign_manual(
        campaign=campaign,
        assignments=[("demo-001", "t-annotator"), ("demo-001", "t-annotator2")],
    )
    for task, facets in zip(tasks, (FIRST, SECOND), strict=True):
        task_fam_save(task=task, user=task.annotator, facets=facets, base_version=1)
        task_submit(task=task)
    doc = Document.objects.get(dataset=dataset, external_id="demo-001")
    return {
        "dataset": dataset,
        "campaign": campaign,
        "other": other,
        "doc": doc,
        "tasks": tasks,
        "second": second,
        "url": f"/api/campaigns/{campaign.pk}/adjudication/{doc.pk}/",
    }


def test_a_campaign_adjudicator_who_is_not_admin_may_adjudicate_that_campaign_only(
    world, users, client_for
):
    admin, researcher = client_for("admin"), client_for("researcher")
    campaign = world["campaign"]
    grants = f"/api/campaigns/{campaign.pk}/adjudicators/"
    listing = f"/api/campaigns/{campaign.pk}/adjudication/"
    assert researcher.get(listing).status_code == 403
    assert researcher.get(world["url"]).status_code == 403
    assert (
        researcher.post(grants, {"adjudicators": ["t-researcher"]}, format="json").status_code
        == 403
    )
    granted = admin.post(grants, {"adjudicators": ["t-researcher"]}, format="json")
    assert granted.status_code == 200 and granted.json() == {"adjudicators": ["t-researcher"]}
    assert admin.get(grants).json() == {"adjudicators": ["t-researcher"]}
    # The researcher now adjudicates this campaign (read, save, done), not the other one.
    assert researcher.get(listing).status_code == 200
    assert researcher.get(world["url"]).status_code == 200
    body = {"base_version": 0, "facets": [{**x, "provenance": None} for x in FIRST]}
    saved = researcher.put(world["url"], body, format="json")
    assert saved.status_code == 200 and saved.json()["version"] == 1
    assert researcher.post(world["url"] + "done/").json()["status"] == "done"
    other = world["other"]
    other_doc = Document.objects.get(external_id="demo-003")
    assert researcher.get(f"/api/campaigns/{other.pk}/adjudication/").status_code == 403
    assert (
        researcher.get(f"/api/campaigns/{other.pk}/adjudication/{other_doc.pk}/").status_code == 403
    )
    # An annotator of the campaign who is granted adjudicator: allowed, and recorded as such.
    annotator = client_for("annotator")
    assert annotator.get(listing).status_code == 403
    admin.post(grants, {"adjudicators": ["t-annotator", "t-researcher"]}, format="json")
    assert annotator.post(world["url"] + "reopen/").json()["status"] == "pending"
    done = annotator.post(world["url"] + "done/").json()
    assert (done["status"], done["status_by"], done["self_adjudicated"]) == (
        "done",
        "t-annotator",
        True,
    )
    # Unknown campaigns and documents outside the campaign are 404 (for admins; others 403).
    assert admin.get("/api/campaigns/999999/adjudication/").status_code == 404
    assert (
        admin.get(f"/api/campaigns/{campaign.pk}/adjudication/{other_doc.pk}/").status_code == 404
    )
    assert client_for(None).get(listing).status_code == 401
    refused = admin.post(grants, {"adjudicators": ["ghost"]}, format="json")
    assert refused.status_code == 400 and "Unknown user(s) ['ghost']" in refused.json()["message"]
    assert admin.get(grants).json() == {"adjudicators": ["t-annotator", "t-researcher"]}


def test_gold_from_the_served_diff_with_provenance_then_409_on_a_stale_copy(world, client_for):
    admin = client_for("admin")
    body = admin.get(world["url"]).json()
    assert body["kind"] == "fam" and body["gold"]["version"] == 0
    assert [a["annotator"] for a in body["annotations"]] == ["t-annotator", "t-annotator2"]
    diff = body["diff"]
    # Facet 0: {0} vs {0} or {1}; facet 1 agreed; facet 2: {5} or {6} vs {6}.
    assert (diff[0]["union"], diff[0]["intersection"]) == ([[0], [1]], [[0]])
    assert diff[1]["agree"] is True
    assert (diff[2]["union"], diff[2]["intersection"]) == ([[5], [6]], [[6]])
    facets = [
        gold(diff[0]["union"], "supported", "union", *BOTH),
        gold(SECOND[1]["groups"], "supported", "take", "t-annotator2"),
        gold(diff[2]["intersection"], "supported", "intersection", *BOTH),
    ]
    saved = admin.put(world["url"], {"base_version": 0, "facets": facets}, format="json")
    assert saved.status_code == 200, saved.content
    gold_body = saved.json()
    assert gold_body["version"] == 1 and gold_body["updated_by"] == "t-admin"
    methods = [x["provenance"]["method"] for x in gold_body["facets"]]
    assert methods == ["union", "take", "intersection"]
    # An edit by hand: facet 2 becomes {5, 6}, provenance edited (from the intersection).
    edited = [*gold_body["facets"][:2], gold([[5, 6]], "supported", "edited", *BOTH)]
    again = admin.put(world["url"], {"base_version": 1, "facets": edited}, format="json").json()
    assert again["version"] == 2 and again["facets"][2]["provenance"]["method"] == "edited"
    # A second tab still on version 1 is refused with the server's gold, nothing overwritten.
    stale = admin.put(world["url"], {"base_version": 1, "facets": facets}, format="json")
    assert stale.status_code == 409
    server = stale.json()["extra"]["server"]
    assert server["version"] == 2 and server["facets"][2]["groups"] == [[5, 6]]
    assert admin.get(world["url"]).json()["gold"]["version"] == 2
    # A provenance that does not hold is a 400 naming the facet.
    lie = [*edited[:2], gold([[5]], "supported", "take", "t-annotator2")]
    refused = admin.put(world["url"], {"base_version": 2, "facets": lie}, format="json")
    assert refused.status_code == 400
    assert refused.json()["message"].startswith("facet 2: the provenance says take of t-annotator2")
    assert refused.json()["extra"] == {"facet": 2}
    missing = admin.put(world["url"], {"base_version": 2}, format="json")
    assert missing.status_code == 400 and "base_version and facets" in missing.json()["message"]


def test_the_leaderboard_document_uses_the_gold_fam_once_adjudicated_until_reopened(
    world, client_for
):
    scoring_pending_run_inline(dataset=world["dataset"], ks=[3])
    view = "/api/datasets/demo/systems/lead-3/documents/demo-001/"
    researcher, admin = client_for("researcher"), client_for("admin")

    def shown():
        body = researcher.get(view, {"k": 3}).json()
        return body["fam"]["annotation_set"], body["scores"]["far"], body["scores_stale"]

    # The demo's gold FAM: facets [0] | [3, 4] | [5] or [6]; lead-3 extracts 0, 1, 2: 1/3.
    assert shown() == ("gold", pytest.approx(1 / 3), False)
    facets = [
        gold([[0], [1]], "supported", "union", *BOTH),
        gold([[1, 2]], "supported", "edited"),
        gold([], "noise"),
    ]
    saved = admin.put(world["url"], {"base_version": 0, "facets": facets}, format="json")
    assert saved.status_code == 200
    # Saved but not adjudicated: no rescoring, and the document still shows the demo's FAM.
    assert not ScoringJob.objects.filter(trigger="fams").exists()
    assert shown() == ("gold", pytest.approx(1 / 3), False)
    assert admin.post(world["url"] + "done/").json()["status"] == "done"
    assert ScoringJob.objects.filter(trigger="fams", status=JobStatus.QUEUED).count() == 1
    # The gold FAM is shown at once; its FAR is stale until the job has run.
    assert shown() == ("api-adj-gold", pytest.approx(1 / 3), True)
    scoring_pending_run_inline(dataset=world["dataset"], ks=[3])
    after = researcher.get(view, {"k": 3}).json()
    # Gold: [0] or [1] | [1, 2] | noise: both supported facets are covered by 0, 1, 2: 2/2.
    assert after["fam"]["source"] == "gold"
    assert [[g["sentences"] for g in x["groups"]] for x in after["fam"]["facets"]] == [
        [[0], [1]],
        [[1, 2]],
        [],
    ]
    assert shown() == ("api-adj-gold", pytest.approx(1.0), False)
    # Reopened: the demo's FAM counts again once the rescoring reopening queued has run.
    assert admin.post(world["url"] + "reopen/").json()["status"] == "pending"
    assert ScoringJob.objects.filter(trigger="fams", status=JobStatus.QUEUED).count() == 1
    scoring_pending_run_inline(dataset=world["dataset"], ks=[3])
    assert shown() == ("gold", pytest.approx(1 / 3), False)


def test_done_refuses_an_undecided_gold_and_then_annotators_cannot_reopen(world, client_for):
    admin = client_for("admin")
    undecided = [{**FIRST[0], "provenance": None}, {**FIRST[1], "provenance": None}, f([])]
    admin.put(world["url"], {"base_version": 0, "facets": undecided}, format="json")
    refused = admin.post(world["url"] + "done/")
    assert refused.status_code == 400 and refused.json()["extra"] == {"undecided_facets": [2]}
    decided = [*undecided[:2], f([], "no_support")]
    admin.put(world["url"], {"base_version": 1, "facets": decided}, format="json")
    done = admin.post(world["url"] + "done/").json()
    assert (done["status"], done["status_by"], done["self_adjudicated"]) == (
        "done",
        "t-admin",
        False,
    )
    listed = admin.get(f"/api/campaigns/{world['campaign'].pk}/adjudication/").json()
    assert [(d["external_id"], d["status"], d["gold_version"]) for d in listed["documents"]] == [
        ("demo-001", "done", 2),
        ("demo-002", "pending", None),
    ]
    task = world["tasks"][0]
    reopen = client_for("annotator").post(f"/api/tasks/{task.pk}/reopen/")
    assert reopen.status_code == 400 and "'demo-001' is adjudicated" in reopen.json()["message"]
    # The gold is read-only until the adjudication is reopened.
    page = admin.get(world["url"]).json()
    assert page["status"] == "done" and page["editable"] is False
    locked = admin.put(world["url"], {"base_version": 2, "facets": decided}, format="json")
    assert locked.status_code == 400 and "reopen its adjudication" in locked.json()["message"]
    assert admin.post(world["url"] + "reopen/").json()["status"] == "pending"
    assert client_for("annotator").post(f"/api/tasks/{task.pk}/reopen/").status_code == 200


def test_polytope_items_are_adjudicated_per_output(demo, users, client_for):
    dataset = Dataset.objects.get(slug="demo")
    user_create(username="t-annotator2", password="pw-2", role="Annotator")
    campaign = polytope_campaign_create(
        dataset=dataset, slug="api-pt", name="PT", systems=["demo-abs"], documents=["demo-002"],
        annotators_per_document=2, system_blind=True,
    )  # fmt: skip
    tasks = tasks_assign_manual(
        campaign=campaign, assignments=[("demo-002", "t-annotator"), ("demo-002", "t-annotator2")]
    )
    half = span(SUMMARY_002, "half", "Inaccuracy Intrinsic", "Number & Time")
    for task in tasks:
        task_spans_save(
            task=task, user=task.annotator, errors=[half], no_errors=False, base_version=1
        )
        task_submit(task=task)
    doc = tasks[0].document
    url = f"/api/campaigns/{campaign.pk}/adjudication/{doc.pk}/"
    admin = client_for("admin")
    body = admin.get(url).json()
    assert body["kind"] == "polytope" and body["agreement"] == 1.0  # the same one error
    (item,) = body["items"]
    assert item["system"] == "demo-abs" and item["system_name"]  # admins see it
    assert item["diff"][0]["agree"] is True and item["gold"]["version"] == 0
    agreed = {**item["diff"][0]["error"], "provenance": {"method": "agreed", "annotators": BOTH}}
    put = {
        "items": [
            {"output": item["output"], "base_version": 0, "errors": [agreed], "no_errors": False}
        ]
    }
    saved = admin.put(url, put, format="json")
    assert saved.status_code == 200, saved.content
    (gold,) = saved.json()["items"]
    assert gold["output"] == item["output"] and gold["version"] == 1
    assert gold["errors"][0]["provenance"]["method"] == "agreed"
    # Not adjudicated yet: the gold does not count for scoring, so nothing is rescored.
    assert not ScoringJob.objects.filter(trigger="spans").exists()
    stale = admin.put(url, put | {"items": [{**put["items"][0], "errors": []}]}, format="json")
    assert stale.status_code == 409 and stale.json()["extra"]["output"] == item["output"]
    assert stale.json()["extra"]["server"]["version"] == 1
    wrong_shape = admin.put(url, {"base_version": 0, "facets": []}, format="json")
    assert wrong_shape.status_code == 400 and "saved as items" in wrong_shape.json()["message"]
    # A non-admin adjudicator does not see which system a system-blind item comes from.
    admin.post(
        f"/api/campaigns/{campaign.pk}/adjudicators/",
        {"adjudicators": ["t-researcher"]},
        format="json",
    )
    blind = client_for("researcher").get(url).json()
    assert blind["items"][0]["system"] is None and blind["items"][0]["system_name"] is None
    assert admin.post(url + "done/").json()["status"] == "done"
    assert ScoringJob.objects.filter(trigger="spans", status=JobStatus.QUEUED).count() == 1
