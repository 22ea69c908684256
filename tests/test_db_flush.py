"""The transactional tests' flush (tests/db_flush.py) leaves every table as Django's would."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection, connections

from annotation.corpus.models import Dataset, Document
from tests.db_flush import MANY_ROWS, REMADE

pytestmark = pytest.mark.django_db(transaction=True)


def _filled_tables() -> dict[str, int]:
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with connection.cursor() as cursor:
        counts = {}
        for table in tables:
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = cursor.fetchone()[0]
    return {table: n for table, n in counts.items() if n}


def _flush() -> None:
    """What a transactional test's teardown runs (Django's TransactionTestCase)."""
    call_command("flush", verbosity=0, interactive=False, reset_sequences=False)


def _content_types_and_permissions() -> tuple[set, set]:
    return (
        set(ContentType.objects.values_list("app_label", "model")),
        set(Permission.objects.values_list("content_type__app_label", "codename")),
    )


def test_rows_with_foreign_keys_in_any_order_are_deleted_and_the_remade_rows_stay():
    expected = _content_types_and_permissions()
    dataset = Dataset.objects.create(slug="flush", name="Flush")
    Document.objects.create(dataset=dataset, external_id="d1", position=0, sentences=["A."])
    Group.objects.create(name="flush-group").permissions.add(Permission.objects.first())
    assert {"corpus_dataset", "corpus_document", "auth_group_permissions"} <= set(_filled_tables())

    _flush()

    assert set(_filled_tables()) == set(REMADE)
    # The same content types and permissions as Django's flush and post_migrate leave.
    assert _content_types_and_permissions() == expected


def test_a_missing_permission_is_made_again():
    expected = _content_types_and_permissions()
    Permission.objects.filter(codename="view_dataset").delete()

    _flush()

    assert _content_types_and_permissions() == expected


def test_rows_another_connection_writes_after_the_statements_are_made_are_deleted(monkeypatch):
    # A worker finishing a job writes while the test's flush runs: here a document goes into
    # the empty document table after the flush has made its statements, before it runs them.
    dataset = Dataset.objects.create(slug="late", name="Late")
    run = connection.ops.execute_sql_flush

    def a_worker_writes_first(sql_list):
        def write():
            try:
                Document.objects.create(
                    dataset_id=dataset.pk, external_id="d1", position=0, sentences=["A."]
                )
            finally:
                connections.close_all()

        worker = threading.Thread(target=write)
        worker.start()
        worker.join()
        return run(sql_list)

    monkeypatch.setattr(connection.ops, "execute_sql_flush", a_worker_writes_first)
    assert set(_filled_tables()) == {"corpus_dataset", *REMADE}

    _flush()

    assert set(_filled_tables()) == set(REMADE)


def test_a_table_with_many_rows_is_emptied():
    expected = _content_types_and_permissions()
    dataset = Dataset.objects.create(slug="many", name="Many")
    Document.objects.bulk_create(
        Document(dataset=dataset, external_id=f"d{i}", position=i, sentences=["A."])
        for i in range(MANY_ROWS + 1)
    )

    _flush()

    # On PostgreSQL Django's flush truncates them all, the content types and permissions too,
    # and post_migrate makes those again.
    assert set(_filled_tables()) == set(REMADE)
    assert _content_types_and_permissions() == expected
