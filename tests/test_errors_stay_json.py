"""Errors stay JSON and bounded: the database down, hostile nesting, unknown API paths."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from scoring.metrics import jsontext

ROOT = Path(__file__).resolve().parents[1]
DEEP = 100_000
# Endpoints that need no login (the credential is in the body): a well-formed body reaches the
# database; a malformed one is refused before it, without one.
OPEN_POSTS = {
    "/api/auth/token/": b'{"username": "a", "password": "b"}',
    "/api/invitations/accept/": b'{"secret": "' + b"x" * 43 + b'", "password": "Long-enough-pw-1"}',
}


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _deep(depth: int = DEEP) -> str:
    return "[" * depth + "]" * depth


def _api_paths() -> list[str]:
    """Every API URL pattern with its parameters filled in (ids 1, slugs "x")."""
    paths = []

    def walk(patterns, prefix):
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern):
                paths.append(route)

    walk(get_resolver().url_patterns, "/")
    filled = {
        re.sub(
            r"<(?:(\w+):)?(\w+)>",
            lambda m: "1" if (m.group(1) or "str") == "int" else "x",
            path,
        )
        .replace("^", "")
        .replace("$", "")
        for path in paths
        if path.startswith("/api/")
    }
    return sorted(filled)


def _request(url: str, *, method: str = "GET", headers: dict | None = None, body=None):
    request = urllib.request.Request(url, method=method, headers=headers or {}, data=body)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:  # noqa: S310 - loopback
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


@pytest.fixture
def server_without_database(tmp_path):
    """Loupe under gunicorn (as deployed) whose PostgreSQL is down: nothing listens on its port."""
    port = _free_port()
    down = _free_port()  # bound and released: nothing listens there
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{down}/loupe",
        "LOUPE_VAR_DIR": str(tmp_path / "var"),
        "HEALTH_WORKER_TIMEOUT": "1",
        "ALLOWED_HOSTS": "127.0.0.1",
    }
    server = subprocess.Popen(  # noqa: S603 - fixed argv
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "config.wsgi:application",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            "1",
            "--timeout",
            "60",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "gunicorn.log", "w"),  # noqa: SIM115 - closed with the process
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            _request(f"{url}/login/")
            break
        except OSError:
            time.sleep(0.3)
    try:
        yield {"url": url, "port": down, "log": tmp_path / "gunicorn.log"}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def test_every_api_answers_503_json_with_retry_after_while_the_database_is_down(
    server_without_database,
):
    url = server_without_database["url"]
    paths = _api_paths()
    assert len(paths) > 60  # the walk found the API, not a stub
    credentials = {
        "session": {"Cookie": "sessionid=abcdefghijklmnopqrstuvwxyz012345"},
        "token": {"Authorization": "Token 0123456789abcdef0123456789abcdef01234567"},
    }
    wrong = []
    for path in paths:
        for name, headers in credentials.items():
            for method in ("GET", "POST"):
                if path in OPEN_POSTS and method == "GET":
                    continue  # POST only, and it needs no credentials: 405 needs no database
                body = OPEN_POSTS.get(path, b"{}") if method == "POST" else None
                sent = {**headers, "Content-Type": "application/json"} if body else headers
                status, got, text = _request(f"{url}{path}", method=method, headers=sent, body=body)
                # The OpenAPI schema answers in YAML unless asked for JSON, errors included.
                json_reply = "/api/schema/" not in path
                ok = (
                    status == 503
                    and got.get("Retry-After") == "30"
                    and (
                        not json_reply or got.get("Content-Type", "").startswith("application/json")
                    )
                    and "The database is unreachable" in text
                )
                if not ok:
                    wrong.append((method, path, name, status, text[:120]))
    assert wrong == [], "\n".join(map(str, wrong))
    # Without credentials nothing needs the database to refuse: still JSON, never a 500 page.
    for path in paths:
        if path == "/api/docs/":
            continue  # the HTML page (Swagger UI): its 401 is HTML
        status, got, text = _request(f"{url}{path}", headers={"Accept": "application/json"})
        assert status in (401, 403, 404, 405, 503), (path, status, text[:200])
        assert got.get("Content-Type", "").startswith("application/json"), (path, text[:200])


def test_healthz_says_database_unreachable_without_the_drivers_message(server_without_database):
    status, _, text = _request(f"{server_without_database['url']}/healthz")
    assert status == 503
    database = json.loads(text)["checks"]["database"]
    assert database == {"ok": False, "error": "database unreachable"}
    assert str(server_without_database["port"]) not in text and "127.0.0.1" not in text
    # The operator still finds the driver's message in the server's log.
    assert str(server_without_database["port"]) in server_without_database["log"].read_text()


def test_a_page_says_the_database_is_unreachable_with_503(server_without_database):
    status, got, text = _request(
        f"{server_without_database['url']}/tasks/",
        headers={"Cookie": "sessionid=abcdefghijklmnopqrstuvwxyz012345"},
    )
    assert status == 503 and got.get("Retry-After") == "30"
    assert "cannot reach its database" in text
    assert str(server_without_database["port"]) not in text


# --- unknown API paths ----------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/nothing/", "/api/datasets/1/nothing/", "/api/"])
def test_an_unknown_api_path_is_404_json(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"message": f"No API endpoint at {path}.", "extra": {}}


@pytest.mark.django_db
def test_an_unknown_page_is_still_the_html_404(client):
    response = client.get("/nothing-here/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


# --- nesting --------------------------------------------------------------------------------


def test_the_bounded_parser_names_the_path_and_depth():
    with pytest.raises(jsontext.JsonTooDeepError) as raised:
        jsontext.loads('{"facets": [{"groups": ' + _deep(70) + "}]}")
    found = raised.value.nesting
    assert found.depth == jsontext.MAX_DEPTH + 1
    assert found.path[:4] == ("facets", 0, "groups", 0)
    assert found.where().startswith("$.facets[0].groups[0][0][0]…(")
    assert str(raised.value).startswith("JSON nested deeper than 64 levels (depth 65 at $.facets")
    # At the limit it parses; strings holding brackets do not count.
    assert jsontext.loads(_deep(64)) == json.loads(_deep(64))
    assert jsontext.loads(json.dumps({"x": "[" * 500})) == {"x": "[" * 500}


@pytest.mark.parametrize("path", ["/api/campaigns/create/", "/api/auth/token/"])
def test_a_100000_deep_request_body_gets_400_with_path_and_depth(client_for, path):
    response = client_for("admin").post(
        path, data='{"a": ' + _deep() + "}", content_type="application/json"
    )
    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert body["message"].startswith("JSON nested deeper than 64 levels (depth 65 at $.a[0]")
    assert body["extra"]["depth"] == 65 and body["extra"]["limit"] == 64
    assert body["extra"]["path"].startswith("$.a[0][0]")


def test_a_100000_deep_line_in_an_output_upload_gets_400_naming_the_line(researcher, dataset):
    content = (
        json.dumps({"doc_id": "x", "summary": "A summary."}) + "\n" + '{"doc_id": ' + _deep() + "}"
    )
    upload = io.BytesIO(content.encode())
    upload.name = "outputs.jsonl"
    response = researcher.post(
        f"/api/datasets/{dataset.slug}/outputs/",
        {"file": upload, "system": "deep", "kind": "abstractive", "dry_run": "true"},
    )
    assert response.status_code == 400, response.content[:300]
    issues = response.json()["extra"]["issues"]
    assert any(
        i["line"] == 2 and i["message"].startswith("JSON nested deeper than 64 levels")
        for i in issues
    ), issues


def test_a_100000_deep_release_manifest_is_an_issue_not_a_crash(tmp_path):
    from annotation.corpus.importers.parsers.loupe_release import parse_loupe_release

    archive = tmp_path / "release.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("demo-v1/manifest.json", _deep())
    with pytest.raises(Exception) as raised:
        parse_loupe_release(archive)
    assert "JSON nested deeper than 64 levels" in str(getattr(raised.value, "issues", raised.value))


@pytest.mark.django_db
def test_the_schema_and_its_docs_need_a_login_unless_made_public(client, settings):
    assert client.get("/api/schema/").status_code == 401
    assert client.get("/api/docs/").status_code == 401
    settings.LOUPE_API_DOCS_PUBLIC = True
    assert client.get("/api/schema/").status_code == 200
    assert client.get("/api/docs/").status_code == 200


# --- a huge bad upload ----------------------------------------------------------------------


def test_a_dry_run_of_many_bad_lines_lists_the_first_thousand_and_counts_the_rest(
    researcher, dataset
):
    """Every line is checked (its JSON, its document id) before any text is split; past 1,000
    issues they are counted. bench/bench_upload_dry_run.py times a million such lines."""
    good = json.dumps({"doc_id": "demo-001", "summary": "Fine. Twice."})
    bad = [json.dumps({"doc_id": f"d{i}", "summary": "A summary."}) for i in range(2500)]
    again = json.dumps({"doc_id": "demo-001", "summary": "Again."})
    upload = io.BytesIO("\n".join([good, *bad, again]).encode())
    upload.name = "outputs.jsonl"
    response = researcher.post(
        f"/api/datasets/{dataset.slug}/outputs/",
        {"file": upload, "system": "many", "kind": "abstractive", "dry_run": "true"},
    )
    assert response.status_code == 400, response.content[:300]
    issues = response.json()["extra"]["issues"]
    assert len(issues) == 1001
    assert issues[0] == {
        "file": "outputs.jsonl",
        "line": 2,
        "field": "doc_id",
        "message": "unknown document id 'd0'",
    }
    assert issues[999]["message"] == "unknown document id 'd999'"
    # 1,500 more unknown ids and the second output for demo-001 (line 2,502) are counted.
    assert issues[1000] == {
        "file": "outputs.jsonl",
        "line": None,
        "field": None,
        "message": "and 1,501 more problems (the first 1,000 are listed)",
    }


def test_a_few_misplaced_lines_are_reported_with_the_files_other_problems(researcher, dataset):
    lines = [
        {"doc_id": "nope", "summary": "A."},
        {"doc_id": "demo-001", "summary": "A thing happened."},
        {"doc_id": "demo-001", "summary": "Again."},
        {"doc_id": "demo-002", "summary": "   "},
    ]
    upload = io.BytesIO("\n".join(json.dumps(line) for line in lines).encode())
    upload.name = "outputs.jsonl"
    response = researcher.post(
        f"/api/datasets/{dataset.slug}/outputs/",
        {"file": upload, "system": "few", "kind": "abstractive", "dry_run": "true"},
    )
    assert response.status_code == 400
    assert [(i["line"], i["message"]) for i in response.json()["extra"]["issues"]] == [
        (1, "unknown document id 'nope'"),
        (3, "duplicate output for document 'demo-001' (first at outputs.jsonl:2 [summary])"),
        (4, "must be a non-empty string"),
    ]
