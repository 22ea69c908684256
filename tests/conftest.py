"""Shared test fixtures: users per role, API clients, the demo data and a real Celery worker."""

from __future__ import annotations

import gc
import os
import socket
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from rest_framework.test import APIClient

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
FAR_RELEASE = SHARED_DATA / "far-release"
POLYTOPE_OUTPUTS = SHARED_DATA / "polytope-release" / "outputs"

needs_far = pytest.mark.skipif(
    not FAR_RELEASE.is_dir(), reason=f"{FAR_RELEASE} is absent (the public FAR release)"
)
needs_polytope = pytest.mark.skipif(
    not POLYTOPE_OUTPUTS.is_dir(), reason=f"{POLYTOPE_OUTPUTS} is absent (the PolyTope release)"
)

ROLE_USERS = {"annotator": "Annotator", "researcher": "Researcher", "admin": "Admin"}

# Helper modules that assert: pytest rewrites their asserts as it does the test modules'.
pytest.register_assert_rewrite(
    "tests.upload_helpers", "tests.plot_helpers", "tests.e2e.leaderboard_helpers"
)


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """PBKDF2's deliberate slowness only costs test time; behaviour is the same with MD5."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """The token endpoint's rate is counted in the cache (per process, per client address): each
    test starts with none of the earlier tests' requests counted. (Failed logins are counted by
    django-axes in the database, which each test gets fresh.)"""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _releases_in_tmp(settings, tmp_path):
    """Dataset releases are written under the test's own folder, never under var/ (shared by
    every test run in the checkout)."""
    settings.LOUPE_RELEASES_DIR = tmp_path / "releases"


def make_role_users() -> dict:
    """Create one user per role plus one with no role.

    Returns:
        The users keyed by a short name (``annotator``, ``researcher``, ``admin``, ``norole``);
        each one's password is ``pw-<name>`` (``pw`` for ``norole``).
    """
    from django.contrib.auth import get_user_model

    from annotation.accounts.services import user_create

    made = {
        name: user_create(username=f"t-{name}", password="pw-" + name, role=role)
        for name, role in ROLE_USERS.items()
    }
    made["norole"] = get_user_model().objects.create_user(username="t-norole", password="pw")
    return made


@pytest.fixture
def users(db):
    """One user per role plus one with no role, keyed by a short name."""
    return make_role_users()


@pytest.fixture
def client_for(users):
    """``client_for(name)``: an API client logged in as that role (``None``: anonymous)."""

    def make(name: str | None) -> APIClient:
        client = APIClient()
        if name is not None:
            client.force_authenticate(users[name])
        return client

    return make


@pytest.fixture
def demo(db):
    """The demo dataset, gold FAMs, three systems and demo users."""
    from annotation.corpus.demo import demo_load

    return demo_load()


@pytest.fixture
def dataset(demo):
    """The demo's ``Dataset`` row."""
    from annotation.corpus.models import Dataset

    return Dataset.objects.get(slug="demo")


@pytest.fixture
def researcher(demo, client_for):
    """An API client logged in as the researcher, with the demo loaded."""
    return client_for("researcher")


def _test_database_url() -> str:
    """The URL of the test database, for worker processes that must see the tests' rows."""
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or 'localhost'}:{db['PORT'] or 5432}/{db['NAME']}"


def start_worker(
    *, queue: str, database_url: str, log, env: dict | None = None, options: tuple = ()
):
    """Start a real Celery worker process (solo pool) on ``queue`` against ``database_url``.

    Args:
        queue: the only queue it consumes.
        database_url: the database it uses (the test database).
        log: a binary file for its output.
        env: extra environment variables (e.g. a short visibility timeout).
        options: further worker options (``-B``: with beat, the job watchdog).

    Returns:
        The ``subprocess.Popen`` of the worker, with its node name as ``nodename``.
    """
    from config.celery import worker_command

    env = {**os.environ, "CELERY_QUEUE": queue, "DATABASE_URL": database_url, **(env or {})}
    name = f"{queue}-{uuid.uuid4().hex[:4]}"
    process = subprocess.Popen(  # noqa: S603 - fixed argv
        worker_command(
            queue=queue,
            hostname=f"{name}@%h",
            options=["--pool=solo", "--without-mingle", "--without-gossip", *options],
        ),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    process.nodename = f"{name}@{socket.gethostname()}"
    return process


def wait_until_idle(worker, *, queue: str, timeout: float = 120) -> None:
    """Wait until ``worker`` runs nothing, holds nothing reserved and ``queue`` is empty, twice
    in a row: the follow-up tasks a job sends when it finishes (the leaderboards' warm-up) are
    done before a test's tables are flushed under them (a flush beside a running task can
    deadlock, leaving the next test the rows).

    Args:
        worker: a worker started by :func:`start_worker`.
        queue: its queue.
        timeout: seconds to wait.
    """
    from config.celery import app

    deadline, quiet = time.monotonic() + timeout, 0
    while time.monotonic() < deadline and quiet < 2:
        inspect = app.control.inspect(destination=[worker.nodename], timeout=1.0)
        busy = any((inspect.active() or {}).values()) or any((inspect.reserved() or {}).values())
        with app.connection_for_write() as connection:
            try:
                channel = connection.default_channel
                waiting = channel.queue_declare(queue, passive=True).message_count
            except connection.channel_errors:  # no message was ever queued there
                waiting = 0
        quiet = 0 if busy or waiting else quiet + 1
        time.sleep(0.3)


def stop_worker(worker) -> None:
    """Stop a worker started by :func:`start_worker` (warm shutdown, then kill after 20 s).

    Args:
        worker: its ``Popen``; one that already exited (a test killed it) is left alone.
    """
    if worker.poll() is not None:
        return
    worker.terminate()
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker.kill()


def wait_for_worker(worker, *, queue: str, log, timeout: float = 60) -> None:
    """Wait until ``worker`` answers a ping task on ``queue``.

    Args:
        worker: the worker's ``Popen``.
        queue: its queue.
        log: its log file (named in the error).
        timeout: seconds to wait.

    Raises:
        RuntimeError: the worker exited.
        Exception: no answer within ``timeout`` (the last error).
    """
    from config.celery import health_ping

    deadline = time.monotonic() + timeout
    while True:
        if worker.poll() is not None:
            raise RuntimeError(f"worker exited with {worker.returncode}; see {log.name}")
        try:
            health_ping.apply_async(args=[time.time()], queue=queue).get(timeout=5)
            return
        except Exception:
            if time.monotonic() > deadline:
                raise


@pytest.fixture(scope="session", autouse=True)
def _empty_test_queue_at_the_end():
    """Tasks that tests without a worker queued (the demo's scoring job, say) are dropped at
    the end of the session instead of piling up on the broker.

    Under pytest-xdist each worker queues them on a queue of its own (the configured one with
    the worker's id), so no worker's tests see, or purge, another's messages.
    """
    from django.conf import settings

    from config.celery import app

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        queue = f"{settings.CELERY_TASK_DEFAULT_QUEUE}-{worker}"
        settings.CELERY_TASK_DEFAULT_QUEUE = app.conf.task_default_queue = queue
    yield
    try:
        with app.connection_for_write() as connection:
            connection.default_channel.queue_purge(app.conf.task_default_queue)
    except Exception as error:  # an unreachable broker: nothing to purge, nothing to fail
        print(f"could not purge {app.conf.task_default_queue}: {error}")


# The parsers of the public releases, by module and function (formats.py looks them up there).
RELEASE_PARSERS = [
    ("annotation.corpus.importers.parsers.polytope", "parse_polytope_release"),
    ("annotation.corpus.importers.parsers.far", "parse_far_release"),
    ("annotation.corpus.importers.parsers.xsum", "parse_xsum_release"),
    ("annotation.corpus.importers.parsers.realsumm", "parse_realsumm_release"),
]


@pytest.fixture(scope="session", autouse=True)
def _shared_releases_parsed_once():
    """Each public release in ../shared/data (read-only) is parsed once per test process:
    the many tests importing one (PolyTope's 1,500 files took about a second each time) get
    a deep copy of that parse. Tests that call a parser themselves imported it before this
    runs and still parse; the import into the database is each test's own, as before."""
    from copy import deepcopy
    from importlib import import_module

    patch = pytest.MonkeyPatch()
    for module_name, name in RELEASE_PARSERS:
        module = import_module(module_name)
        real, parsed = getattr(module, name), {}

        def once(source, *args, real=real, parsed=parsed, **kwargs):
            path = Path(source).resolve()
            if args or kwargs or not path.is_relative_to(SHARED_DATA.resolve()):
                return real(source, *args, **kwargs)
            if path not in parsed:
                parsed[path] = real(source)
            return deepcopy(parsed[path])

        patch.setattr(module, name, once)
    yield
    patch.undo()


@pytest.fixture(scope="session", autouse=True)
def _static_files_scanned_once():
    """WhiteNoise scans STATIC_ROOT (about a thousand collected files: a stat and headers for
    each) when its middleware is built. A server process builds it once; the tests built it
    once per test client, which was two thirds of the permission matrix's time. Here each
    process scans a root once, and every later middleware over the same root, with the same
    header settings and the same collected manifest, gets that scan's entries: the table a
    server would hold. A new collectstatic (another manifest) is scanned again."""
    from whitenoise.base import WhiteNoise

    real, scanned = WhiteNoise.update_files_dictionary, {}

    def once(self, root, prefix):
        manifest = Path(root) / "staticfiles.json"
        key = (
            root,
            prefix,
            manifest.stat().st_mtime_ns if manifest.exists() else None,
            self.max_age,
            self.allow_all_origins,
            self.charset,
            type(self),
        )
        if key not in scanned:  # scan into an empty table: it then holds this root's entries
            files, self.files = self.files, {}
            real(self, root, prefix)
            scanned[key], self.files = self.files, files
        self.files.update(scanned[key])

    patch = pytest.MonkeyPatch()
    patch.setattr(WhiteNoise, "update_files_dictionary", once)
    yield
    patch.undo()


@pytest.fixture(scope="session", autouse=True)
def _flush_by_deletes():
    """A transactional test's flush deletes the tables' rows instead of truncating every table
    (see ``tests/db_flush.py``)."""
    from tests.db_flush import sql_flush

    patch = pytest.MonkeyPatch()
    patch.setattr("django.core.management.commands.flush.sql_flush", sql_flush)
    yield
    patch.undo()


@pytest.fixture(scope="session")
def rouge_reference(tmp_path_factory):
    """rouge-score's values, computed once per run for all its processes (see
    :class:`tests.rouge_helpers.ReferenceScores`): under pytest-xdist the folder is the run's,
    shared by every worker."""
    from tests.rouge_helpers import ReferenceScores

    return ReferenceScores(run_folder(tmp_path_factory) / "rouge-reference")


def run_folder(tmp_path_factory) -> Path:
    """The temporary folder every process of this test run shares.

    Args:
        tmp_path_factory: pytest's session-scoped factory.

    Returns:
        Under pytest-xdist the run's folder (the parent of each worker's); else this
        process's own.
    """
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def _celery_worker_session(tmp_path_factory, django_db_setup, django_db_blocker):
    """One real Celery worker subprocess for the session, on a queue of its own."""
    queue = f"loupe-test-{uuid.uuid4().hex[:8]}"
    with django_db_blocker.unblock():
        database_url = _test_database_url()
    log = open(tmp_path_factory.mktemp("worker") / "worker.log", "wb")  # noqa: SIM115
    worker = start_worker(queue=queue, database_url=database_url, log=log)
    try:
        wait_for_worker(worker, queue=queue, log=log)
        yield {"process": worker, "queue": queue}
    finally:
        stop_worker(worker)
        log.close()


@pytest.fixture
def celery_worker_process(_celery_worker_session):
    """A real Celery worker subprocess on the configured broker and the test database.

    Only during the tests that ask for it do tasks go to its queue (unique to this session, so
    no other worker, for example one from ``make run``, takes them): a later test's tasks never
    reach it while that test's tables are flushed. Tests that want the worker to see their rows
    use ``django_db(transaction=True)``.
    """
    from config.celery import app

    previous = app.conf.task_default_queue
    app.conf.task_default_queue = _celery_worker_session["queue"]
    yield _celery_worker_session
    wait_until_idle(_celery_worker_session["process"], queue=_celery_worker_session["queue"])
    app.conf.task_default_queue = previous


# Python's cyclic garbage collector in the test processes: a collection of the oldest
# generation walks every object it tracks, and a test process holds millions (Django, SciPy,
# torch and spaCy imported, the collected tests, the parsed releases). In a run on two cores the
# three xdist workers spent 48 of their about 270 CPU-s in 99 such collections (about 0.5 s
# each). What the imports and the collection made is frozen (gc.freeze: never walked again, and
# never freed by the collector; the collection's garbage is collected first), and the collector
# runs after 10,000 allocations instead of 700, so the oldest generation is looked at about 14
# times less often: 12 CPU-s in the collector, the run 229 against 250 s (326 against 366 CPU-s).
# Reference counting still frees everything that is not a cycle at once; the application's
# processes keep Python's defaults (the jobs that build millions of objects pause the
# collector: config/gc.py).
GC_THRESHOLDS = (10_000, 10, 10)


def pytest_configure(config):
    """Under pytest-xdist, torch computes on one thread per process; the collector is tuned
    (see :data:`GC_THRESHOLDS`) and what was imported so far frozen.

    The workers already fill the cores (one per core and one more); torch's default of one
    thread per core put two threads on each core, whose OpenMP spin-waiting cost the embedding
    tests about a third more CPU. Set before torch is first imported, so it reaches the Celery
    workers the tests start too. An OMP_NUM_THREADS set by the caller is kept.
    """
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.setdefault("OMP_NUM_THREADS", "1")
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    """Freeze what the collection made (the test modules, their imports and items), after
    collecting its garbage: see :data:`GC_THRESHOLDS`."""
    gc.collect()
    gc.freeze()


# The test modules that load the embedding model or spaCy's in their own process: under
# pytest-xdist they go to one worker, as one unit, so the model is imported and loaded once per
# run instead of once in each worker that draws one of them (about 15 CPU-s each time:
# sentence-transformers' import, the model, spaCy's pipeline).
MODEL_MODULES = (
    "tests/apes/test_apes_polytope.py",
    "tests/apes/test_apes_run.py",
    "tests/metrics/test_suggest.py",
)
# The fixtures through which a test reaches the database (pytest-django refuses it otherwise).
DATABASE_FIXTURES = {"db", "transactional_db", "django_db_setup", "live_server"}


def _module(nodeid: str) -> str:
    """The test module of a node id (``tests/x.py::test_y[1]`` -> ``tests/x.py``)."""
    return nodeid.split("::", 1)[0]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadscope`` with the model modules as one unit and the browser modules started
    early on one worker: :class:`tests.scheduling.BrowsersAlongside`."""
    if config.getvalue("dist") != "loadscope":
        return None
    from tests.scheduling import BrowsersAlongside

    return BrowsersAlongside(config, log)


_XDIST_RUNS = pytest.StashKey[set]()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """The xdist controller notes its run's id, which names the database the workers clone."""
    node.config.stash.setdefault(_XDIST_RUNS, set()).add(node.workerinput["testrunuid"])


def pytest_sessionfinish(session):
    """The xdist controller drops the database its workers cloned theirs from (if they made
    one); a failure to drop it is a warning, not a failed run. (Only the controller notes a
    run: on the workers, and without xdist, there is nothing to do.)"""
    runs = session.config.stash.get(_XDIST_RUNS, set())
    if not runs:
        return
    from pytest_django.plugin import blocking_manager_key

    from tests.db_clones import template_drop

    for run in runs:
        try:
            with session.config.stash[blocking_manager_key].unblock():
                template_drop(run)
        except Exception as error:  # the database may be down by now: say so, do not fail
            reporter = session.config.pluginmanager.get_plugin("terminalreporter")
            if reporter is not None:
                reporter.write_line(f"could not drop the run's template database: {error}")


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """pytest-django's hook before the test databases are made: under xdist (on PostgreSQL or
    a SQLite file), the first worker migrates its database and the others copy it (see
    ``tests.db_clones``)."""
    from tests.db_clones import clone_across_workers

    clone_across_workers()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI (LOUPE_REQUIRE_SHARED=1) a test skipped for want of the releases, or of a tool to
    read them, is a failure: a green run must mean the reproductions really ran."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("LOUPE_REQUIRE_SHARED") != "1" or not report.skipped:
        return
    reason = (
        str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
    )
    if is_release_skip(reason):
        report.outcome = "failed"
        report.longrepr = f"LOUPE_REQUIRE_SHARED=1 but the test would skip: {reason}"


def is_release_skip(reason: str) -> bool:
    """Whether a skip's reason is a missing release or a missing tool to read one.

    Every release test's skip names the missing path and says "absent"; a missing tool says
    "could not import". The word "shared" alone is not enough: it failed, with
    LOUPE_REQUIRE_SHARED=1 on SQLite, a PostgreSQL-only test's skip ("a snapshot shared by
    connections").

    Args:
        reason: the skip's reason.

    Returns:
        True for a skip CI must not allow.
    """
    return "absent" in reason or "could not import" in reason or "../shared" in reason


def pytest_collection_modifyitems(config, items):
    """In CI (LOUPE_REQUIRE_SHARED=1) the release tests must run: refuse to skip them. Run the
    modules of :data:`MODEL_MODULES` first, then the modules that need no database.

    Under pytest-xdist one worker migrates the test database while the others wait to copy it
    (about 10 s, a core idle): the first worker takes the model modules (the longest unit, best
    started first), which need the database, and the others the modules that do not.
    """
    if os.environ.get("LOUPE_REQUIRE_SHARED") == "1" and not SHARED_DATA.is_dir():
        raise pytest.UsageError(
            f"LOUPE_REQUIRE_SHARED=1 but {SHARED_DATA} is absent: the release tests would skip."
        )
    needs_database = {
        _module(item.nodeid)
        for item in items
        if item.get_closest_marker("django_db") or DATABASE_FIXTURES & set(item.fixturenames)
    }

    def first(item) -> int:
        module = _module(item.nodeid)
        return 0 if module in MODEL_MODULES else 1 if module not in needs_database else 2

    items.sort(key=first)  # stable: the collected order within each


def pytest_report_header(config):
    """Say which database and broker the run talks to, so CI logs show it."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    return [
        f"loupe database: {database['ENGINE'].rsplit('.', 1)[-1]} "
        f"({database.get('HOST') or 'local'})",
        f"loupe broker: {settings.CELERY_BROKER_URL}",
        f"loupe shared data: {'present' if SHARED_DATA.is_dir() else 'absent'} ({SHARED_DATA})",
    ]


@pytest.fixture
def worker_factory(tmp_path, django_db_blocker):
    """``start(queue, env=None)``: start a real worker on the test database; all are stopped
    at the end (a test may SIGKILL one first)."""
    with django_db_blocker.unblock():
        database_url = _test_database_url()
    started = []

    def start(queue: str, env: dict | None = None, options: tuple = ()):
        log = open(tmp_path / f"worker-{len(started)}.log", "wb")  # noqa: SIM115
        worker = start_worker(
            queue=queue, database_url=database_url, log=log, env=env, options=options
        )
        started.append((worker, log))
        wait_for_worker(worker, queue=queue, log=log)
        return worker

    yield start
    for worker, log in started:
        stop_worker(worker)
        log.close()
