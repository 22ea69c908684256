"""Test helper: skip marks for tests that need what only PostgreSQL gives (CI runs them)."""

from __future__ import annotations

import pytest
from django.db import connection


def postgresql_only(reason: str):
    """A mark that skips the test on another database (SQLite, the embedded default).

    Args:
        reason: what the test needs of PostgreSQL, shown with the skip.

    Returns:
        A ``pytest.mark.skipif``.
    """
    return pytest.mark.skipif(connection.vendor != "postgresql", reason=reason)


# Tests that hold a row from a connection of their own while another process writes it.
needs_row_locks = postgresql_only("row locks: PostgreSQL (SQLite writes one at a time)")
