"""Who may see the agreement, adjudication and releases pages, and what they load.

The dataset pages (agreement, releases) are for researchers and admins. A campaign's agreement
and adjudication pages are for admins and the campaign's adjudicators, a per-campaign grant the
page cannot know from the role: any logged-in user gets the page, whose API call decides (and
the page says why it refused).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

# (path, the page's ES module, an id or attribute only that page has)
DATASET_PAGES = [
    ("/manage/datasets/demo/agreement/", "loupe/dataset-agreement", 'id="dataset-agreement"'),
    ("/manage/datasets/demo/releases/", "loupe/releases", 'id="releases-page"'),
]
CAMPAIGN_PAGES = [
    ("/manage/campaigns/7/agreement/", "loupe/agreement", 'data-campaign="7"'),
    ("/manage/campaigns/7/adjudication/", "loupe/adjudication-list", 'data-campaign="7"'),
    ("/manage/campaigns/7/adjudication/12/", "loupe/adjudication", 'data-document="12"'),
]


def _login(client, username: str) -> None:
    response = client.post("/login/", {"username": username, "password": f"loupe-{username}"})
    assert response.status_code == 302


def _page(client, path: str) -> tuple[int, str]:
    response = client.get(path)
    return response.status_code, response.content.decode()


@pytest.mark.parametrize(("path", "module", "marker"), DATASET_PAGES + CAMPAIGN_PAGES)
def test_an_admin_sees_each_page_with_its_module_and_no_inline_script(
    demo, client, path, module, marker
):
    _login(client, "admin")
    status, html = _page(client, path)
    assert status == 200
    assert f"{module}." in html and marker in html
    assert "<script>" not in html and 'type="module"' in html


@pytest.mark.parametrize(("path", "module", "marker"), DATASET_PAGES)
def test_a_researcher_sees_the_dataset_pages_without_the_admin_forms(
    demo, client, path, module, marker
):
    _login(client, "researcher")
    status, html = _page(client, path)
    assert status == 200 and marker in html
    # The export and compute forms are drawn for admins only (data-admin is empty here).
    assert 'data-admin=""' in html


@pytest.mark.parametrize(("path", "module", "marker"), DATASET_PAGES)
def test_the_dataset_pages_are_refused_to_annotators(demo, client, path, module, marker):
    _login(client, "annotator")
    status, html = _page(client, path)
    assert status == 403
    assert module not in html and marker not in html


def test_the_admin_flag_is_set_for_admins_only(demo, client):
    _login(client, "admin")
    assert 'data-admin="1"' in _page(client, "/manage/datasets/demo/releases/")[1]
    assert 'data-admin="1"' in _page(client, "/manage/datasets/demo/agreement/")[1]


@pytest.mark.parametrize(("path", "module", "marker"), CAMPAIGN_PAGES)
def test_the_campaign_pages_are_shells_whose_api_decides(demo, client, path, module, marker):
    # An annotator may be a campaign's adjudicator: the page loads, its API call decides.
    _login(client, "annotator")
    status, html = _page(client, path)
    assert status == 200 and f"{module}." in html and marker in html


@pytest.mark.parametrize(("path", "module", "marker"), DATASET_PAGES + CAMPAIGN_PAGES)
def test_every_page_needs_a_login(client, path, module, marker):
    response = client.get(path)
    assert response.status_code == 302 and response["Location"] == f"/login/?next={path}"
