"""Helpers for the browser tests: log in, open a task, wait for saves, read the server."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parents[2] / "var" / "artifacts"
PASSWORD = {"annotator": "loupe-annotator", "researcher": "loupe-researcher"}
# The pages' timers in these tests (conftest sets LOUPE_UI_POLL_MS and LOUPE_UI_BEAT_MS): the
# milliseconds between two looks at a running job, and between two presence heartbeats at most.
POLL_MS = 200
BEAT_MS = 200


@dataclass
class World:
    """What a browser test works on: the live server's URL and a campaign with tasks."""

    url: str
    campaign: object
    tasks: dict  # (external_id, username) -> Task

    def task(self, external_id: str = "demo-001", username: str = "annotator"):
        return self.tasks[(external_id, username)]

    def compute_suggestions(self) -> None:
        """Compute the campaign's suggestions in this process (no Celery) through the job
        kernel: a new suggestion job (replacing the held one) run inline, then ready."""
        from annotation.campaigns.services import suggestion_job_create, suggestion_job_run_inline

        job = suggestion_job_create(campaign=self.campaign, queue=False)
        assert suggestion_job_run_inline(job=job).status == "succeeded", job.error


def _password(username: str, password: str | None) -> str:
    """The password given, else the demo user's, else a test user's ``pw-<username>``."""
    return password or PASSWORD.get(username, f"pw-{username}")


def login(page, base_url: str, username: str = "annotator", password: str | None = None):
    """Log in through the login view, without drawing the form: the page's profile gets the
    session, and the page stays where it was (a test goes to the page it is about next).

    The view gets what the form sends (its CSRF token, the username and password) from the
    profile's own requests, which share its cookies. Drawing the login form and then the home
    page took about 0.4 CPU-s of the browser's and the server's for each login, and most
    browser tests log in once or more. Tests about the form, or about the home page the form
    leads to, use :func:`login_through_form`.
    """
    request, address = page.context.request, f"{base_url}/login/"
    form = request.get(address)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text())
    assert form.ok and token, f"no login form at {address}: {form.status}"
    answer = request.post(
        address,
        form={
            "csrfmiddlewaretoken": token.group(1),
            "username": username,
            "password": _password(username, password),
        },
        headers={"Referer": address},
        max_redirects=0,
    )
    assert answer.status == 302, f"{username} was not logged in: {answer.status}"


def login_through_form(
    page, base_url: str, username: str = "annotator", password: str | None = None
):
    """Log in by filling the login page's form; the page ends on the home page."""
    page.goto(f"{base_url}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", _password(username, password))
    page.click("form button[type=submit]")
    page.wait_for_url(f"{base_url}/")


def open_task(page, world: World, task) -> None:
    """Open a task's workspace and wait until it has drawn the document."""
    page.goto(f"{world.url}/tasks/{task.pk}/")
    page.wait_for_selector("#workspace[aria-busy=false] #sentences li")


def workspace_page(context, world: World, task, username: str = "annotator"):
    """A new page, logged in as ``username``, showing the task's workspace."""
    page = context.new_page()
    login(page, world.url, username)
    open_task(page, world, task)
    return page


def sentence(page, index: int):
    """The document sentence with a 0-based index."""
    return page.locator(f"#sentences li[data-index='{index}']")


def wait_saved(page, timeout: float = 10_000) -> None:
    """Wait until the save indicator says every change is on the server."""
    page.wait_for_function(
        "() => { const s = document.getElementById('save-state');"
        " return s && s.dataset.state === 'saved'; }",
        timeout=timeout,
    )


def pending_copies(page, task) -> list[dict]:
    """Every unconfirmed copy of a task kept in the page's localStorage (one key per tab:
    ``loupe:pending:<task>:<tab>``)."""
    return page.evaluate(
        """(prefix) => Object.keys(localStorage)
            .filter((key) => key === prefix || key.startsWith(prefix + ':'))
            .sort()
            .map((key) => ({ key, ...JSON.parse(localStorage.getItem(key)) }))""",
        f"loupe:pending:{task.pk}",
    )


def api_get(page, world: World, path: str):
    """GET a JSON API path with the page's session (what the server really holds)."""
    response = page.request.get(f"{world.url}{path}")
    assert response.ok, response.text()
    return response.json()


def groups(page, world: World, task) -> list[list[list[int]]]:
    """The server's support groups of a task's FAM, per facet."""
    return [f["groups"] for f in api_get(page, world, f"/api/tasks/{task.pk}/")["fam"]["facets"]]


def choose_file(page, path, selector: str = "input[type=file]") -> None:
    """Open the focused file input's chooser from the keyboard (Space) and pick ``path``.

    ``selector`` names the input that must have the focus.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
    from playwright.sync_api import expect

    focused = page.locator(f"{selector}:focus")
    expect(focused).to_have_count(1)
    # Under load Chromium has been seen to drop the first chooser request; Space is pressed
    # again (the input keeps the focus), and three misses in a row fail the test.
    for attempt in range(3):
        try:
            with page.expect_file_chooser(timeout=10_000) as chooser:
                page.keyboard.press("Space")
            break
        except PlaywrightTimeoutError:
            if attempt == 2:
                raise
            expect(focused).to_have_count(1)
    chooser.value.set_files(str(path))


@contextmanager
def requests_held(page, pattern: str):
    """Hold the page's requests to ``pattern`` while the block runs, then let them go in order.

    On leaving the block it first waits until at least one request was held, so a test can type
    several keys without a debounced request leaving between them, or hold a response back.

    Args:
        page: the Playwright page.
        pattern: a URL glob, e.g. ``"**/api/tasks/7/fam/"``.

    Yields:
        The list of held routes (filled in as requests are made).
    """
    held: list = []
    page.route(pattern, lambda route: held.append(route))
    try:
        yield held
        # Playwright hands the page's events over only while it is called: wait through it.
        eventually(
            lambda: page.wait_for_timeout(50) or bool(held), message=f"no request to {pattern}"
        )
    finally:
        for route in held:
            route.continue_()
        page.unroute(pattern)


def requests_in_flight(page) -> set:
    """The page's requests not finished or failed yet, from now on.

    Args:
        page: the Playwright page.

    Returns:
        A live set of requests, which the page's events keep up to date.
    """
    flying: set = set()
    page.on("request", lambda request: flying.add(request))
    page.on("requestfinished", lambda request: flying.discard(request))
    page.on("requestfailed", lambda request: flying.discard(request))
    return flying


def close_offline_page(context, page, flying: set) -> None:
    """Close a page of an offline context so that nothing it sends can reach the server.

    Closing a page ends Playwright's session with it before the page is gone, and the emulated
    offline state ends with it: a request the page still has in flight, or starts from a timer
    then (a save retried with backoff), reaches the server although the context is offline. So
    the context's clock stops first (``context.clock.install()`` must have run before the page
    opened), the page's requests settle, it closes, and the clock runs on.

    Args:
        context: the page's browser context, offline, with its clock installed.
        page: the page to close.
        flying: the page's requests in flight (:func:`requests_in_flight`).
    """
    context.clock.pause_at(time.time() + 0.1)  # no timer fires from here on
    eventually(lambda: page.wait_for_timeout(20) or not flying, message="a request stays in flight")
    page.close()
    context.clock.resume()


def eventually(check: Callable[[], bool], timeout: float = 10.0, message: str = "") -> None:
    """Poll ``check`` until it is true (the page saves asynchronously)."""
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return
        if time.monotonic() > deadline:
            raise AssertionError(message or "condition not met in time")
        time.sleep(0.1)
