"""User management: invite, accept, add, deactivate, reactivate, reset, token revocation and the
token rules (expiry, replacement on a password change), through the API and the pages."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.users.links import secret_hash
from annotation.users.models import Invitation

GOOD = "Quiet-harbour-lamp-42"  # passes Django's four validators
ADMIN_ENDPOINTS = [
    ("get", "/api/users/overview/", None),
    ("post", "/api/users/create/", {"username": "x1", "role": "Annotator", "password": GOOD}),
    ("post", "/api/users/invite/", {"username": "x2", "role": "Annotator"}),
    ("post", "/api/users/t-norole/deactivate/", None),
    ("post", "/api/users/t-norole/reactivate/", None),
    ("post", "/api/users/t-norole/password-reset/", None),
    ("post", "/api/users/t-norole/token/revoke/", None),
]


def _secret(link: str) -> str:
    assert "/invite/" in link
    return link.rstrip("/").rsplit("/", 1)[1]


def _login(username: str, password: str) -> Client:
    """A browser-like client that logged in through the login page (None-like if refused)."""
    client = Client()
    client.post("/login/", {"username": username, "password": password})
    return client


def _logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def _accept(secret: str, password: str, **extra):
    return APIClient().post(
        "/api/invitations/accept/", {"secret": secret, "password": password}, format="json"
    )


def _invite(admin: APIClient, username: str = "newbie", role: str = "Annotator") -> str:
    response = admin.post("/api/users/invite/", {"username": username, "role": role})
    assert response.status_code == 201, response.content
    return _secret(response.json()["link"])


def _token_for(username: str, password: str) -> str:
    response = APIClient().post(
        "/api/auth/token/", {"username": username, "password": password}, format="json"
    )
    assert response.status_code == 200, response.content
    return response.json()["token"]


def _with_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


# --- Invitations ---------------------------------------------------------------------------------


def test_an_invitation_gives_a_one_time_link_whose_secret_is_stored_hashed(client_for, settings):
    settings.LOUPE_INVITE_DAYS = 3
    admin = client_for("admin")
    before = timezone.now()
    response = admin.post(
        "/api/users/invite/", {"username": "newbie", "role": "Annotator", "email": "n@example.org"}
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["link"].startswith("http://testserver/invite/")
    secret = _secret(body["link"])
    assert len(secret) >= 40
    invitation = Invitation.objects.get()
    assert invitation.secret_hash == secret_hash(secret) != secret
    assert secret not in str(Invitation.objects.values().get())
    assert invitation.kind == "invite" and invitation.created_by.username == "t-admin"
    days = (invitation.expires_at - before).total_seconds() / 86400
    assert 3 <= days < 3.01
    user = get_user_model().objects.get(username="newbie")
    assert user.is_active and not user.has_usable_password() and user.email == "n@example.org"
    assert body["user"]["state"] == "invited" and body["user"]["roles"] == ["Annotator"]
    assert body["user"]["invitation"]["kind"] == "invite"
    # Invited users can be given tasks before they accept: they are in the staffing list.
    staff = admin.get("/api/users/?role=Annotator").json()
    assert "newbie" in [u["username"] for u in staff]


def test_the_invitee_sets_a_password_checked_by_the_validators_then_logs_in(client_for):
    secret = _invite(client_for("admin"))
    page = Client().get(f"/invite/{secret}/")
    assert page.status_code == 200 and b"newbie" in page.content
    assert page["Referrer-Policy"] == "no-referrer" and "no-store" in page["Cache-Control"]
    assert _logged_in(_login("newbie", "")) is False

    refused = _accept(secret, "12345678")
    assert refused.status_code == 400
    messages = " ".join(refused.json()["extra"]["fields"]["password"])
    assert "too common" in messages and "entirely numeric" in messages
    short = _accept(secret, "newbie1")
    assert "too short" in " ".join(short.json()["extra"]["fields"]["password"])
    alike = _accept(secret, "newbie123")
    assert "too similar to the username" in " ".join(alike.json()["extra"]["fields"]["password"])
    assert not get_user_model().objects.get(username="newbie").has_usable_password()

    accepted = _accept(secret, GOOD)
    assert accepted.status_code == 200 and accepted.json() == {"username": "newbie"}
    assert _logged_in(_login("newbie", GOOD))
    assert Invitation.objects.get().used_at is not None


def test_a_link_works_once(client_for):
    secret = _invite(client_for("admin"))
    assert _accept(secret, GOOD).status_code == 200
    again = _accept(secret, "Another-fine-phrase-9")
    assert again.status_code == 410
    assert "used already" in again.json()["message"]
    page = Client().get(f"/invite/{secret}/")
    assert page.status_code == 410 and b"used already" in page.content
    assert _logged_in(_login("newbie", GOOD))
    assert not _logged_in(_login("newbie", "Another-fine-phrase-9"))


def test_an_expired_link_is_refused_with_a_clear_page(client_for):
    secret = _invite(client_for("admin"))
    Invitation.objects.update(
        created_at=timezone.now() - timedelta(days=8), expires_at=timezone.now() - timedelta(days=1)
    )
    page = Client().get(f"/invite/{secret}/")
    assert page.status_code == 410 and b"This link expired on" in page.content
    refused = _accept(secret, GOOD)
    assert refused.status_code == 410 and "expired" in refused.json()["message"]
    assert not get_user_model().objects.get(username="newbie").has_usable_password()


def test_an_unknown_link_is_404_on_the_page_and_the_api(db):
    page = Client().get("/invite/not-a-real-secret/")
    assert page.status_code == 404 and b"This link is not valid" in page.content
    refused = _accept("not-a-real-secret", GOOD)
    assert refused.status_code == 404
    assert refused.json() == {"message": refused.json()["message"], "extra": {}}


def test_the_accept_endpoint_takes_json_only(client_for):
    secret = _invite(client_for("admin"))
    form = Client().post("/api/invitations/accept/", {"secret": secret, "password": GOOD})
    assert form.status_code == 415
    assert not get_user_model().objects.get(username="newbie").has_usable_password()


def test_a_new_link_withdraws_the_earlier_one(client_for):
    admin = client_for("admin")
    first = _invite(admin)
    again = admin.post("/api/users/newbie/password-reset/")
    assert again.status_code == 201 and again.json()["kind"] == "invite"  # never had a password
    second = _secret(again.json()["link"])
    refused = _accept(first, GOOD)
    assert refused.status_code == 410 and "withdrawn" in refused.json()["message"]
    assert _accept(second, GOOD).status_code == 200


# --- Adding with a password ----------------------------------------------------------------------


def test_an_admin_adds_a_user_with_a_password(client_for):
    admin = client_for("admin")
    response = admin.post(
        "/api/users/create/", {"username": "res2", "role": "Researcher", "password": GOOD}
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["username"] == "res2" and body["roles"] == ["Researcher"]
    assert body["state"] == "active" and body["last_login"] is None
    assert _logged_in(_login("res2", GOOD))


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"username": "weak", "role": "Annotator", "password": "password"}, "password", "common"),
        ({"username": "weak", "role": "Annotator", "password": "x7"}, "password", "too short"),
        ({"username": "weak", "role": "Boss", "password": GOOD}, "role", "valid choice"),
        ({"username": "bad name!", "role": "Annotator", "password": GOOD}, "username", "valid"),
        ({"username": "weak", "role": "Annotator"}, "password", "required"),
        ({"username": "weak", "role": "Annotator", "password": GOOD, "email": "no"}, "email", ""),
    ],
)
def test_a_refused_user_is_not_added_and_the_field_is_named(client_for, body, field, words):
    response = client_for("admin").post("/api/users/create/", body)
    assert response.status_code == 400, response.content
    assert response.json()["message"] == "Validation error"
    assert words in " ".join(response.json()["extra"]["fields"][field])
    assert not get_user_model().objects.filter(username=body["username"]).exists()


def test_a_taken_username_is_a_conflict(client_for):
    admin = client_for("admin")
    for url, body in (
        ("/api/users/create/", {"username": "T-Annotator", "role": "Annotator", "password": GOOD}),
        ("/api/users/invite/", {"username": "t-annotator", "role": "Annotator"}),
    ):
        response = admin.post(url, body)
        assert response.status_code == 409
        assert "taken" in response.json()["extra"]["fields"]["username"][0]
    assert not Invitation.objects.exists()


# --- Roles ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["norole", "annotator", "researcher"])
def test_only_admins_manage_users(client_for, users, role):
    client = client_for(role)
    for method, url, body in ADMIN_ENDPOINTS:
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code == 403, (url, response.content)
        assert response.json()["message"]
    anonymous = client_for(None)
    for method, url, body in ADMIN_ENDPOINTS:
        assert getattr(anonymous, method)(url, body, format="json").status_code == 401
    assert get_user_model().objects.get(username="t-norole").is_active
    assert not get_user_model().objects.filter(username__in=["x1", "x2"]).exists()


def test_the_users_page_is_for_admins_with_a_nav_link(users):
    admin, annotator = Client(), Client()
    admin.force_login(users["admin"])
    annotator.force_login(users["annotator"])
    page = admin.get("/manage/users/")
    assert page.status_code == 200
    assert b'href="/manage/users/"' in page.content and b"manage-users" in page.content
    assert b"at least 8 characters" in page.content  # the validators' own rules
    assert annotator.get("/manage/users/").status_code == 403
    assert b'href="/manage/users/"' not in annotator.get("/tasks/").content
    assert Client().get("/manage/users/").status_code == 302


# --- Deactivation --------------------------------------------------------------------------------


def test_a_deactivated_user_cannot_log_in_or_use_a_token_or_a_session(client_for, users):
    key = _token_for("t-annotator", "pw-annotator")
    session = _login("t-annotator", "pw-annotator")
    assert _with_token(key).get("/api/me/").status_code == 200
    assert session.get("/api/me/").status_code == 200

    response = client_for("admin").post("/api/users/t-annotator/deactivate/")
    assert response.status_code == 200
    assert response.json()["state"] == "deactivated" and response.json()["token"] is None

    assert _with_token(key).get("/api/me/").status_code == 401
    assert session.get("/api/me/").status_code in (401, 403)
    assert not _logged_in(_login("t-annotator", "pw-annotator"))
    refused = APIClient().post(
        "/api/auth/token/", {"username": "t-annotator", "password": "pw-annotator"}, format="json"
    )
    assert refused.status_code == 400


def test_an_inactive_users_kept_token_is_refused(users):
    """Even a token left in place (made in the admin) does not work for a deactivated user."""
    key = Token.objects.create(user=users["annotator"]).key
    get_user_model().objects.filter(pk=users["annotator"].pk).update(is_active=False)
    response = _with_token(key).get("/api/me/")
    assert response.status_code == 401 and "inactive" in response.json()["message"]


def test_reactivation_lets_the_user_log_in_again(client_for, users):
    admin = client_for("admin")
    admin.post("/api/users/t-annotator/deactivate/")
    response = admin.post("/api/users/t-annotator/reactivate/")
    assert response.status_code == 200 and response.json()["state"] == "active"
    assert _logged_in(_login("t-annotator", "pw-annotator"))


def test_an_admin_cannot_deactivate_or_reset_themselves(client_for):
    admin = client_for("admin")
    for action in ("deactivate", "password-reset"):
        response = admin.post(f"/api/users/t-admin/{action}/")
        assert response.status_code == 400 and "your own" in response.json()["message"]
    assert get_user_model().objects.get(username="t-admin").is_active


def test_a_deactivated_users_link_stops_working_and_says_why(client_for):
    admin = client_for("admin")
    secret = _invite(admin)
    admin.post("/api/users/newbie/deactivate/")
    page = Client().get(f"/invite/{secret}/")
    assert page.status_code == 403 and b"deactivated" in page.content
    assert _accept(secret, GOOD).status_code == 403
    refused = admin.post("/api/users/newbie/password-reset/")
    assert refused.status_code == 400 and "reactivate" in refused.json()["message"]


def test_an_unknown_user_is_404(client_for):
    response = client_for("admin").post("/api/users/nobody/deactivate/")
    assert response.status_code == 404 and response.json()["message"]


# --- Password reset ------------------------------------------------------------------------------


def test_a_reset_ends_the_old_password_sessions_and_token_and_gives_a_link(client_for, users):
    key = _token_for("t-researcher", "pw-researcher")
    session = _login("t-researcher", "pw-researcher")
    response = client_for("admin").post("/api/users/t-researcher/password-reset/")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["kind"] == "reset" and body["user"]["state"] == "reset"
    assert _with_token(key).get("/api/me/").status_code == 401
    assert session.get("/api/me/").status_code in (401, 403)
    assert not _logged_in(_login("t-researcher", "pw-researcher"))

    page = Client().get(f"/invite/{_secret(body['link'])}/")
    assert page.status_code == 200 and b"Set a new password" in page.content
    assert _accept(_secret(body["link"]), GOOD).status_code == 200
    assert _logged_in(_login("t-researcher", GOOD))
    assert _token_for("t-researcher", GOOD) != key


# --- Tokens --------------------------------------------------------------------------------------


def test_an_expired_token_gets_401_json_and_a_new_one_is_handed_out(users, settings):
    settings.LOUPE_TOKEN_DAYS = 2
    key = _token_for("t-researcher", "pw-researcher")
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=2, seconds=-60))
    assert _with_token(key).get("/api/me/").status_code == 200  # a minute left
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=2, seconds=1))
    expired = _with_token(key).get("/api/me/")
    assert expired.status_code == 401
    assert expired.json() == {
        "message": "The token has expired; get a new one from POST /api/auth/token/.",
        "extra": {},
    }
    assert expired["WWW-Authenticate"] == "Token"
    fresh = _token_for("t-researcher", "pw-researcher")
    assert fresh != key and _with_token(fresh).get("/api/me/").status_code == 200
    assert Token.objects.filter(user=users["researcher"]).count() == 1


def test_a_token_obtained_twice_is_the_same_until_it_expires(users):
    assert _token_for("t-researcher", "pw-researcher") == _token_for(
        "t-researcher", "pw-researcher"
    )


def test_a_password_change_replaces_the_token(users):
    key = _token_for("t-researcher", "pw-researcher")
    user = get_user_model().objects.get(username="t-researcher")
    user.set_password(GOOD)  # as the Django admin or `manage.py changepassword` do
    user.save()
    assert _with_token(key).get("/api/me/").status_code == 401
    fresh = _token_for("t-researcher", GOOD)
    assert fresh != key and _with_token(fresh).get("/api/me/").status_code == 200
    # Saves that do not change the password keep the token.
    user = get_user_model().objects.get(username="t-researcher")
    user.email = "r@example.org"
    user.save()
    assert _with_token(fresh).get("/api/me/").status_code == 200


def test_an_admin_revokes_a_users_token(client_for, users):
    key = _token_for("t-researcher", "pw-researcher")
    admin = client_for("admin")
    listed = {u["username"]: u for u in admin.get("/api/users/overview/").json()}
    assert listed["t-researcher"]["token"]["expired"] is False
    response = admin.post("/api/users/t-researcher/token/revoke/")
    assert response.status_code == 200
    assert response.json()["revoked"] == 1 and response.json()["user"]["token"] is None
    assert _with_token(key).get("/api/me/").status_code == 401
    assert admin.post("/api/users/t-researcher/token/revoke/").json()["revoked"] == 0


def test_a_user_reads_and_revokes_their_own_token(users, settings):
    settings.LOUPE_TOKEN_DAYS = 10
    key = _token_for("t-annotator", "pw-annotator")
    client = _with_token(key)
    mine = client.get("/api/me/token/").json()
    created = Token.objects.get(key=key).created
    assert mine["exists"] is True
    assert mine["expires_at"] == (created + timedelta(days=10)).isoformat().replace("+00:00", "Z")
    assert client.delete("/api/me/token/").status_code == 204
    assert client.get("/api/me/token/").status_code == 401
    other = APIClient()
    other.force_authenticate(users["annotator"])
    assert other.get("/api/me/token/").json() == {
        "exists": False,
        "created": None,
        "expires_at": None,
    }


# --- Who is active on what -----------------------------------------------------------------------


def test_the_overview_says_who_works_on_what(demo, users, client_for):
    from annotation.campaigns.models import TaskPresence
    from annotation.campaigns.services import campaign_create, tasks_assign_manual
    from annotation.corpus.models import Dataset

    campaign = campaign_create(
        dataset=Dataset.objects.get(slug="demo"),
        slug="who",
        name="Who works",
        scorers=[],
        documents=["demo-001", "demo-002", "demo-003"],
    )
    first, second, third = tasks_assign_manual(
        campaign=campaign,
        assignments=[(d, "t-annotator") for d in ("demo-001", "demo-002", "demo-003")],
    )
    first.status, second.status = "submitted", "in_progress"
    first.save()
    second.save()
    TaskPresence.objects.create(
        task=second, user=users["annotator"], client_id="tab", last_seen=timezone.now()
    )
    admin = client_for("admin")
    admin.post("/api/users/t-norole/deactivate/")
    listed = {u["username"]: u for u in admin.get("/api/users/overview/").json()}
    entry = listed["t-annotator"]
    (work,) = [c for c in entry["campaigns"] if c["slug"] == "who"]
    assert work["name"] == "Who works" and work["status"] == "open" and work["kind"] == "fam"
    assert (work["total"], work["submitted"], work["in_progress"], work["todo"]) == (3, 1, 1, 1)
    assert work["working_now"] is True and work["last_worked"] is not None
    assert entry["roles"] == ["Annotator"] and entry["state"] == "active"
    assert listed["t-admin"]["roles"] == ["Admin"] and listed["t-admin"]["campaigns"] == []
    assert listed["t-norole"]["roles"] == [] and listed["t-norole"]["state"] == "deactivated"
    # A tab silent longer than LOUPE_PRESENCE_SECONDS no longer counts.
    TaskPresence.objects.update(last_seen=timezone.now() - timedelta(minutes=5))
    listed = {u["username"]: u for u in admin.get("/api/users/overview/").json()}
    (work,) = [c for c in listed["t-annotator"]["campaigns"] if c["slug"] == "who"]
    assert work["working_now"] is False

    only = admin.get("/api/users/overview/?role=Annotator&state=active").json()
    assert {u["username"] for u in only} >= {"t-annotator"}
    assert all("Annotator" in u["roles"] and u["state"] == "active" for u in only)
    gone = admin.get("/api/users/overview/?state=deactivated").json()
    assert [u["username"] for u in gone] == ["t-norole"]
    assert admin.get("/api/users/overview/?state=asleep").status_code == 400


def test_last_login_is_shown(client_for, users):
    assert _logged_in(_login("t-annotator", "pw-annotator"))
    listed = {u["username"]: u for u in client_for("admin").get("/api/users/overview/").json()}
    assert listed["t-annotator"]["last_login"] is not None
    assert listed["t-researcher"]["last_login"] is None


# --- Settings ------------------------------------------------------------------------------------


def _settings_with(**env: str):
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings';"
        "django.setup(); from django.conf import settings as s;"
        "print(s.LOUPE_TOKEN_DAYS, s.LOUPE_INVITE_DAYS)"
    )
    clean = {
        k: v for k, v in os.environ.items() if k not in {"LOUPE_TOKEN_DAYS", "LOUPE_INVITE_DAYS"}
    }
    return subprocess.run(  # noqa: S603 - fixed argv
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[1],
        env={**clean, "DEBUG": "1", **env},
        capture_output=True,
        text=True,
    )


def test_the_token_and_link_lifetimes_come_from_the_environment():
    assert _settings_with().stdout.split() == ["30", "7"]
    assert _settings_with(LOUPE_TOKEN_DAYS="90", LOUPE_INVITE_DAYS="1").stdout.split() == [
        "90",
        "1",
    ]
    for name in ("LOUPE_TOKEN_DAYS", "LOUPE_INVITE_DAYS"):
        refused = _settings_with(**{name: "0"})
        assert refused.returncode != 0
        assert "ImproperlyConfigured" in refused.stderr and name in refused.stderr
