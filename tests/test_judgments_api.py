"""The human judgments API: upload, list and delete, every issue reported, roles."""

from __future__ import annotations

from scoring.judgments.models import HumanJudgment
from tests.judgment_helpers import THREE_SCORES, URL, import_text, upload


def test_api_upload_list_and_delete(client_for, dataset):
    client = client_for("researcher")
    response = client.post(
        URL,
        {
            "file": upload("system,score\nlead-3,1\ndemo-extsum,3\ndemo-abs,2\n", "s.csv"),
            "name": "overall",
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    assert response.json() == THREE_SCORES
    listed = client.get(URL).json()
    assert [(s["name"], s["n_rows"], s["per_document"]) for s in listed] == [("overall", 3, False)]
    again = client.post(
        URL,
        {"file": upload("system,rank\nlead-3,1\n", "r.csv"), "name": "overall"},
        format="multipart",
    )
    assert again.status_code == 409 and "replace" in again.json()["message"]
    replaced = client.post(
        URL,
        {"file": upload("system,rank\nlead-3,1\n", "r.csv"), "name": "overall", "replace": "true"},
        format="multipart",
    )
    assert replaced.status_code == 201 and replaced.json()["replaced"] is True
    assert client.delete(f"{URL}overall/").status_code == 204
    assert client.get(URL).json() == []
    assert client.delete(f"{URL}overall/").status_code == 404
    assert client.get("/api/datasets/nope/judgments/").status_code == 404


def test_api_reports_every_issue_and_writes_nothing(client_for, dataset):
    content = "system,doc_id,score\nlead-3,demo-001,1\nlead-3,demo-404,2\nghost,demo-002,3\n"
    response = client_for("admin").post(
        URL, {"file": upload(content, "bad.csv"), "name": "faith"}, format="multipart"
    )
    assert response.status_code == 400
    body = response.json()
    assert body["message"] == "The import is invalid; nothing was written."
    assert sorted((i["line"], i["field"]) for i in body["extra"]["issues"]) == [
        (3, "doc_id"),
        (4, "system"),
    ]
    assert all(i["file"] == "bad.csv" for i in body["extra"]["issues"])
    assert HumanJudgment.objects.count() == 0


def test_api_refuses_a_bad_name_and_other_roles(client_for, dataset):
    researcher = client_for("researcher")
    bad = researcher.post(
        URL,
        {"file": upload("system,score\nlead-3,1\n", "a.csv"), "name": "a b"},
        format="multipart",
    )
    assert bad.status_code == 400 and "name" in bad.json()["extra"]["fields"]
    for role, code in (("annotator", 403), ("norole", 403), (None, 401)):
        response = client_for(role).post(
            URL,
            {"file": upload("system,score\nlead-3,1\n", "a.csv"), "name": "x"},
            format="multipart",
        )
        assert response.status_code == code
        assert client_for(role).get(URL).status_code == code
    import_text(dataset, "system,score\nlead-3,1\n", "a.csv", name="x")
    assert client_for("annotator").delete(f"{URL}x/").status_code == 403
    assert HumanJudgment.objects.filter(name="x").count() == 1


def test_the_list_names_the_uploader_and_who_may_delete(client_for, dataset):
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    owner = client_for("researcher")
    response = owner.post(
        URL,
        {"file": upload("system,score\nlead-3,1\ndemo-abs,2\n", "s.csv"), "name": "overall"},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    import_text(dataset, "system,rank\nlead-3,1\ndemo-abs,2\n", "r.csv", name="shell")
    other = APIClient()  # the demo's researcher, not the uploader
    other.force_authenticate(get_user_model().objects.get(username="researcher"))

    def listed(client):
        return [(s["name"], s["uploaded_by"], s["can_delete"]) for s in client.get(URL).json()]

    assert listed(owner) == [("overall", "t-researcher", True), ("shell", None, False)]
    assert listed(other) == [("overall", "t-researcher", False), ("shell", None, False)]
    assert listed(client_for("admin")) == [("overall", "t-researcher", True), ("shell", None, True)]
    # What the list offers is what the server allows.
    assert other.delete(f"{URL}overall/").status_code == 403
    assert owner.delete(f"{URL}shell/").status_code == 403
    assert owner.delete(f"{URL}overall/").status_code == 204


def test_study_names_are_unique_regardless_of_case_and_surrounding_spaces(client_for, dataset):
    import pytest
    from django.db import IntegrityError, transaction

    client = client_for("researcher")
    first = client.post(
        URL,
        {"file": upload("system,rank\nlead-3,1\n", "r.csv"), "name": "overall"},
        format="multipart",
    )
    assert first.status_code == 201, first.content
    again = client.post(
        URL,
        {"file": upload("system,rank\nlead-3,2\n", "r.csv"), "name": " Overall "},
        format="multipart",
    )
    assert again.status_code == 409, again.content
    assert again.json()["extra"] == {"name": "overall"}
    replaced = client.post(
        URL,
        {"file": upload("system,rank\nlead-3,2\n", "r.csv"), "name": "OVERALL", "replace": "true"},
        format="multipart",
    )
    assert replaced.status_code == 201 and replaced.json()["replaced"] is True
    assert replaced.json()["name"] == "overall"
    assert [s["name"] for s in client.get(URL).json()] == ["overall"]
    # The database holds the rule too (a writer that skips the service).
    row = HumanJudgment.objects.get(dataset=dataset, name="overall")
    with pytest.raises(IntegrityError), transaction.atomic():
        HumanJudgment.objects.create(
            dataset=dataset, name="Overall", kind=row.kind, system=row.system, value=1
        )
