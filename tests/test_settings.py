"""Settings come from the environment; production settings pass `check --deploy`."""

import os

import pytest

from tests.forked_runs import run_forked

READ_BY_SETTINGS = {
    "DEBUG",
    "SECRET_KEY",
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "REDIS_URL",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "SECURE_SSL_REDIRECT",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "LOUPE_SQLITE_SYNCHRONOUS",
}


def _clean_env() -> dict[str, str]:
    """The environment without the variables the settings read (so each test sets its own)."""
    return {k: v for k, v in os.environ.items() if k not in READ_BY_SETTINGS}


# What each fresh interpreter's code starts with: Django set up on the project's settings.
SETUP = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup()\n"
)

SHOW = (
    SETUP + "from django.conf import settings as s;"
    "print(s.DATABASES['default']['ENGINE']); print(s.CELERY_BROKER_URL);"
    "print(s.CELERY_EMBEDDED_BROKER); print(s.ALLOWED_HOSTS); print(s.CSRF_TRUSTED_ORIGINS);"
    "from config.celery import app; transport = app.connection_for_write().transport;"
    "print(f'{type(transport).__module__}:{type(transport).__name__}')"
)


WSGI = (
    "import sys, config.wsgi; print('scoring.uploads.apis' in sys.modules, "
    "'scoring.leaderboards.apis' in sys.modules, 'annotation.fams.apis' in sys.modules)"
)
CHECK_DEPLOY = ["manage.py", "check", "--deploy", "--fail-level", "WARNING"]

CELERY_DIR = (
    SETUP + "from django.conf import settings as s; o = s.CELERY_BROKER_TRANSPORT_OPTIONS;"
    "print(o['data_folder_in']); print(o['control_folder']); print(s.CELERY_RESULT_BACKEND)"
)

# Another process holds SQLite's write lock for a second while Django reads, then writes, in
# one transaction (as a job's planning does): the transaction waits for the lock, on a
# database named by a sqlite:// DATABASE_URL (a test's Celery worker) as on the default one.
SQLITE_WAITS = (
    SETUP
    + """
import sqlite3, threading, time
from django.db import connection, transaction
path = connection.settings_dict['NAME']
setup = sqlite3.connect(path)
setup.execute('create table t (n integer)')
setup.commit()
setup.close()
holding = threading.Event()
def writer():
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute('begin immediate')
        other.execute('insert into t values (1)')
        holding.set()
        time.sleep(1.0)
        other.execute('commit')
    finally:
        holding.set()
        other.close()
thread = threading.Thread(target=writer, daemon=True)
thread.start()
assert holding.wait(30)
start = time.monotonic()
try:
    with transaction.atomic(), connection.cursor() as c:
        c.execute('select count(*) from t')
        c.execute('insert into t values (2)')
finally:
    thread.join(30)
waited = time.monotonic() - start
with connection.cursor() as c:
    c.execute('select count(*) from t')
    print(c.fetchone()[0], waited >= 0.5)
"""
)

# SQLite's synchronous pragma on a connection of the default database: 0 is OFF, 2 FULL.
SQLITE_SYNCHRONOUS = (
    SETUP + "from django.db import connection\n"
    "with connection.cursor() as c:\n"
    "    print(c.execute('pragma synchronous').fetchone()[0])"
)


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> dict[str, dict]:
    """Every command of this file, each in a process of its own with its own environment
    (forked from one interpreter that imported Django first: see tests/forked_runs.py)."""
    clean = _clean_env()
    sqlite_url = f"sqlite:///{tmp_path_factory.mktemp('sqlite') / 'waits.sqlite3'}"
    celery_dir = tmp_path_factory.mktemp("celery")
    done = run_forked(
        {
            "show-production": (["-c", SHOW], {**clean, "DEBUG": "0"}),
            "show-debug": (["-c", SHOW], {**clean, "DEBUG": "1"}),
            "show-environment": (
                ["-c", SHOW],
                {
                    **clean,
                    "SECRET_KEY": "x" * 60,
                    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/loupe",
                    "REDIS_URL": "redis://127.0.0.1:6379/3",
                    "ALLOWED_HOSTS": "loupe.example.org,127.0.0.1",
                    "CSRF_TRUSTED_ORIGINS": "https://loupe.example.org",
                },
            ),
            "check-production": (
                CHECK_DEPLOY,
                {
                    **clean,
                    "DEBUG": "0",
                    "SECRET_KEY": "k3y-" + "a1b2c3d4e5f6g7h8i9j0" * 3,
                    "ALLOWED_HOSTS": "loupe.example.org",
                },
            ),
            "check-debug": (CHECK_DEPLOY, {**os.environ, "DEBUG": "1"}),
            "wsgi": (["-c", WSGI], {**clean, "DEBUG": "1"}),
            "celery-dir": (
                ["-c", CELERY_DIR],
                {**clean, "DEBUG": "1", "LOUPE_CELERY_DIR": str(celery_dir)},
            ),
            "sqlite-url-waits": (
                ["-c", SQLITE_WAITS],
                {**clean, "DEBUG": "1", "DATABASE_URL": sqlite_url},
            ),
            "sqlite-synchronous-default": (
                ["-c", SQLITE_SYNCHRONOUS],
                {**clean, "DEBUG": "1", "DATABASE_URL": sqlite_url},
            ),
            "sqlite-synchronous-off": (
                ["-c", SQLITE_SYNCHRONOUS],
                {
                    **clean,
                    "DEBUG": "1",
                    "LOUPE_VAR_DIR": str(tmp_path_factory.mktemp("var")),
                    "LOUPE_SQLITE_SYNCHRONOUS": "off",
                },
            ),
            "sqlite-synchronous-wrong": (
                ["-c", SQLITE_SYNCHRONOUS],
                {**clean, "DEBUG": "1", "LOUPE_SQLITE_SYNCHRONOUS": "sometimes"},
            ),
        }
    )
    done["celery-dir"]["root"] = str(celery_dir.resolve())
    return done


def test_secret_key_is_required_unless_debug(ran):
    assert ran["show-production"]["returncode"] != 0
    assert "SECRET_KEY is required" in ran["show-production"]["stderr"]
    assert ran["show-debug"]["returncode"] == 0


def test_embedded_defaults_without_database_url_or_broker(ran):
    lines = ran["show-debug"]["stdout"].splitlines()
    assert lines[0] == "django.db.backends.sqlite3"
    assert lines[1] == "filesystem://"
    assert lines[2] == "True"
    assert lines[5] == "config.broker:Transport"  # kombu's file-system transport, mended


def test_database_url_broker_hosts_and_origins_from_the_environment(ran):
    lines = ran["show-environment"]["stdout"].splitlines()
    assert lines[0] == "django.db.backends.postgresql"
    assert lines[1] == "redis://127.0.0.1:6379/3"
    assert lines[2] == "False"
    assert lines[3] == "['loupe.example.org', '127.0.0.1']"
    assert lines[4] == "['https://loupe.example.org']"
    assert lines[5] == "kombu.transport.redis:Transport"


def test_the_embedded_broker_keeps_its_folders_where_loupe_celery_dir_says(ran):
    # make test points it at var/test-celery, emptied at each run.
    result = ran["celery-dir"]
    assert result["returncode"] == 0, result["stderr"][-2000:]
    root = result["root"]
    assert result["stdout"].split() == [
        f"{root}/broker",
        f"{root}/control",
        f"file://{root}/results",
    ]


def test_a_sqlite_database_url_waits_for_the_write_lock(ran):
    # It failed at once with "database is locked" before the URL's database got the
    # default's IMMEDIATE transactions: a test's worker lost its agreement run that way.
    result = ran["sqlite-url-waits"]
    assert result["returncode"] == 0, result["stderr"][-2000:]
    assert result["stdout"].split() == ["2", "True"]


def test_sqlite_commits_wait_for_the_disk_unless_the_environment_says_otherwise(ran):
    # `make test` sets OFF for its throwaway databases; a deployment keeps SQLite's FULL.
    for name, expected in (("sqlite-synchronous-default", "2"), ("sqlite-synchronous-off", "0")):
        result = ran[name]
        assert result["returncode"] == 0, result["stderr"][-2000:]
        assert result["stdout"].split() == [expected], name
    wrong = ran["sqlite-synchronous-wrong"]
    assert wrong["returncode"] != 0
    assert (
        "LOUPE_SQLITE_SYNCHRONOUS must be OFF, NORMAL, FULL or EXTRA, not 'sometimes'."
        in wrong["stderr"]
    )


def test_production_settings_pass_check_deploy(ran):
    result = ran["check-production"]
    assert result["returncode"] == 0, result["stdout"] + result["stderr"]
    assert "no issues" in result["stdout"]


def test_check_deploy_fails_loudly_for_debug_settings(ran):
    result = ran["check-debug"]
    assert result["returncode"] != 0
    assert "DEBUG" in result["stderr"] + result["stdout"]


def test_the_wsgi_application_loads_every_view_when_the_server_process_starts(ran):
    # Django imports the URL configuration on the first request; the WSGI module does it at
    # start, so a server process's first request (an upload, say) does not wait for it.
    result = ran["wsgi"]
    assert result["returncode"] == 0, result["stderr"]
    assert result["stdout"].split() == ["True", "True", "True"]
