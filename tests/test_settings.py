"""Settings come from the environment; production settings pass `check --deploy`."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
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
}


def _clean_env() -> dict[str, str]:
    """The environment without the variables the settings read (so each test sets its own)."""
    return {k: v for k, v in os.environ.items() if k not in READ_BY_SETTINGS}


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**_clean_env(), **env},
        capture_output=True,
        text=True,
    )


SHOW = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup();"
    "from django.conf import settings as s;"
    "print(s.DATABASES['default']['ENGINE']); print(s.CELERY_BROKER_URL);"
    "print(s.CELERY_EMBEDDED_BROKER); print(s.ALLOWED_HOSTS); print(s.CSRF_TRUSTED_ORIGINS)"
)


def test_secret_key_is_required_unless_debug():
    result = _run(SHOW, DEBUG="0")
    assert result.returncode != 0
    assert "SECRET_KEY is required" in result.stderr
    assert _run(SHOW, DEBUG="1").returncode == 0


def test_embedded_defaults_without_database_url_or_broker():
    lines = _run(SHOW, DEBUG="1").stdout.splitlines()
    assert lines[0] == "django.db.backends.sqlite3"
    assert lines[1] == "filesystem://"
    assert lines[2] == "True"


def test_database_url_broker_hosts_and_origins_from_the_environment():
    lines = _run(
        SHOW,
        SECRET_KEY="x" * 60,
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/loupe",
        REDIS_URL="redis://127.0.0.1:6379/3",
        ALLOWED_HOSTS="loupe.example.org,127.0.0.1",
        CSRF_TRUSTED_ORIGINS="https://loupe.example.org",
    ).stdout.splitlines()
    assert lines[0] == "django.db.backends.postgresql"
    assert lines[1] == "redis://127.0.0.1:6379/3"
    assert lines[2] == "False"
    assert lines[3] == "['loupe.example.org', '127.0.0.1']"
    assert lines[4] == "['https://loupe.example.org']"


def test_production_settings_pass_check_deploy():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={
            **_clean_env(),
            "DEBUG": "0",
            "SECRET_KEY": "k3y-" + "a1b2c3d4e5f6g7h8i9j0" * 3,
            "ALLOWED_HOSTS": "loupe.example.org",
        },
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_fails_loudly_for_debug_settings():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={**os.environ, "DEBUG": "1"},
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "DEBUG" in result.stderr + result.stdout


def test_the_wsgi_application_loads_every_view_when_the_server_process_starts():
    # Django imports the URL configuration on the first request; the WSGI module does it at
    # start, so a server process's first request (an upload, say) does not wait for it.
    result = _run(
        "import sys, config.wsgi; print('scoring.uploads.apis' in sys.modules, "
        "'scoring.leaderboards.apis' in sys.modules, 'annotation.fams.apis' in sys.modules)",
        DEBUG="1",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "True"]
