"""Test databases under pytest-xdist: one worker migrates, the others copy its database.

Migrating the test database costs each worker about 8 s of CPU, and the workers start
together on the same cores. On PostgreSQL the first worker to take the lock migrates its
database as usual and copies it to a template named after the run; every other worker creates
its own database from that template (``CREATE DATABASE ... TEMPLATE``, as Django's parallel
runner clones its databases) instead of migrating. The xdist controller drops the template when
the run ends. Elsewhere (SQLite, or no xdist) Django makes the database as usual.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path


def _template_name(run: str) -> str:
    from django.conf import settings

    return f"test_{settings.DATABASES['default']['NAME']}_run_{run[:12]}"[:63]


def clone_across_workers() -> None:
    """Make this xdist worker's ``create_test_db`` migrate once per run, then copy.

    Raises:
        Nothing: outside xdist or PostgreSQL it changes nothing.
    """
    from django.db import connection

    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not os.environ.get("PYTEST_XDIST_WORKER") or not run or connection.vendor != "postgresql":
        return
    creation = connection.creation
    migrate = creation.create_test_db
    template = _template_name(run)
    lock_path = _lock_path(run)

    def create_test_db(verbosity=1, autoclobber=False, serialize=True, keepdb=False):
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            with creation._nodb_cursor() as cursor:
                cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template])
                made = cursor.fetchone() is not None
            if not made:
                name = migrate(verbosity, autoclobber, serialize, keepdb)
                _copy(creation, source=name, target=template)
                return name
            name = creation._get_test_db_name()
            _copy(creation, source=template, target=name)
        from django.conf import settings

        settings.DATABASES[connection.alias]["NAME"] = name
        connection.settings_dict["NAME"] = name
        connection.ensure_connection()
        return name

    creation.create_test_db = create_test_db


def _copy(creation, *, source: str, target: str) -> None:
    """Create ``target`` from ``source`` (no session may be connected to ``source``)."""
    quote = creation.connection.ops.quote_name
    creation.connection.close()
    with creation._nodb_cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {quote(target)}")
        cursor.execute(f"CREATE DATABASE {quote(target)} WITH TEMPLATE {quote(source)}")


def template_drop(run: str) -> None:
    """Drop the run's template database, if the workers made one (the xdist controller).

    Args:
        run: the run's xdist id.
    """
    from django.db import connection

    _lock_path(run).unlink(missing_ok=True)
    if connection.vendor != "postgresql":
        return
    with connection.creation._nodb_cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {connection.ops.quote_name(_template_name(run))}")


def _lock_path(run: str) -> Path:
    return Path(tempfile.gettempdir()) / f"loupe-test-db-{run[:12]}.lock"
