"""The demo command, the login page for each demo user, the home page and the admin list."""

import pytest
from django.core.management import CommandError, call_command

from annotation.corpus.models import Dataset
from annotation.systems.models import System, SystemOutput

pytestmark = pytest.mark.django_db


def test_demo_command_refuses_without_debug_unless_forced():
    with pytest.raises(CommandError, match="Refusing to load the demo with DEBUG off"):
        call_command("demo")
    assert not Dataset.objects.exists()


def test_demo_command_loads_dataset_systems_and_prints_credentials(capsys):
    call_command("demo", "--force")
    out = capsys.readouterr().out
    for line in (
        "annotator   loupe-annotator",
        "annotator-b loupe-annotator-b",
        "researcher  loupe-researcher",
        "admin       loupe-admin",
    ):
        assert line in out
    dataset = Dataset.objects.get(slug="demo")
    assert dataset.documents.count() == 6
    assert set(System.objects.values_list("kind", flat=True)) == {"extractive", "abstractive"}
    assert SystemOutput.objects.filter(document__dataset=dataset).count() == 18
    assert dataset.annotation_sets.get(slug="gold").fams.count() == 6
    from annotation.campaigns.models import Task

    assert (
        Task.objects.filter(campaign__slug="demo-fam", annotator__username="annotator").count() == 6
    )
    call_command("demo", "--force")  # idempotent
    assert Dataset.objects.count() == 1 and SystemOutput.objects.count() == 18


@pytest.mark.parametrize("username", ["annotator", "researcher", "admin"])
def test_each_demo_user_logs_in_through_the_login_page(demo, client, username):
    page = client.get("/login/")
    assert page.status_code == 200 and b'name="username"' in page.content
    response = client.post("/login/", {"username": username, "password": f"loupe-{username}"})
    assert response.status_code == 302 and response["Location"] == "/"
    home = client.get("/")
    assert home.status_code == 200 and b"Datasets" in home.content
    assert client.get("/api/me/").json()["username"] == username


def test_wrong_password_shows_an_error(demo, client):
    response = client.post("/login/", {"username": "admin", "password": "wrong"})
    assert response.status_code == 200 and b"did not match" in response.content


def test_admin_lists_the_demo_dataset(demo, client):
    client.post("/login/", {"username": "admin", "password": "loupe-admin"})
    response = client.get("/admin/corpus/dataset/")
    assert response.status_code == 200 and b"demo" in response.content


def test_pages_send_a_csp_that_forbids_inline_script(client):
    csp = client.get("/login/")["Content-Security-Policy"]
    assert (
        "script-src 'self'" in csp
        and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    )


def test_logout_requires_post_and_ends_the_session(demo, client):
    client.post("/login/", {"username": "researcher", "password": "loupe-researcher"})
    assert client.post("/logout/").status_code == 302
    assert client.get("/").status_code == 302


def test_session_writes_need_the_csrf_token(demo):
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    assert (
        client.post("/login/", {"username": "admin", "password": "loupe-admin"}).status_code == 403
    )
    client.force_login(get_user_model().objects.get(username="admin"))
    assert client.get("/").status_code == 200  # the page sets the csrftoken cookie
    response = client.post(
        "/api/systems/create/",
        {"slug": "csrf", "name": "CSRF", "kind": "abstractive"},
        content_type="application/json",
    )
    assert response.status_code == 403 and "CSRF" in response.json()["message"]
    token = client.cookies["csrftoken"].value
    response = client.post(
        "/api/systems/create/",
        {"slug": "csrf", "name": "CSRF", "kind": "abstractive"},
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert response.status_code == 201
