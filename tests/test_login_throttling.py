"""Logins are throttled: django-axes locks a username out from one address after repeated
failures (the login form, the admin login and the token API), and the token API has a rate."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.db.models import F
from django.test import Client
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

ROOT = Path(__file__).resolve().parents[1]
LOGIN = "/login/"
ADMIN_LOGIN = "/admin/login/?next=/admin/"
TOKEN = "/api/auth/token/"
ADMIN = {"username": "t-admin", "password": "pw-admin"}
WRONG = {"username": "t-admin", "password": "not-the-password"}
LIMIT = 5  # LOUPE_LOGIN_FAILURE_LIMIT's default
COOLOFF = timedelta(minutes=15)  # LOUPE_LOGIN_COOLOFF_MINUTES's default


def _token_client(**defaults) -> APIClient:
    """An API client that posts JSON, the only body the token endpoint parses."""
    client = APIClient(**defaults)
    client.default_format = "json"
    return client


def _logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def _wrong_passwords(client, url: str, times: int, **extra) -> list[int]:
    return [
        client.post(url, {**WRONG, "password": f"wrong-{i}"}, **extra).status_code
        for i in range(times)
    ]


def _age_attempts(username: str, by: timedelta) -> None:
    """Move the recorded failures of ``username`` back in time (the cool-off passes)."""
    from axes.models import AccessAttempt

    moved = AccessAttempt.objects.filter(username=username).update(
        attempt_time=F("attempt_time") - by
    )
    assert moved >= 1


def _assert_lockout_page(response, username: str = "t-admin") -> None:
    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many failed logins" in page
    assert f"<strong>{username}</strong> is locked" in page
    assert "from this address" in page
    assert "for 15 minutes" in page
    assert f"manage.py axes_reset_username {username}" in page
    assert 0 < int(response["Retry-After"]) <= COOLOFF.total_seconds()
    # The time shown (hours and minutes) is never before the lockout really ends.
    from annotation.accounts.selectors import login_lockout_get

    shown = datetime.fromisoformat(re.search(r'<time datetime="([^"]+)"', page).group(1))
    lockout = login_lockout_get(username=username, ip_address="127.0.0.1")
    assert lockout is not None
    assert shown.second == 0 and shown >= lockout.until > shown - timedelta(minutes=1)
    assert f"{shown:%H:%M} UTC" in page


# --- The login form ---------------------------------------------------------------------------


def test_thirty_wrong_passwords_then_the_right_one_are_refused_on_the_login_form(users):
    client = Client()
    statuses = _wrong_passwords(client, LOGIN, 30)
    # Each wrong password below the limit is the form again; the limit's one locks.
    assert statuses[: LIMIT - 1] == [200] * (LIMIT - 1)
    assert set(statuses[LIMIT - 1 :]) == {429}

    right = client.post(LOGIN, ADMIN)
    _assert_lockout_page(right)
    assert not _logged_in(client)


def test_the_admin_login_locks_out_too(users):
    client = Client()
    statuses = _wrong_passwords(client, ADMIN_LOGIN, LIMIT)
    assert statuses == [200] * (LIMIT - 1) + [429]

    right = client.post(ADMIN_LOGIN, ADMIN)
    _assert_lockout_page(right)
    assert not _logged_in(client)
    assert client.get("/admin/").status_code == 302  # back to the admin's login


def test_another_address_is_not_locked_out_for_that_username(users):
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    _wrong_passwords(attacker, LOGIN, 30)
    assert attacker.post(LOGIN, ADMIN).status_code == 429

    owner = Client(REMOTE_ADDR="198.51.100.20")
    response = owner.post(LOGIN, ADMIN)
    assert response.status_code == 302 and response["Location"] == "/"
    assert _logged_in(owner)
    # Nor is another username locked out from the attacker's address.
    other = Client(REMOTE_ADDR="203.0.113.9")
    researcher = {"username": "t-researcher", "password": "pw-researcher"}
    assert other.post(LOGIN, researcher).status_code == 302
    assert _logged_in(other)


def test_a_forged_x_forwarded_for_does_not_escape_the_lockout(users):
    client = Client()
    _wrong_passwords(client, LOGIN, LIMIT)
    forged = client.post(LOGIN, ADMIN, HTTP_X_FORWARDED_FOR="198.51.100.77")
    assert forged.status_code == 429
    assert not _logged_in(client)


def test_behind_a_trusted_proxy_the_client_address_is_the_proxys_last_entry(users, settings):
    settings.LOUPE_PROXY_COUNT = 1  # one proxy, whose address is REMOTE_ADDR (127.0.0.1)
    client = Client()
    _wrong_passwords(client, LOGIN, LIMIT, HTTP_X_FORWARDED_FOR="203.0.113.5")
    # The attacker puts a made-up address first; the proxy appends the real one.
    spoofed = client.post(LOGIN, ADMIN, HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.5")
    assert spoofed.status_code == 429
    owner = Client()
    assert owner.post(LOGIN, ADMIN, HTTP_X_FORWARDED_FOR="198.51.100.1").status_code == 302
    assert _logged_in(owner)


def test_after_the_cool_off_the_right_password_works(users):
    client = Client()
    _wrong_passwords(client, LOGIN, LIMIT)
    _age_attempts("t-admin", COOLOFF - timedelta(seconds=30))
    assert client.post(LOGIN, ADMIN).status_code == 429  # not yet

    _age_attempts("t-admin", timedelta(seconds=31))
    response = client.post(LOGIN, ADMIN)
    assert response.status_code == 302 and response["Location"] == "/"
    assert _logged_in(client)


def test_the_command_the_page_names_unlocks_the_account(users):
    from django.core.management import call_command

    client = Client()
    _wrong_passwords(client, LOGIN, LIMIT)
    assert "manage.py axes_reset_username t-admin" in client.post(LOGIN, ADMIN).content.decode()

    call_command("axes_reset_username", "t-admin", stdout=io.StringIO())
    assert client.post(LOGIN, ADMIN).status_code == 302
    assert _logged_in(client)


def test_a_successful_login_below_the_limit_resets_the_count(users):
    client = Client()
    assert _wrong_passwords(client, LOGIN, LIMIT - 1) == [200] * (LIMIT - 1)
    assert client.post(LOGIN, ADMIN).status_code == 302
    client.post("/logout/")

    # Counting starts again: LIMIT - 1 more failures do not lock, the LIMIT-th does.
    assert _wrong_passwords(client, LOGIN, LIMIT) == [200] * (LIMIT - 1) + [429]


def test_the_lockout_page_escapes_the_username(users):
    client = Client()
    name = "<b>x</b>"
    for _ in range(LIMIT):
        response = client.post(LOGIN, {"username": name, "password": "nope"})
    assert response.status_code == 429
    assert "&lt;b&gt;x&lt;/b&gt;" in response.content.decode()
    assert "<b>x</b>" not in response.content.decode()


# --- The token API ----------------------------------------------------------------------------


def _advance_the_rate_clock(monkeypatch, seconds: float) -> None:
    """The token endpoint's rate window passes (its history is kept with DRF's timer)."""
    monkeypatch.setattr(ScopedRateThrottle, "timer", staticmethod(lambda: time.time() + seconds))


def test_thirty_wrong_passwords_then_the_right_one_are_refused_on_the_token_api(users, monkeypatch):
    api = _token_client()
    responses = [
        api.post(TOKEN, {**WRONG, "password": f"wrong-{i}"}, format="json") for i in range(30)
    ]
    assert [r.status_code for r in responses[: LIMIT - 1]] == [400] * (LIMIT - 1)
    assert {r.status_code for r in responses[LIMIT - 1 :]} == {429}
    locked = responses[LIMIT - 1].json()
    assert set(locked) == {"message", "extra"}
    assert "Too many failed logins for this username from this address" in locked["message"]
    assert "manage.py axes_reset_username" in locked["message"]

    right = api.post(TOKEN, ADMIN, format="json")
    assert right.status_code == 429
    assert "token" not in right.json()
    assert set(right.json()) == {"message", "extra"}
    assert int(right["Retry-After"]) > 0

    # When the rate's minute has passed, the lockout still refuses the right password.
    _advance_the_rate_clock(monkeypatch, 61)
    right = api.post(TOKEN, ADMIN, format="json")
    assert right.status_code == 429
    body = right.json()
    assert body["extra"] == {}
    assert "Too many failed logins for this username from this address" in body["message"]
    assert "locked for 15 minutes" in body["message"]
    wait = int(right["Retry-After"])
    assert COOLOFF.total_seconds() - 60 <= wait <= COOLOFF.total_seconds()


def test_the_token_api_lockout_is_per_address_and_ends_after_the_cool_off(users):
    attacker = _token_client(REMOTE_ADDR="203.0.113.9")
    statuses = _wrong_passwords(attacker, TOKEN, LIMIT)
    assert statuses == [400] * (LIMIT - 1) + [429]
    assert attacker.post(TOKEN, ADMIN).status_code == 429

    elsewhere = _token_client(REMOTE_ADDR="198.51.100.20").post(TOKEN, ADMIN)
    assert elsewhere.status_code == 200 and elsewhere.json()["token"]

    _age_attempts("t-admin", COOLOFF + timedelta(seconds=1))
    again = attacker.post(TOKEN, ADMIN)
    assert again.status_code == 200 and again.json()["token"] == elsewhere.json()["token"]


def test_a_token_obtained_below_the_limit_resets_the_count(users):
    api = _token_client()
    assert _wrong_passwords(api, TOKEN, LIMIT - 1) == [400] * (LIMIT - 1)
    assert api.post(TOKEN, ADMIN).status_code == 200
    assert _wrong_passwords(api, TOKEN, LIMIT - 1) == [400] * (LIMIT - 1)
    assert api.post(TOKEN, ADMIN).status_code == 200


def test_the_token_endpoint_has_a_rate_per_address(users):
    api = _token_client(REMOTE_ADDR="203.0.113.40")
    # Ten requests a minute (the default), whatever they are: unknown users here.
    for i in range(10):
        assert api.post(TOKEN, {"username": f"nobody-{i}", "password": "x"}).status_code == 400
    limited = api.post(TOKEN, {"username": "t-researcher", "password": "pw-researcher"})
    assert limited.status_code == 429
    assert set(limited.json()) == {"message", "extra"}
    assert "Too many token requests from this address" in limited.json()["message"]
    assert 0 < int(limited["Retry-After"]) <= 60
    # A forged X-Forwarded-For is not another client.
    forged = api.post(
        TOKEN,
        {"username": "t-researcher", "password": "pw-researcher"},
        HTTP_X_FORWARDED_FOR="198.51.100.3",
    )
    assert forged.status_code == 429

    other = _token_client(REMOTE_ADDR="203.0.113.41")
    assert other.post(TOKEN, {"username": "t-researcher", "password": "pw-researcher"}).json()[
        "token"
    ]


def test_a_cross_site_form_cannot_lock_a_user_out_through_the_token_endpoint(users):
    """A page elsewhere can make a victim's browser post a plain form (no CSRF check applies to
    a token request), but not JSON without a CORS preflight: the endpoint parses JSON only, so
    such posts count as no failed login and cannot lock the account out."""
    from axes.models import AccessAttempt

    browser = Client(REMOTE_ADDR="203.0.113.77")
    # Within the token rate (10 a minute) so that only the body decides: six forms, then one
    # multipart and one text/plain post.
    for content_type, times in (("form", LIMIT + 1), ("multipart", 1), ("text/plain", 1)):
        for i in range(times):
            data = {**WRONG, "password": f"wrong-{i}"}
            if content_type == "form":
                response = browser.post(
                    TOKEN, urlencode(data), content_type="application/x-www-form-urlencoded"
                )
            elif content_type == "multipart":
                response = browser.post(TOKEN, data)
            else:
                response = browser.post(TOKEN, json.dumps(data), content_type="text/plain")
            assert response.status_code == 415, (content_type, response.content[:200])
            assert "application/json" in response.json()["message"]
    assert not AccessAttempt.objects.filter(username="t-admin").exists()
    right = _token_client(REMOTE_ADDR="203.0.113.77").post(TOKEN, ADMIN)
    assert right.status_code == 200 and right.json()["token"]


@pytest.mark.parametrize(
    ("forwarded", "counted"),
    [
        ("unknown", "192.0.2.10"),
        ("", "192.0.2.10"),
        (" , ", "192.0.2.10"),
        ("not an ip", "192.0.2.10"),
        ("203.0.113.5:4431", "203.0.113.5"),
        ("198.51.100.1, 2001:db8::7", "2001:db8::7"),
    ],
)
def test_a_forwarded_entry_that_is_no_address_falls_back_to_the_connection(
    users, settings, forwarded, counted
):
    """A proxy that appends 'unknown' or 'ip:port' (or a request that bypassed it) must not turn
    a failed login into a server error: the address column is an inet on PostgreSQL."""
    from axes.models import AccessAttempt

    settings.LOUPE_PROXY_COUNT = 1
    client = Client(REMOTE_ADDR="192.0.2.10")
    wrong = client.post(LOGIN, WRONG, HTTP_X_FORWARDED_FOR=forwarded)
    assert wrong.status_code == 200  # the form again, with its error
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == [counted]


# --- Settings from the environment ------------------------------------------------------------

OURS = {
    "LOUPE_LOGIN_FAILURE_LIMIT",
    "LOUPE_LOGIN_COOLOFF_MINUTES",
    "LOUPE_TOKEN_RATE",
    "LOUPE_PROXY_COUNT",
}
SHOW = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup();"
    "from django.conf import settings as s;"
    "print(s.AXES_FAILURE_LIMIT); print(s.AXES_COOLOFF_TIME.total_seconds());"
    "print(s.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']['auth-token']);"
    "print(s.LOUPE_PROXY_COUNT, s.REST_FRAMEWORK['NUM_PROXIES']);"
    "print(s.AXES_LOCKOUT_PARAMETERS, s.AXES_HANDLER, s.AXES_RESET_ON_SUCCESS)"
)


def _settings_with(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in OURS}
    return subprocess.run(
        [sys.executable, "-c", SHOW],
        cwd=ROOT,
        env={**clean, "DEBUG": "1", **env},
        capture_output=True,
        text=True,
    )


def test_the_limits_come_from_the_environment():
    defaults = _settings_with()
    assert defaults.returncode == 0, defaults.stderr
    assert defaults.stdout.splitlines() == [
        "5",
        "900.0",
        "10/min",
        "0 0",
        "[['username', 'ip_address']] axes.handlers.database.AxesDatabaseHandler True",
    ]

    chosen = _settings_with(
        LOUPE_LOGIN_FAILURE_LIMIT="8",
        LOUPE_LOGIN_COOLOFF_MINUTES="2",
        LOUPE_TOKEN_RATE="3/hour",
        LOUPE_PROXY_COUNT="1",
    )
    assert chosen.returncode == 0, chosen.stderr
    assert chosen.stdout.splitlines()[:4] == ["8", "120.0", "3/hour", "1 1"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("LOUPE_TOKEN_RATE", "ten a minute"),
        ("LOUPE_LOGIN_FAILURE_LIMIT", "0"),
        ("LOUPE_LOGIN_COOLOFF_MINUTES", "0"),
        ("LOUPE_PROXY_COUNT", "-1"),
    ],
)
def test_a_wrong_value_is_refused_at_start(name, value):
    result = _settings_with(**{name: value})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and name in result.stderr
