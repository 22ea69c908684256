"""Release fixes from review: gold span provenance never names users, pending gold stays out,
one snapshot per build, and a public dataset's readers see no usernames or raw errors."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from annotation.accounts.services import user_create
from annotation.adjudication.services import document_adjudication_mark, gold_spans_save
from annotation.campaigns.services import (
    polytope_campaign_create,
    task_spans_save,
    task_submit,
    tasks_assign_manual,
)
from annotation.corpus.models import Dataset
from scoring.releases import members as m
from scoring.releases import services
from scoring.releases.selectors import GENERIC_ERROR
from scoring.releases.services import release_create, release_fail
from tests.release_helpers import build, jsonl, members, released_spans
from tests.test_polytope_campaigns import SUMMARY_002, span
from tests.vendor_marks import postgresql_only

NAMES = (b"alice-real", b"bob-real")


def _gold_campaign(users, *, adjudicated: bool):
    """A PolyTope campaign on demo-002: alice-real and bob-real both mark the same error and
    submit; the admin saves it as gold ("agreed" by both), and marks it done if asked."""
    dataset = Dataset.objects.get(slug="demo")
    user_create(username="alice-real", password="pw", role="Annotator")
    user_create(username="bob-real", password="pw", role="Annotator")
    campaign = polytope_campaign_create(
        dataset=dataset,
        slug="pp",
        name="PP",
        systems=["demo-abs"],
        documents=["demo-002"],
        annotators_per_document=2,
    )
    tasks = tasks_assign_manual(
        campaign=campaign, assignments=[("demo-002", "alice-real"), ("demo-002", "bob-real")]
    )
    half = span(SUMMARY_002, "half", "Inaccuracy Intrinsic", "Number & Time")
    for task in tasks:
        task_spans_save(
            task=task, user=task.annotator, errors=[half], no_errors=False, base_version=1
        )
        task_submit(task=task)
    document, output = tasks[0].document, campaign.outputs.get()
    agreed = {"method": "agreed", "annotators": ["alice-real", "bob-real"]}
    gold_spans_save(
        campaign=campaign,
        document=document,
        user=users["admin"],
        items=[
            {
                "output": output.pk,
                "base_version": 0,
                "no_errors": False,
                "errors": [{**half, "provenance": agreed}],
            }
        ],
    )
    if adjudicated:
        document_adjudication_mark(campaign=campaign, document=document, user=users["admin"])
    return dataset, campaign


def _gold_rows(release, campaign):
    gold = campaign.gold.annotation_set.slug
    return [row for row in jsonl(members(release)["polytope.jsonl"]) if row["set"] == gold]


@pytest.mark.django_db
def test_gold_span_provenance_names_nobody_without_annotators(demo, users):
    dataset, campaign = _gold_campaign(users, adjudicated=True)
    release = build(dataset)
    assert release.status == "succeeded", release.error
    leaks = [path for path, data in members(release).items() if any(n in data for n in NAMES)]
    assert leaks == []
    (row,) = _gold_rows(release, campaign)
    assert row["annotator"] is None and len(row["errors"]) == 1
    assert "provenance" not in row["errors"][0]
    assert row["errors"][0]["words"] == "half"


@pytest.mark.django_db
def test_gold_span_provenance_with_annotators_uses_their_pseudonyms(demo, users):
    dataset, campaign = _gold_campaign(users, adjudicated=True)
    release = build(dataset, include_annotators=True)
    assert release.status == "succeeded", release.error
    found = members(release)
    assert [path for path, data in found.items() if any(n in data for n in NAMES)] == []
    rows = jsonl(found["polytope.jsonl"])
    human = campaign.annotation_set.slug
    # alice-real was created before bob-real: pseudonyms go by user id.
    assert sorted(r["annotator"] for r in rows if r["set"] == human) == [
        "annotator-1",
        "annotator-2",
    ]
    (gold,) = _gold_rows(release, campaign)
    assert gold["errors"][0]["provenance"] == {
        "method": "agreed",
        "annotators": ["annotator-1", "annotator-2"],
    }


@pytest.mark.django_db
def test_a_campaigns_gold_is_released_only_once_adjudicated(demo, users):
    dataset, campaign = _gold_campaign(users, adjudicated=False)
    pending = build(dataset)
    assert pending.status == "succeeded", pending.error
    assert _gold_rows(pending, campaign) == []
    sets = {row["slug"] for row in jsonl(members(pending)["annotation_sets.jsonl"])}
    assert campaign.gold.annotation_set.slug not in sets
    document_adjudication_mark(
        campaign=campaign, document=campaign.outputs.get().document, user=users["admin"]
    )
    done = build(dataset)
    assert len(_gold_rows(done, campaign)) == 1


@postgresql_only("a snapshot shared by connections: PostgreSQL (SQLite writes one at a time)")
@pytest.mark.django_db(transaction=True)
def test_a_build_reads_one_snapshot_while_others_save(demo, monkeypatch):
    """A save committed by another connection after the build planned (here: a whole released
    span set, between planning and the first member) is in no member of that build."""
    dataset = Dataset.objects.get(slug="demo")
    seen = {}

    def save_elsewhere():
        try:
            released_spans(Dataset.objects.get(slug="demo"))
        finally:
            connection.close()

    def documents_after_a_concurrent_save(export):
        seen["in_snapshot"] = connection.in_atomic_block
        other = threading.Thread(target=save_elsewhere)
        other.start()
        other.join()
        m.write_documents(export)

    monkeypatch.setattr(services, "STEPS", (documents_after_a_concurrent_save, *services.STEPS[1:]))
    release = build(dataset)
    assert release.status == "succeeded", release.error
    found = members(release)
    listed = {row["slug"] for row in jsonl(found["annotation_sets.jsonl"])}
    spans = jsonl(found["polytope.jsonl"])
    assert "polytope-release" not in listed
    assert [row for row in spans if row["set"] == "polytope-release"] == []
    assert release.manifest["counts"]["span_annotations"] == len(spans)
    assert seen["in_snapshot"] is True
    # The progress, written on the side connection, reached the row.
    assert release.progress_done == release.progress_total > 0 and release.stage == "done"
    monkeypatch.undo()
    later = build(dataset)
    assert (
        len([r for r in jsonl(members(later)["polytope.jsonl"]) if r["set"] == "polytope-release"])
        == 2
    )


@pytest.mark.django_db
def test_public_readers_see_no_username_and_no_raw_error(demo, users, client_for):
    dataset = Dataset.objects.get(slug="demo")
    Dataset.objects.filter(pk=dataset.pk).update(public=True)
    release = release_create(dataset=dataset, queue=False, user=users["admin"])
    release_fail(release_id=release.pk, error="OSError: /srv/loupe/secret-path is full")
    listing = "/api/datasets/demo/releases/"
    for reader in (None, "annotator"):
        (row,) = client_for(reader).get(listing).json()
        assert (row["created_by"], row["error"]) == (None, GENERIC_ERROR)
        one = client_for(reader).get(f"{listing}{release.version}/").json()
        assert (one["created_by"], one["error"]) == (None, GENERIC_ERROR)
    for reader in ("researcher", "admin"):
        (row,) = client_for(reader).get(listing).json()
        assert row["created_by"] == "t-admin"
        assert row["error"] == "OSError: /srv/loupe/secret-path is full"
