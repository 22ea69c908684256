"""A transactional test's flush deletes rows instead of truncating every table.

Django's ``flush`` (which ends each transactional test: every browser test, every test with a
real worker) truncates every table in one ``TRUNCATE``. On PostgreSQL that gives each of the
tables and their indexes a new file and invalidates every session's cache of them: 0.35 CPU-s
of the server's for each test here, most of it on tables no test wrote to (on SQLite, where it
deletes every table's rows, 0.1 CPU-s, most of it ``post_migrate``). Here the flush deletes the
rows of every table in Django's one transaction. Django makes the foreign keys ``DEFERRABLE
INITIALLY DEFERRED``, so the deletes need no order, and the keys are checked at its commit.

A real worker or the live server may still be writing while the flush runs (a scoring job's
finish starts a bias run, say): the transaction first stops other writers until it commits, as
``TRUNCATE``'s lock does (PostgreSQL: ``LOCK TABLE ... IN EXCLUSIVE MODE``, which still lets
them read; SQLite: the first delete takes the database's write lock), then deletes from every
table, empty or not. So no row written before the commit survives it, and none can reference a
deleted row: a writer that comes after gets an error of its own, as with Django's flush. (An
earlier version deleted only from the tables a probe had found rows in; a bias run's rows
written between the probe and the deletes then broke the commit's foreign-key check.)

On PostgreSQL, when a table holds many rows (a whole release imported), where deleting row by
row costs more than a new file, the flush truncates as before. Either way every table ends
empty but the content types and permissions, which Django's flush deletes and its
``post_migrate`` makes again, the same rows under new ids: here they stay, and the flush still
emits ``post_migrate``, which makes any that is missing (0.06 to 0.1 CPU-s with all of them
there, 0.15 making them all).
"""

from __future__ import annotations

from django.core.management import sql as management_sql

# Above this many rows in one table, TRUNCATE (a new file) is cheaper than DELETE (row by row).
MANY_ROWS = 2000
# The rows that post_migrate makes again after every flush (a content type for each model and
# its four permissions): kept, and post_migrate, which creates what is missing, finds them.
REMADE = ("django_content_type", "auth_permission")
# Before the deletes: stop other writers until the commit (SQLite's first delete takes its
# write lock), and defer the foreign keys for the transaction (SQLite's are declared
# DEFERRABLE INITIALLY DEFERRED already).
FIRST = {
    "postgresql": lambda tables: [
        f"LOCK TABLE {', '.join(tables)} IN EXCLUSIVE MODE;",
        "SET CONSTRAINTS ALL DEFERRED;",
    ],
    "sqlite": lambda tables: ["PRAGMA defer_foreign_keys = ON;"],
}


def sql_flush(style, connection, reset_sequences=True, allow_cascade=False):
    """Django's ``sql_flush``, but on PostgreSQL and SQLite without sequence resets it deletes
    the rows of every table but :data:`REMADE`, unless one holds more than :data:`MANY_ROWS`.

    Args:
        style: the command's style (no colour).
        connection: the database connection.
        reset_sequences: whether the sequences restart too (then Django's flush, unchanged).
        allow_cascade: passed on to Django's flush.

    Returns:
        The statements to run, in one transaction. Never empty while a table exists, so the
        flush command still emits ``post_migrate``.
    """
    if connection.vendor not in FIRST or reset_sequences:
        return management_sql.sql_flush(
            style, connection, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    if not tables:
        return []
    quote = connection.ops.quote_name
    tables = sorted(quote(t) for t in tables if t not in REMADE)
    if connection.vendor == "postgresql" and _many_rows(connection, tables):
        return management_sql.sql_flush(
            style, connection, reset_sequences=False, allow_cascade=allow_cascade
        )
    return FIRST[connection.vendor](tables) + [f"DELETE FROM {t};" for t in tables]


def _many_rows(connection, tables: list[str]) -> bool:
    """Whether one of the (quoted) tables holds more than :data:`MANY_ROWS` rows (one query).

    Only the choice between ``DELETE`` and ``TRUNCATE`` rests on it: a row written after it is
    deleted either way.
    """
    probe = " UNION ALL ".join(
        f"SELECT 1 FROM (SELECT 1 FROM {t} OFFSET {MANY_ROWS} LIMIT 1) r" for t in tables
    )
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT EXISTS ({probe})")
        return cursor.fetchone()[0]
