"""Cross-dataset evaluation before any system has a "trained on" dataset: an empty answer
(not a 500), and the page's empty state saying how to upload one."""

from __future__ import annotations

import pytest

from scoring.scores.selectors import document_score_list

pytestmark = pytest.mark.django_db

URL = "/api/crossdataset/"


def test_no_versions_read_no_scores(dataset):
    # An empty list of versions (or categories) is no rows, not Django's EmptyResultSet.
    assert document_score_list(version_ids=[], metrics=["rouge1_f"]) == []
    versions = list(dataset.output_versions.values_list("pk", flat=True))
    assert versions
    assert document_score_list(version_ids=versions, metrics=["rouge1_f"], categories=[]) == []


@pytest.mark.parametrize("query", ["", "?metric=rouge1_f&missing=exclude", "?datasets=demo"])
def test_the_api_answers_an_empty_evaluation_without_trained_on(demo, client_for, query):
    # The demo's systems have outputs, but no "trained on" dataset Loupe holds: no cell.
    response = client_for("researcher").get(f"{URL}{query}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["systems"] == [] and body["tests"] == []
    assert body["tests_run"]["state"] == "none"
    if query == "?datasets=demo":
        assert body["datasets"] == ["demo"]
        assert {row["slug"] for row in body["left_out"]} == {"lead-3", "demo-extsum", "demo-abs"}
        reasons = {row["slug"]: row["reason"] for row in body["left_out"]}
        assert "trained_on is blank" in reasons["lead-3"]
        assert "not one of the chosen datasets" in reasons["demo-abs"]
    else:
        assert body["datasets"] == []


def test_the_tests_refuse_to_start_without_two_systems(demo, client_for):
    response = client_for("researcher").post(f"{URL}tests/", {"metric": "rouge1_f"}, format="json")
    assert response.status_code == 400
    assert "need at least two" in response.json()["message"]


def test_the_page_opens_and_carries_its_empty_state(demo, users, client):
    client.force_login(users["researcher"])
    response = client.get("/crossdataset/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="cdx-empty"' in html
    assert 'href="/upload/"' in html and "Trained on" in html
