"""Adjudication and campaign fixes: an annotator-adjudicator cannot read peers' work on a
document they have not submitted, annotators' saves cannot forge a provenance, a campaign with a
gold set cannot be deleted, the document names its neighbours, a gold PUT with both shapes is
refused, and two creates of one slug at once give the clear slug error."""

from __future__ import annotations

import threading

import pytest
from django.db.models import ProtectedError

from annotation.accounts.services import user_create
from annotation.adjudication.models import CampaignGold
from annotation.adjudication.services import campaign_adjudicators_set
from annotation.campaigns.models import Campaign
from annotation.campaigns.services import (
    campaign_create,
    polytope_campaign_create,
    task_fam_save,
    task_spans_save,
    task_submit,
    tasks_assign_manual,
)
from annotation.corpus.models import Dataset, Document
from annotation.fams.models import AnnotationSet, Fam
from annotation.spans.models import SpanAnnotation
from config.exceptions import ApplicationError
from tests.test_polytope_campaigns import SUMMARY_002, span


def f(groups, label="supported"):
    return {"groups": groups, "label": label, "note": ""}


FORGED = {"method": "agreed", "annotators": ["t-annotator", "t-annotator2"]}
FACETS = [f([[0]]), f([[3, 4]]), f([[5], [6]])]


@pytest.fixture
def world(demo, users):
    """demo-001 and demo-002; demo-001 by t-annotator (saved, not submitted) and t-annotator2
    (submitted); t-annotator is also granted adjudicator."""
    dataset = Dataset.objects.get(slug="demo")
    user_create(username="t-annotator2", password="pw-2", role="Annotator")
    campaign = campaign_create(
        dataset=dataset,
        slug="fix-adj",
        name="Fixes",
        documents=["demo-001", "demo-002"],
        annotators_per_document=2,
        scorers=[],
    )
    mine, theirs = tasks_assign_manual(
        campaign=campaign,
        assignments=[("demo-001", "t-annotator"), ("demo-001", "t-annotator2")],
    )
    task_fam_save(task=mine, user=mine.annotator, facets=FACETS, base_version=1)
    task_fam_save(task=theirs, user=theirs.annotator, facets=FACETS, base_version=1)
    task_submit(task=theirs)
    campaign_adjudicators_set(campaign=campaign, usernames=["t-annotator"], user=users["admin"])
    docs = {d.external_id: d for d in Document.objects.filter(dataset=dataset)}
    return {"campaign": campaign, "mine": mine, "docs": docs}


def _url(world, external_id: str) -> str:
    return f"/api/campaigns/{world['campaign'].pk}/adjudication/{world['docs'][external_id].pk}/"


def test_an_adjudicator_cannot_open_a_document_whose_own_task_is_not_submitted(world, client_for):
    annotator, admin = client_for("annotator"), client_for("admin")
    listing = f"/api/campaigns/{world['campaign'].pk}/adjudication/"
    refused = annotator.get(_url(world, "demo-001"))
    assert refused.status_code == 403
    assert refused.json()["message"] == (
        "You annotate document 'demo-001' in this campaign and have not submitted it: you may "
        "adjudicate it once your own annotation is submitted."
    )
    assert annotator.put(_url(world, "demo-001"), {}, format="json").status_code == 403
    rows = annotator.get(listing).json()["documents"]
    assert [row["external_id"] for row in rows] == ["demo-002"]
    # Its neighbours skip it too: demo-002 is the only document the annotator may open.
    body = annotator.get(_url(world, "demo-002")).json()
    assert (body["previous"], body["next"], body["index"], body["count"]) == (None, None, 1, 1)
    # An admin who does not annotate it sees both annotators' work.
    assert [a["annotator"] for a in admin.get(_url(world, "demo-001")).json()["annotations"]] == [
        "t-annotator",
        "t-annotator2",
    ]
    assert len(admin.get(listing).json()["documents"]) == 2
    task_submit(task=world["mine"])
    assert annotator.get(_url(world, "demo-001")).status_code == 200
    assert len(annotator.get(listing).json()["documents"]) == 2


def test_the_document_names_its_previous_and_next_in_campaign_order(world, client_for):
    admin = client_for("admin")
    first, second = world["docs"]["demo-001"], world["docs"]["demo-002"]
    body = admin.get(_url(world, "demo-001")).json()
    assert (body["previous"], body["next"], body["index"], body["count"]) == (
        None,
        second.pk,
        1,
        2,
    )
    body = admin.get(_url(world, "demo-002")).json()
    assert (body["previous"], body["next"], body["index"], body["count"]) == (
        first.pk,
        None,
        2,
        2,
    )


def test_a_gold_put_with_both_facets_and_items_is_refused(world, client_for):
    admin = client_for("admin")
    both = {"base_version": 0, "facets": FACETS, "items": [{"output": 1}]}
    refused = admin.put(_url(world, "demo-002"), both, format="json")
    assert refused.status_code == 400
    assert refused.json()["message"] == (
        "Send either facets (a FAM campaign's gold) or items (a PolyTope campaign's), not both."
    )
    assert not CampaignGold.objects.filter(campaign=world["campaign"]).exists()


def test_an_annotators_fam_save_drops_a_forged_provenance(world, client_for):
    task = world["mine"]
    forged = [{**facet, "provenance": FORGED} for facet in FACETS[:2]] + [f([[6]])]
    saved = client_for("annotator").put(
        f"/api/tasks/{task.pk}/fam/", {"base_version": 2, "facets": forged}, format="json"
    )
    assert saved.status_code == 200, saved.content
    fam = Fam.objects.get(annotation_set=task.campaign.annotation_set, annotator=task.annotator)
    assert fam.version == 3
    assert fam.facets == [f([[0]]), f([[3, 4]]), f([[6]])]  # no provenance key at all


def test_an_annotators_span_save_drops_a_forged_provenance(demo, users):
    user_create(username="t-annotator2", password="pw-2", role="Annotator")
    campaign = polytope_campaign_create(
        dataset=Dataset.objects.get(slug="demo"), slug="fix-pt", name="PT",
        systems=["demo-abs"], documents=["demo-002"],
    )  # fmt: skip
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-002", "t-annotator")])
    half = span(SUMMARY_002, "half", "Inaccuracy Intrinsic", "Number & Time")
    saved = task_spans_save(
        task=task,
        user=task.annotator,
        errors=[{**half, "provenance": FORGED}],
        no_errors=False,
        base_version=1,
    )
    row = SpanAnnotation.objects.get(pk=saved.pk)
    assert len(row.errors) == 1 and "provenance" not in row.errors[0]


def test_a_campaign_with_a_gold_set_cannot_be_deleted(world, client_for, client):
    campaign = world["campaign"]
    saved = client_for("admin").put(
        _url(world, "demo-002"),
        {"base_version": 0, "facets": [{**x, "provenance": None} for x in FACETS]},
        format="json",
    )
    assert saved.status_code == 200, saved.content
    with pytest.raises(ProtectedError):
        campaign.delete()
    # The Django admin names the reason instead of deleting it.
    client.post("/login/", {"username": "admin", "password": "loupe-admin"})
    page = client.post(f"/admin/campaigns/campaign/{campaign.pk}/delete/", {"post": "yes"})
    assert page.status_code == 200
    assert "would require deleting the following protected related objects" in (
        page.content.decode()
    )
    assert Campaign.objects.filter(pk=campaign.pk).exists()
    gold = CampaignGold.objects.get(campaign=campaign).annotation_set
    assert AnnotationSet.objects.filter(pk=gold.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_two_creates_of_one_slug_at_once_give_the_clear_slug_error(demo):
    from django.db import connection, transaction

    dataset = Dataset.objects.get(slug="demo")
    made = threading.Event()  # the first create is done but not committed yet
    outcomes: dict[str, str] = {}

    def first():
        try:
            with transaction.atomic():
                campaign_create(dataset=dataset, slug="twin", name="Twin", scorers=[])
                made.set()
                threading.Event().wait(1.0)  # the second create runs into it meanwhile
            outcomes["first"] = "made"
        except Exception as error:  # noqa: BLE001 - the outcome is what the test checks
            outcomes["first"] = f"{type(error).__name__}: {error}"
        finally:
            made.set()
            connection.close()

    def second():
        try:
            made.wait(10)
            campaign_create(dataset=dataset, slug="twin", name="Twin 2", scorers=[])
            outcomes["second"] = "made"
        except ApplicationError as error:
            outcomes["second"] = f"{error.message} {error.extra['field']}"
        except Exception as error:  # noqa: BLE001 - e.g. the IntegrityError before the fix
            outcomes["second"] = f"{type(error).__name__}: {error}"
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert outcomes == {
        "first": "made",
        "second": "A campaign 'twin' already exists; choose another slug. slug",
    }
    assert list(Campaign.objects.filter(slug="twin").values_list("name", flat=True)) == ["Twin"]


def test_a_polytope_document_loads_only_its_own_items(demo, users, client_for):
    from annotation.campaigns.selectors import campaign_items

    campaign = polytope_campaign_create(
        dataset=Dataset.objects.get(slug="demo"), slug="fix-items", name="Items",
        systems=["demo-abs", "demo-extsum", "lead-3"], system_blind=True,
    )  # fmt: skip
    doc = Document.objects.get(dataset__slug="demo", external_id="demo-002")
    everything = campaign_items(campaign=campaign)
    assert len(everything) == 6  # every demo document
    # One document's items, in the same (system-blind, shuffled) order as in the full lookup.
    assert campaign_items(campaign=campaign, document_id=doc.pk) == {doc.pk: everything[doc.pk]}
    url = f"/api/campaigns/{campaign.pk}/adjudication/{doc.pk}/"
    body = client_for("admin").get(url).json()
    assert [item["output"] for item in body["items"]] == [o.pk for o in everything[doc.pk]]
