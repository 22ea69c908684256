"""Who may see the admin pages (datasets, campaigns, a campaign's progress) and what they load."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db

# (path, the page's ES module, an id only that page has)
PAGES = [
    ("/manage/datasets/", "loupe/manage-datasets", 'id="import-form"'),
    ("/manage/datasets/demo/", "loupe/manage-dataset", 'data-slug="demo"'),
    ("/manage/campaigns/", "loupe/manage-campaigns", 'id="campaigns"'),
    ("/manage/campaigns/new/", "loupe/campaign-form", 'id="campaign-form"'),
    ("/manage/campaigns/1/", "loupe/manage-campaign", 'data-campaign-id="1"'),
    ("/manage/users/", "loupe/manage-users", 'id="add-form"'),
]


def _login(client, username: str) -> None:
    response = client.post("/login/", {"username": username, "password": f"loupe-{username}"})
    assert response.status_code == 302


@pytest.mark.parametrize(("path", "module", "marker"), PAGES)
def test_an_admin_sees_each_admin_page(demo, client, path, module, marker):
    _login(client, "admin")
    page = client.get(path)
    assert page.status_code == 200
    html = page.content.decode()
    assert module in html and marker in html
    # The nav names both admin entries; no inline script (the CSP forbids it).
    assert 'href="/manage/campaigns/"' in html and 'href="/manage/datasets/"' in html
    assert "<script>" not in html and 'type="module"' in html


@pytest.mark.parametrize(("path", "module", "marker"), PAGES)
@pytest.mark.parametrize("username", ["annotator", "researcher"])
def test_annotators_and_researchers_get_403_with_the_reason(
    demo, client, path, module, marker, username
):
    _login(client, username)
    page = client.get(path)
    assert page.status_code == 403
    html = page.content.decode()
    assert "Only admins may see this page." in html
    assert module not in html and marker not in html
    assert 'href="/manage/campaigns/"' not in html


@pytest.mark.parametrize(("path", "module", "marker"), PAGES)
def test_the_admin_pages_need_a_login(client, path, module, marker):
    response = client.get(path)
    assert response.status_code == 302 and response["Location"] == f"/login/?next={path}"


def test_the_campaign_form_offers_the_registry_scorers_with_the_defaults_checked(demo, client):
    from scoring.metrics.suggest.registry import scorer_infos

    _login(client, "admin")
    html = client.get("/manage/campaigns/new/").content.decode()
    inputs = re.findall(r'<input type="checkbox" name="scorers" value="([^"]+)"([^>]*)>', html)
    assert [name for name, _ in inputs] == [info.name for info in scorer_infos()]
    # The campaigns' defaults (ROUGE-AVG F and TF-IDF) come checked, nothing else.
    assert [name for name, rest in inputs if "checked" in rest] == ["rougeavg-f", "tfidf"]
