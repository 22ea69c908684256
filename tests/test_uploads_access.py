"""Who may upload system outputs: the API by role, unknown datasets and the upload page."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.upload_helpers import ABSTRACT, URL, counts, jsonl, post

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("role", "status"), [("annotator", 403), ("norole", 403), (None, 401)])
def test_only_researchers_and_admins_may_upload(demo, client_for, role, status):
    before = counts()
    response = post(client_for(role), jsonl({"doc_id": "demo-001", "summary": "A."}))
    assert response.status_code == status
    assert counts() == before


def test_an_admin_may_upload_and_an_unknown_dataset_is_404(demo, client_for):
    admin = client_for("admin")
    assert post(admin, jsonl({"doc_id": "demo-001", "summary": "A."})).status_code == 201
    form = {**ABSTRACT, "file": SimpleUploadedFile("o.jsonl", b"{}")}
    assert admin.post("/api/datasets/nope/outputs/", form, format="multipart").status_code == 404
    missing = admin.post(URL, {"system": "x"}, format="multipart")
    assert missing.status_code == 400 and "file" in missing.json()["extra"]["fields"]


@pytest.mark.parametrize(
    ("username", "status", "link"),
    [("researcher", 200, True), ("admin", 200, True), ("annotator", 403, False)],
)
def test_the_upload_page_and_its_nav_link_are_for_researchers_and_admins(
    demo, client, username, status, link
):
    client.post("/login/", {"username": username, "password": f"loupe-{username}"})
    page = client.get("/upload/")
    assert page.status_code == status
    html = page.content.decode()
    if status == 200:
        assert 'id="upload-form"' in html and "loupe/upload" in html and "50.0 MB" in html
    else:
        assert "Only researchers and admins may see this page" in html
        assert "upload-form" not in html
    assert ('href="/upload/"' in client.get("/").content.decode()) is link


def test_the_upload_page_needs_a_login(client):
    response = client.get("/upload/")
    assert response.status_code == 302 and response["Location"] == "/login/?next=/upload/"
