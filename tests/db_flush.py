"""A transactional test's flush deletes rows instead of truncating every table.

Django's ``flush`` (which ends each transactional test: every browser test, every test with a
real worker) truncates every table in one ``TRUNCATE``. On PostgreSQL that gives each of the
tables and their indexes a new file and invalidates every session's cache of them: 0.35 CPU-s
of the server's for each test here, most of it on tables no test wrote to (on SQLite, where it
deletes every table's rows, 0.1 CPU-s, most of it ``post_migrate``). Here the flush deletes the
rows of every table in Django's one transaction. Django makes the foreign keys ``DEFERRABLE
INITIALLY DEFERRED``, so the keys are checked at its commit, whatever the order of the deletes.

A real worker or the live server may still be writing while the flush runs (a scoring job's
finish starts a bias run, say), so the flush deletes from every table, empty or not, and
deletes the referenced tables before the tables that reference them. A row written before a table's
delete is deleted with it; a row written after it that references a row deleted before waits
for that row's lock (PostgreSQL) or for the database's write lock (SQLite) and fails at the
flush's commit, as with Django's flush. So none is left that references a deleted row. (An
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

from functools import cache

from django.core.management import sql as management_sql

# Above this many rows in one table, TRUNCATE (a new file) is cheaper than DELETE (row by row).
MANY_ROWS = 2000
# The rows that post_migrate makes again after every flush (a content type for each model and
# its four permissions): kept, and post_migrate, which creates what is missing, finds them.
REMADE = ("django_content_type", "auth_permission")
# Before the deletes: defer the foreign keys for the transaction (SQLite's are declared
# DEFERRABLE INITIALLY DEFERRED already).
DEFERRED = {
    "postgresql": "SET CONSTRAINTS ALL DEFERRED;",
    "sqlite": "PRAGMA defer_foreign_keys = ON;",
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
    if connection.vendor not in DEFERRED or reset_sequences:
        return management_sql.sql_flush(
            style, connection, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    if not tables:
        return []
    quote = connection.ops.quote_name
    tables = [quote(t) for t in _referenced_first(frozenset(tables) - set(REMADE))]
    if connection.vendor == "postgresql" and _many_rows(connection, tables):
        return management_sql.sql_flush(
            style, connection, reset_sequences=False, allow_cascade=allow_cascade
        )
    return [DEFERRED[connection.vendor]] + [f"DELETE FROM {t};" for t in tables]


@cache
def _referenced_first(tables: frozenset[str]) -> tuple[str, ...]:
    """The tables in an order where a table comes after every table its foreign keys point to
    (by name where they point nowhere or in a circle). Once per run: the models do not change.
    """
    from django.apps import apps

    points_to = {table: set() for table in tables}
    for model in apps.get_models(include_auto_created=True):
        table = model._meta.db_table
        if table not in points_to:
            continue
        for field in model._meta.concrete_fields:
            target = field.related_model._meta.db_table if field.is_relation else None
            if target in tables and target != table:
                points_to[table].add(target)
    ordered: list[str] = []
    while points_to:
        ready = sorted(t for t, targets in points_to.items() if targets.isdisjoint(points_to))
        ready = ready or sorted(points_to)[:1]  # a circle: break it at the first by name
        ordered += ready
        for table in ready:
            del points_to[table]
    return tuple(ordered)


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
