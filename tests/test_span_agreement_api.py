"""The span agreement API: start (202, or 200 if up to date), list, read, refuse; a real worker."""

from __future__ import annotations

import time

import pytest

from annotation.agreement.models import SpanAgreementRun
from tests.agreement_helpers import span_run_compute
from tests.span_agreement_helpers import build, polytope_campaign, span_set, xsum_sets


@pytest.fixture
def world(db):
    return build()


@pytest.fixture
def admin(client_for):
    return client_for("admin")


def test_admin_starts_a_campaign_run_and_reads_its_result(world, admin):
    campaign = polytope_campaign(world)
    response = admin.post("/api/span-agreement/", {"campaign": campaign.pk}, format="json")
    assert response.status_code == 202, response.content
    run = response.json()
    assert run["status"] == "queued" and run["result"] is None
    assert (run["source"], run["campaign"], run["dataset"]) == ("campaign", campaign.pk, "agree")
    assert (run["scheme"], run["min_iou"], run["submitted_only"]) == ("polytope", 0.0, False)
    span_run_compute(run["id"])
    done = admin.get(f"/api/span-agreement/{run['id']}/").json()
    assert done["status"] == "succeeded" and done["error"] == ""
    assert done["seconds"] is not None and done["finished_at"]
    assert done["result"]["overall"]["span_f1_partial"]["value"] == pytest.approx(3 / 4)
    assert done["result"]["per_pair"][0]["annotators"] == ["alice", "bob"]


def test_admin_starts_a_run_over_annotation_sets(world, admin):
    x, y = xsum_sets(world)
    response = admin.post(
        "/api/span-agreement/",
        {"annotation_sets": [x.pk, y.pk], "min_iou": 0.5},
        format="json",
    )
    assert response.status_code == 202, response.content
    run = response.json()
    assert run["annotation_sets"] == sorted([x.pk, y.pk]) and run["campaign"] is None
    assert run["min_iou"] == 0.5 and run["scheme"] == "xsum-hallucinations"
    span_run_compute(run["id"])
    result = admin.get(f"/api/span-agreement/{run['id']}/").json()["result"]
    # Paris against "in Paris" has IoU 5/8 >= 0.5: the same figures as with any overlap.
    assert result["overall"]["span_f1_partial"]["value"] == pytest.approx(4 / 5)


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({}, 400, "either a campaign or a list"),
        ({"annotation_sets": ["x"]}, 400, "Validation error"),
        ({"campaign": 1, "min_iou": 2}, 400, "Validation error"),
        ({"campaign": 999999}, 400, "Unknown campaign: 999999"),
    ],
)
def test_bad_requests_get_a_clear_400_and_write_nothing(world, admin, body, status, message):
    response = admin.post("/api/span-agreement/", body, format="json")
    assert response.status_code == status, response.content
    assert message in response.json()["message"]
    assert not SpanAgreementRun.objects.exists()


def test_a_fam_set_is_refused_by_the_api_with_the_reason(world, admin):
    x, _ = xsum_sets(world)
    fam = span_set(world, "fams", "fam")
    response = admin.post(
        "/api/span-agreement/", {"annotation_sets": [x.pk, fam.pk]}, format="json"
    )
    assert response.status_code == 400
    assert "hold FAMs, not error spans" in response.json()["message"]


def test_a_second_request_reuses_the_queued_run_then_the_up_to_date_one(world, admin):
    campaign = polytope_campaign(world)
    body = {"campaign": campaign.pk}
    first = admin.post("/api/span-agreement/", body, format="json")
    again = admin.post("/api/span-agreement/", body, format="json")
    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json()["id"] == first.json()["id"]  # still queued: one run for the burst
    span_run_compute(first.json()["id"])
    done = admin.post("/api/span-agreement/", body, format="json")
    assert done.status_code == 200, done.content
    run = done.json()
    assert (run["id"], run["status"], run["stale"]) == (first.json()["id"], "succeeded", False)
    assert run["inputs_digest"] == run["current_digest"] and len(run["inputs_digest"]) == 64
    assert run["result"]["per_system"]["agree-s2"]["span_f1_partial"]["value"] == 1
    forced = admin.post("/api/span-agreement/", {**body, "force": True}, format="json")
    assert forced.status_code == 202 and forced.json()["id"] != run["id"]
    assert SpanAgreementRun.objects.count() == 2


def test_admin_lists_a_datasets_runs_without_results(world, admin):
    campaign = polytope_campaign(world)
    x, y = xsum_sets(world)
    on_sets = admin.post("/api/span-agreement/", {"annotation_sets": [x.pk, y.pk]}, format="json")
    on_campaign = admin.post("/api/span-agreement/", {"campaign": campaign.pk}, format="json")
    span_run_compute(on_campaign.json()["id"])
    other = build("other")
    y_other, z_other = xsum_sets(other)
    admin.post("/api/span-agreement/", {"annotation_sets": [y_other.pk, z_other.pk]}, format="json")
    response = admin.get("/api/span-agreement/?dataset=agree")
    assert response.status_code == 200
    runs = response.json()
    assert [r["id"] for r in runs] == [on_campaign.json()["id"], on_sets.json()["id"]]
    assert all("result" not in r for r in runs)
    assert [(r["status"], r["stale"]) for r in runs] == [("succeeded", False), ("queued", False)]
    assert runs[1]["inputs_digest"] == "" and len(runs[1]["current_digest"]) == 64
    only = admin.get(f"/api/span-agreement/?campaign={campaign.pk}").json()
    assert [r["id"] for r in only] == [on_campaign.json()["id"]]
    assert len(admin.get("/api/span-agreement/").json()) == 3
    missing = admin.get("/api/span-agreement/?dataset=nope")
    assert missing.status_code == 404 and "Unknown dataset 'nope'" in missing.json()["message"]


def test_an_unknown_run_is_404(world, admin):
    assert admin.get("/api/span-agreement/999999/").status_code == 404


@pytest.mark.parametrize("role", ["annotator", "researcher"])
def test_only_admins_may_start_runs(world, client_for, role):
    campaign = polytope_campaign(world)
    client = client_for(role)
    assert (
        client.post("/api/span-agreement/", {"campaign": campaign.pk}, format="json").status_code
        == 403
    )
    assert not SpanAgreementRun.objects.exists()


def test_researchers_read_runs_over_sets_but_not_a_campaigns(world, admin, client_for):
    """A release's annotators are published; a campaign's run names its annotators."""
    x, y = xsum_sets(world)
    sets_run = admin.post(
        "/api/span-agreement/", {"annotation_sets": [x.pk, y.pk]}, format="json"
    ).json()
    campaign_run = admin.post(
        "/api/span-agreement/", {"campaign": polytope_campaign(world).pk}, format="json"
    ).json()
    researcher, annotator = client_for("researcher"), client_for("annotator")
    listed = researcher.get("/api/span-agreement/?dataset=agree").json()
    assert [run["id"] for run in listed] == [sets_run["id"]]
    assert researcher.get(f"/api/span-agreement/{sets_run['id']}/").status_code == 200
    refused = researcher.get(f"/api/span-agreement/{campaign_run['id']}/")
    assert refused.status_code == 403
    assert "only admins" in refused.json()["message"]
    assert annotator.get("/api/span-agreement/?dataset=agree").status_code == 403
    assert annotator.get(f"/api/span-agreement/{sets_run['id']}/").status_code == 403


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_computes_the_run_queued_on_commit(celery_worker_process, client_for):
    world = build()
    campaign = polytope_campaign(world)
    admin = client_for("admin")
    response = admin.post("/api/span-agreement/", {"campaign": campaign.pk}, format="json")
    assert response.status_code == 202
    url = f"/api/span-agreement/{response.json()['id']}/"
    deadline = time.monotonic() + 60
    run = response.json()
    while run["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.3)
        run = admin.get(url).json()
    assert run["status"] == "succeeded", run["error"]
    assert run["result"]["overall"]["kappa_type"]["value"] == pytest.approx(4 / 7)
