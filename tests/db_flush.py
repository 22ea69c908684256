"""A transactional test's flush empties only the tables that hold rows.

Django's ``flush`` (which ends each transactional test: every browser test, every test with a
real worker) truncates every table in one ``TRUNCATE``. On PostgreSQL that gives each of the
tables and their indexes a new file and invalidates every session's cache of them: 0.35 CPU-s
of the server's for each test here, most of it on tables no test wrote to (on SQLite, where it
deletes every table's rows, 0.1 CPU-s, most of it ``post_migrate``). Here the flush finds
the tables that hold a row (one query) and deletes their rows. Django makes the foreign keys
``DEFERRABLE INITIALLY DEFERRED``, so the deletes need no order inside the transaction
Django runs them in, and the keys are checked at its commit. When a table holds
many rows (a whole release imported), where deleting row by row costs more than a new file,
the flush truncates as before. Either way every table ends empty but the content types and
permissions, which Django's flush deletes and its ``post_migrate`` makes again, the same rows
under new ids: here they stay, and the flush still emits ``post_migrate``, which makes any that
is missing (0.06 to 0.1 CPU-s with all of them there, 0.15 making them all).
"""

from __future__ import annotations

from django.core.management import sql as management_sql

# Above this many rows in one table, TRUNCATE (a new file) is cheaper than DELETE (row by row).
MANY_ROWS = 2000
# The rows that post_migrate makes again after every flush (a content type for each model and
# its four permissions): kept, and post_migrate, which creates what is missing, finds them.
REMADE = ("django_content_type", "auth_permission")
# The databases whose foreign keys Django makes deferred, and the statement that defers them
# for the transaction (SQLite's are declared DEFERRABLE INITIALLY DEFERRED already).
DEFERRED = {
    "postgresql": "SET CONSTRAINTS ALL DEFERRED;",
    "sqlite": "PRAGMA defer_foreign_keys = ON;",
}


def sql_flush(style, connection, reset_sequences=True, allow_cascade=False):
    """Django's ``sql_flush``, but on PostgreSQL and SQLite without sequence resets it deletes
    the rows of the tables that hold any, unless one holds more than :data:`MANY_ROWS`.

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
    tables = [t for t in tables if t not in REMADE]
    quote = connection.ops.quote_name
    # One row per table that holds any: the table and its rows, counted up to MANY_ROWS + 1.
    probe = " UNION ALL ".join(
        f"SELECT %s, (SELECT count(*) FROM (SELECT 1 FROM {quote(t)} LIMIT {MANY_ROWS + 1}) r) "
        f"WHERE EXISTS (SELECT 1 FROM {quote(t)})"
        for t in tables
    )
    with connection.cursor() as cursor:
        cursor.execute(probe, list(tables))
        filled = dict(cursor.fetchall())
    if any(rows > MANY_ROWS for rows in filled.values()):
        return management_sql.sql_flush(
            style, connection, reset_sequences=False, allow_cascade=allow_cascade
        )
    # Nothing to delete still runs one statement: the flush emits post_migrate only after SQL.
    return [DEFERRED[connection.vendor]] + [f"DELETE FROM {quote(t)};" for t in sorted(filled)]
