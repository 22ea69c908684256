"""Test databases under pytest-xdist: one worker migrates, the others copy its database.

Migrating the test database costs each worker about 8 s of CPU (19 s on a slower machine),
and the workers start together on the same cores. The first worker to take the lock migrates
its database as usual and copies it to a template named after the run; every other worker
makes its own database from that template instead of migrating, as Django's parallel runner
clones its databases: on PostgreSQL with ``CREATE DATABASE ... TEMPLATE``, on SQLite (a file)
with SQLite's online backup into a file beside the run's lock. The xdist controller drops the
template when the run ends. Elsewhere (an in-memory SQLite database, no xdist, a single
worker, or ``--reuse-db``) Django makes the database as usual.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import tempfile
from pathlib import Path


def _template_name(run: str) -> str:
    from django.conf import settings
    from django.db import connection

    if connection.vendor == "sqlite":
        return str(_lock_path(run).with_suffix(".sqlite3"))
    # PostgreSQL keeps 63 bytes of a name: the database's name is cut, never the run's id.
    return f"test_{settings.DATABASES['default']['NAME'][:40]}_run_{run[:12]}"


def clone_across_workers() -> None:
    """Make this xdist worker's ``create_test_db`` migrate once per run, then copy.

    Raises:
        Nothing: outside xdist or PostgreSQL it changes nothing.
    """
    from django.db import connection

    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")
    if not run or workers == "1" or connection.vendor not in ("postgresql", "sqlite"):
        return
    creation = connection.creation
    if connection.vendor == "sqlite" and creation.is_in_memory_db(creation._get_test_db_name()):
        return
    migrate = creation.create_test_db
    template = _template_name(run)
    lock_path = _lock_path(run)

    def create_test_db(verbosity=1, autoclobber=False, serialize=True, keepdb=False):
        if keepdb:  # --reuse-db: each worker keeps its own database, as Django does
            return migrate(verbosity, autoclobber, serialize, keepdb)
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if not _exists(creation, template):
                name = migrate(verbosity, autoclobber, serialize, keepdb)
                _copy(creation, source=name, target=template)
                return name
            name = creation._get_test_db_name()
            _copy(creation, source=template, target=name)
        from django.conf import settings

        settings.DATABASES[connection.alias]["NAME"] = name
        connection.settings_dict["NAME"] = name
        connection.ensure_connection()
        if serialize:  # as Django's create_test_db does, for serialized_rollback
            connection._test_serialized_contents = creation.serialize_db_to_string()
        return name

    creation.create_test_db = create_test_db


def _exists(creation, name: str) -> bool:
    if creation.connection.vendor == "sqlite":
        return Path(name).exists()
    with creation._nodb_cursor() as cursor:
        return creation._database_exists(cursor, name)


def _copy(creation, *, source: str, target: str) -> None:
    """Create ``target`` from ``source`` (no session may be connected to ``source``)."""
    creation.connection.close()
    if creation.connection.vendor == "sqlite":
        # The backup copies a consistent database page by page into a new file. A killed
        # run's file and journals go first: SQLite would roll a leftover hot journal into it.
        for leftover in ("", "-journal", "-wal", "-shm"):
            Path(f"{target}{leftover}").unlink(missing_ok=True)
        with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
            src.backup(dst)
        src.close()
        dst.close()
        return
    quote = creation.connection.ops.quote_name
    with creation._nodb_cursor() as cursor:
        _drop(creation, cursor, target)
        cursor.execute(f"CREATE DATABASE {quote(target)} WITH TEMPLATE {quote(source)}")


def _drop(creation, cursor, name: str) -> None:
    cursor.execute(f"DROP DATABASE IF EXISTS {creation.connection.ops.quote_name(name)}")


def template_drop(run: str) -> None:
    """Drop the run's template database, if the workers made one (the xdist controller).

    Args:
        run: the run's xdist id.
    """
    from django.db import connection

    lock = _lock_path(run)
    if not lock.exists():  # no worker set up a database to clone: nothing to drop
        return
    lock.unlink()
    if connection.vendor == "sqlite":
        Path(_template_name(run)).unlink(missing_ok=True)
        return
    with connection.creation._nodb_cursor() as cursor:
        _drop(connection.creation, cursor, _template_name(run))


def _lock_path(run: str) -> Path:
    return Path(tempfile.gettempdir()) / f"loupe-test-db-{run[:12]}.lock"
