"""The pages' poll and heartbeat intervals come from settings, rendered on <body>."""

import re

import pytest


def _body(client) -> str:
    page = client.get("/login/")
    assert page.status_code == 200
    return re.search(r"<body[^>]*>", page.content.decode()).group(0)


@pytest.mark.django_db
def test_unset_timers_leave_each_page_its_own(client, settings):
    settings.LOUPE_UI_POLL_MS = settings.LOUPE_UI_BEAT_MS = 0
    assert _body(client) == "<body>"


@pytest.mark.django_db
def test_set_timers_are_on_the_body(client, settings):
    settings.LOUPE_UI_POLL_MS, settings.LOUPE_UI_BEAT_MS = 200, 250
    assert _body(client) == '<body data-poll-ms="200" data-beat-ms="250">'
    settings.LOUPE_UI_BEAT_MS = 0
    assert _body(client) == '<body data-poll-ms="200">'
