"""Only a system's owner (or an admin) uploads its new versions; only a study's uploader (or an
admin) replaces or deletes it."""

from __future__ import annotations

import io

import pytest

from annotation.accounts.services import user_create
from annotation.systems.models import OutputVersion
from scoring.judgments.models import HumanJudgment

pytestmark = pytest.mark.django_db


def _jsonl(name: str = "out.jsonl") -> io.BytesIO:
    upload = io.BytesIO(b'{"doc_id": "demo-001", "summary": "A short summary."}\n')
    upload.name = name
    return upload


def _other_researcher(client_for):
    user_create(username="other", password="pw-other", role="Researcher")
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(get_user_model().objects.get(username="other"))
    return client


def test_a_new_version_of_someone_elses_system_is_refused(demo, client_for):
    mine = client_for("researcher").post(
        "/api/datasets/demo/outputs/",
        {"file": _jsonl(), "system": "mine", "kind": "abstractive"},
        format="multipart",
    )
    assert mine.status_code == 201 and mine.json()["version"] == 1
    other = _other_researcher(client_for)
    refused = other.post(
        "/api/datasets/demo/outputs/", {"file": _jsonl(), "system": "mine"}, format="multipart"
    )
    assert refused.status_code == 403 and "only its owner or an admin" in refused.json()["message"]
    # The demo's systems were imported without an owner: only admins add versions to them.
    released = other.post(
        "/api/datasets/demo/outputs/", {"file": _jsonl(), "system": "demo-abs"}, format="multipart"
    )
    assert released.status_code == 403
    assert OutputVersion.objects.filter(system__slug="mine").count() == 1
    by_admin = client_for("admin").post(
        "/api/datasets/demo/outputs/", {"file": _jsonl(), "system": "mine"}, format="multipart"
    )
    assert by_admin.status_code == 201 and by_admin.json()["version"] == 2
    again = client_for("researcher").post(
        "/api/datasets/demo/outputs/", {"file": _jsonl(), "system": "mine"}, format="multipart"
    )
    assert again.status_code == 201 and again.json()["version"] == 3


def test_only_the_uploader_or_an_admin_replaces_or_deletes_a_study(demo, client_for):
    def csv():
        upload = io.BytesIO(b"system,score\nlead-3,1\ndemo-extsum,2\ndemo-abs,3\n")
        upload.name = "h.csv"
        return upload

    url = "/api/datasets/demo/judgments/"
    made = client_for("researcher").post(url, {"file": csv(), "name": "mine"}, format="multipart")
    assert made.status_code == 201
    other = _other_researcher(client_for)
    replaced = other.post(
        url, {"file": csv(), "name": "mine", "replace": "true"}, format="multipart"
    )
    assert replaced.status_code == 403
    assert other.delete(f"{url}mine/").status_code == 403
    assert HumanJudgment.objects.filter(name="mine").count() == 3
    assert client_for("admin").delete(f"{url}mine/").status_code == 204
    assert not HumanJudgment.objects.filter(name="mine").exists()
