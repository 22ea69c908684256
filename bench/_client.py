"""HTTP client of the server benchmarks: one loopback connection per request, logins."""

from __future__ import annotations

import http.client
import json
import re
import time
from dataclasses import dataclass
from http.cookies import SimpleCookie


@dataclass
class Reply:
    """One HTTP exchange as the client saw it."""

    status: int
    body: bytes
    seconds: float
    cookies: dict[str, str]

    def json(self):
        return json.loads(self.body)


def request(
    port: int,
    method: str,
    path: str,
    *,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    timeout: float = 30,
) -> Reply:
    """Send one request on a new loopback connection and read the whole response.

    gunicorn's sync workers close every connection after the response, so a new connection
    per request is what any client gets; the time includes the connect.

    Args:
        port: the server's port on 127.0.0.1.
        method: HTTP method.
        path: path and query.
        headers: extra headers.
        body: request body.
        timeout: socket timeout in seconds.

    Returns:
        The :class:`Reply` (status, body, client-side seconds, cookies set).
    """
    start = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        seconds = time.perf_counter() - start
        jar = SimpleCookie()
        for value in response.headers.get_all("Set-Cookie") or []:
            jar.load(value)
        return Reply(response.status, data, seconds, {k: m.value for k, m in jar.items()})
    finally:
        connection.close()


def token_headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Token {token}", "Accept": "application/json"}


def obtain_token(port: int, username: str, password: str) -> str:
    """``POST /api/auth/token/`` and return the token."""
    body = json.dumps({"username": username, "password": password}).encode()
    reply = request(
        port,
        "POST",
        "/api/auth/token/",
        headers={"Content-Type": "application/json"},
        body=body,
    )
    if reply.status != 200:
        raise RuntimeError(f"token for {username}: HTTP {reply.status} {reply.body[:200]!r}")
    return reply.json()["token"]


def session_login(port: int, username: str, password: str) -> str:
    """Log in through ``/login/`` (CSRF token from the form) and return the session cookie."""
    page = request(port, "GET", "/login/")
    match = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.body)
    if page.status != 200 or match is None or "csrftoken" not in page.cookies:
        raise RuntimeError(f"login page: HTTP {page.status}, no CSRF token")
    form = (
        f"csrfmiddlewaretoken={match.group(1).decode()}&username={username}&password={password}"
    ).encode()
    reply = request(
        port,
        "POST",
        "/login/",
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={page.cookies['csrftoken']}",
        },
        body=form,
    )
    if reply.status != 302 or "sessionid" not in reply.cookies:
        raise RuntimeError(f"login: HTTP {reply.status} {reply.body[:200]!r}")
    return reply.cookies["sessionid"]
