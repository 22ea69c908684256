"""The cross-dataset page on the server: who may open it, its controls, the leaderboards' link."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("role", "status"), [("researcher", 200), ("admin", 200), ("annotator", 403), ("norole", 403)]
)
def test_the_page_is_for_researchers_and_admins(client, users, role, status):
    client.force_login(users[role])
    response = client.get("/crossdataset/")
    assert response.status_code == status
    if status == 200:
        html = response.content.decode()
        for control in ('id="metric"', 'id="datasets"', 'id="missing"', 'id="show"'):
            assert control in html
        for table in ('id="ranking"', 'id="tests"', 'id="matrices"', 'id="left-out"'):
            assert table in html
        # Both normalisations and the paper's test are named on the page itself.
        assert 'id="normalisation-note"' in html and "as printed (÷ N)" in html
        assert "p, Wilcoxon" in html and "p, permutation" in html
        assert "loupe/crossdataset." in html  # the module (hashed name)


def test_anonymous_visitors_are_sent_to_the_login_page(client):
    response = client.get("/crossdataset/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_the_leaderboards_index_links_to_it(client, users):
    client.force_login(users["researcher"])
    html = client.get("/leaderboards/").content.decode()
    assert 'href="/crossdataset/"' in html
