"""Browser tests: Playwright's sync API driving Debian's Chromium against a live server.

Nothing here downloads a browser. The tests drive Debian's ``chromium-headless-shell`` (the same
Chromium build as the ``chromium`` package, without its window: the headless shell Playwright
itself uses for headless runs). On the same tests it spends about a third less CPU than the full
browser in headless mode, which opens a tab strip renderer per page. Without it, Debian's
``chromium`` is used; without either, every test in this folder skips with a message saying how
to install it.

The live server serves static files the production way: WhiteNoise (in the middleware) serves
the collected, hashed files of ``STATIC_ROOT``, which this session collects first.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import run_folder
from tests.e2e.helpers import BEAT_MS, POLL_MS, World

CHROMIUM = next(
    (
        found
        for name in ("chromium-headless-shell", "chromium")
        for found in (shutil.which(name), f"/usr/bin/{name}")
        if found and Path(found).exists()
    ),
    None,
)
NO_CHROMIUM = "Debian's chromium is not installed: apt-get install chromium-headless-shell"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # No GPU process: its compositing runs in the browser process, in software. Two browser
    # test modules (9 tests) went from 81 to 69 s here, for the same CPU (77 and 75 CPU-s):
    # a frame no longer waits on a hop to another process.
    "--in-process-gpu",
    "--disable-gpu-compositing",
]


# The browser test modules that took longest, longest first (seconds of a SQLite run, 3 xdist
# workers on two cores): no_lost_work 48, job_starts 29, span_workspace 27, workspace 26,
# agreement_pages 23, admin_walkthrough 21, leaderboard_pages 19, admin_pages 16, upload_page 14,
# leaderboard_apes 14, adjudication_page 13, walk_layout 11, leaderboard_polytope 10,
# leaderboard_plots 10, users_page 8; the others 1 to 6. xdist hands each worker its next module
# as it runs out of tests, in the collected order, so these go first and the run ends on short
# modules: in collected order one worker ran no_lost_work alone at the end, and the workers
# finished up to 23 s apart; with only the first eight of these listed, upload_page and
# walk_layout came last and the workers finished 14 s apart.
LONGEST_FIRST = (
    "test_no_lost_work.py",
    "test_job_starts.py",
    "test_span_workspace.py",
    "test_workspace.py",
    "test_agreement_pages.py",
    "test_admin_walkthrough.py",
    "test_leaderboard_pages.py",
    "test_admin_pages.py",
    "test_upload_page.py",
    "test_leaderboard_apes.py",
    "test_adjudication_page.py",
    "test_walk_layout.py",
    "test_leaderboard_polytope.py",
    "test_leaderboard_plots.py",
    "test_users_page.py",
)


def _longest_first(item) -> int:
    name = Path(str(item.fspath)).name
    return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Run the browser tests last, the longest modules first, and skip them with a clear
    message without Chromium.

    They are transactional: each one ends by flushing the database, which also removes the
    rows that data migrations made (the role groups). Running them after every other test
    keeps that from touching the rest of the suite; ``make_world`` recreates those rows.
    """
    here = Path(__file__).parent
    browser_tests = [item for item in items if here in Path(str(item.fspath)).parents]
    if not browser_tests:
        return
    others = [item for item in items if here not in Path(str(item.fspath)).parents]
    browser_tests.sort(key=_longest_first)  # stable: the others keep the collected order
    items[:] = others + browser_tests
    if not CHROMIUM:
        skip = pytest.mark.skip(reason=NO_CHROMIUM)
        for item in browser_tests:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _fast_page_timers(settings):
    """The pages look at running jobs and beat every 200 ms here (LOUPE_UI_POLL_MS,
    LOUPE_UI_BEAT_MS, rendered on <body>) instead of every 1-5 s: a test waiting for the next
    look waits a fifth of a second."""
    settings.LOUPE_UI_POLL_MS = POLL_MS
    settings.LOUPE_UI_BEAT_MS = BEAT_MS


@pytest.fixture(scope="session")
def _collected_static(tmp_path_factory):
    """Collect the static files, so the hashed names the templates use exist in STATIC_ROOT.

    Once per run: under pytest-xdist the workers share STATIC_ROOT, and a second collect
    rewrites hashed files (the CSS) that another worker's browser may be loading. The first
    worker to get here collects, under a lock in the run's shared temporary folder; the others
    wait for it and find the marker.
    """
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # one process: nobody to share with
        _collect_if_changed()
        return
    shared = run_folder(tmp_path_factory)
    with open(shared / "collectstatic.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = shared / "collectstatic.done"
        if not marker.exists():
            _collect_if_changed()
            marker.touch()


def _collect_if_changed() -> None:
    """Run collectstatic unless no source file changed since the last one (``make test``
    collects first): collecting again rewrites hashed files that another xdist worker's
    WhiteNoise may be reading at that moment."""
    from django.contrib.staticfiles.management.commands.collectstatic import Command
    from django.core.management import call_command

    dry = Command()
    dry.set_options(
        interactive=False,
        verbosity=0,
        link=False,
        clear=False,
        dry_run=True,
        ignore_patterns=[],
        use_default_ignore_patterns=True,
        post_process=False,  # a dry post-process empties the storage's manifest in memory
    )
    if dry.collect()["modified"] or not _manifest_exists():
        call_command("collectstatic", interactive=False, verbosity=0)


def _manifest_exists() -> bool:
    """Whether STATIC_ROOT holds the manifest of hashed names the pages need."""
    from django.conf import settings

    return (Path(settings.STATIC_ROOT) / "staticfiles.json").exists()


@pytest.fixture(scope="session")
def live_server(_collected_static):
    """pytest-django's live server, but with static files served by WhiteNoise.

    pytest-django wraps the server in Django's ``StaticFilesHandler``, which looks files up
    with the finders and so cannot serve the hashed names of the manifest storage used with
    ``DEBUG=0``. Here the request goes through the middleware, as in production.
    """
    from pytest_django.live_server_helper import LiveServer

    server = LiveServer("localhost", start=False)
    server.thread.static_handler = _IN_FLIGHT.wrap
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser(django_db_setup):
    """One headless Chromium per test process (Debian's, never a downloaded one); each test
    gets a fresh profile from :func:`context`.

    Playwright's sync API keeps an asyncio event loop running in this thread while it lives,
    and Django refuses ORM calls from a thread with a running loop. The tests' own database
    calls are synchronous, so, as Django's docs advise for such tools, the guard is lifted with
    ``DJANGO_ALLOW_ASYNC_UNSAFE`` for as long as the browser runs. The browser tests run after
    every other test (see ``pytest_collection_modifyitems``), so the browser starts with the
    first of them and the other tests keep the guard. One browser for all of them, not one per
    module: each launch cost its driver and Chromium about a second of CPU. The test database
    is set up before the loop starts.
    """
    if not CHROMIUM:
        pytest.skip(NO_CHROMIUM)
    from playwright.sync_api import sync_playwright

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def context(browser):
    """A fresh browser profile (cookies, localStorage) at 1280x800."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.set_default_timeout(10_000)
    yield ctx
    # Close it and any other profile the test opened and, failing, left open: the browser
    # outlives the test, and a page left polling would reach the next test's server.
    for opened in browser.contexts:
        opened.close()
    _wait_for_the_servers_requests()


class _InFlight:
    """Counts the live server's requests between their start and the return of the
    application (which has run every query by then; no view here streams)."""

    def __init__(self):
        self.count = 0
        self.lock = threading.Lock()

    def wrap(self, handler):
        def counted(environ, start_response):
            with self.lock:
                self.count += 1
            try:
                return handler(environ, start_response)
            finally:
                with self.lock:
                    self.count -= 1

        return counted


_IN_FLIGHT = _InFlight()


def _wait_for_the_servers_requests(timeout: float = 15.0) -> None:
    """Wait until the live server handles no request and no other session of the test
    database runs a statement or holds a transaction open: a request the closed pages left in
    flight (a poll, a plot) still runs in the live server's thread, and a transactional test's
    flush beside it can deadlock (leaving the next tests its rows). Such a request is not
    always seen by its statement: between two statements of a transaction its session is
    "idle in transaction" while it holds locks the flush needs, and between two transactions
    only the count of requests in flight shows it."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    deadline, quiet = time.monotonic() + timeout, 0
    while time.monotonic() < deadline and quiet < 2:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND state <> 'idle'"
            )
            busy = cursor.fetchone()[0] or _IN_FLIGHT.count
        quiet = 0 if busy else quiet + 1
        time.sleep(0.05)


@pytest.fixture
def no_celery(monkeypatch):
    """Campaign creation queues the suggestion precomputation and the demo a scoring job; the
    tests run what they need themselves, so nothing is left on the broker for a later worker."""
    queued = []
    record = lambda *args, **kwargs: queued.append(args)  # noqa: E731
    # Jobs of the job kernel (suggestions, the demo's scoring job) are sent through job_send.
    monkeypatch.setattr("annotation.jobs.kernel.job_send", record)
    return queued


@pytest.fixture
def make_world(live_server, no_celery):
    """``make_world(...)``: the demo, a FAM campaign on it and tasks for the annotator."""

    def make(
        *,
        slug: str = "e2e",
        documents=("demo-001", "demo-003"),
        annotators=("annotator",),
        scorers=(),
        blind: bool = True,
        dataset: str = "demo",
    ) -> World:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.models import Group

        from annotation.accounts.roles import ANNOTATOR, ROLES
        from annotation.accounts.services import user_create
        from annotation.campaigns.models import Task
        from annotation.campaigns.services import campaign_create, tasks_assign_manual
        from annotation.corpus.demo import demo_load
        from annotation.corpus.models import Dataset

        for role in ROLES:  # made by a data migration, gone after an earlier test's flush
            Group.objects.get_or_create(name=role)
        demo_load()
        for username in annotators:
            if not get_user_model().objects.filter(username=username).exists():
                user_create(username=username, password=f"pw-{username}", role=ANNOTATOR)
        dataset = Dataset.objects.get(slug=dataset)
        campaign = campaign_create(
            dataset=dataset,
            slug=slug,
            name=f"Campaign {slug}",
            documents=list(documents),
            annotators_per_document=len(annotators),
            scorers=list(scorers),
            top_k=3,
            blind=blind,
        )
        tasks_assign_manual(
            campaign=campaign,
            assignments=[(doc, user) for doc in documents for user in annotators],
        )
        tasks = {
            (t.document.external_id, t.annotator.username): t
            for t in Task.objects.filter(campaign=campaign).select_related("document", "annotator")
        }
        return World(url=live_server.url, campaign=campaign, tasks=tasks)

    return make


@pytest.fixture
def demo(live_server, no_celery):
    """The demo dataset (three systems, gold FAMs) and its users, not scored yet.

    In this folder it stands for the suite's ``demo``: the live server's URL and the dataset.
    """
    from django.contrib.auth.models import Group

    from annotation.accounts.roles import ROLES
    from annotation.corpus.demo import demo_load
    from annotation.corpus.models import Dataset

    for role in ROLES:  # made by a data migration, gone after an earlier test's flush
        Group.objects.get_or_create(name=role)
    demo_load()
    return SimpleNamespace(url=live_server.url, dataset=Dataset.objects.get(slug="demo"))


@pytest.fixture
def board(demo):
    """The demo scored at k = 2 and 3, in this process (no worker)."""
    from scoring.scores.services import scoring_pending_run_inline

    scoring_pending_run_inline(dataset=demo.dataset, ks=[2, 3])
    return demo
