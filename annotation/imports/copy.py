"""Bulk inserts of new rows: PostgreSQL's ``COPY`` where it runs, ``bulk_create`` elsewhere."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Sequence

from django.db import connection, models
from django.utils import timezone

# Rows per COPY statement: bounds the CSV text held in memory at once.
COPY_PAGE = 20000


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _converter(field: models.Field, now) -> Callable[[models.Model], str]:
    """How one field of an instance becomes a CSV field: NULL unquoted and empty, every other
    value quoted (so "" is an empty string)."""
    attname = field.attname
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        # One time for the whole call, as bulk_create's pre_save gives.
        stamp = _quoted(str(now if isinstance(field, models.DateTimeField) else now.date()))
        return lambda obj: stamp
    if isinstance(field, models.JSONField):
        encoder = field.encoder

        def json_value(obj: models.Model) -> str:
            value = getattr(obj, attname)
            return "" if value is None else _quoted(json.dumps(value, cls=encoder))

        return json_value

    def value(obj: models.Model) -> str:
        raw = getattr(obj, attname)
        if raw is None:
            return ""
        if isinstance(raw, bool):
            return '"t"' if raw else '"f"'
        if not isinstance(raw, str | int | float):
            raw = field.get_db_prep_save(raw, connection)
            if raw is None:
                return ""
        return _quoted(str(raw))

    return value


def rows_copy(objects: Sequence[models.Model], *, batch_size: int = 500) -> int:
    """Insert new model instances of one model, without their primary keys coming back.

    On PostgreSQL the rows go through ``COPY ... FROM STDIN`` (CSV), which skips building SQL
    statements; every constraint, foreign key and default of the table still applies. Elsewhere
    (SQLite) they go through ``bulk_create``. Call ``full_clean`` (or ``clean_all``) first:
    this only writes.

    Args:
        objects: unsaved instances of one concrete model, without a primary key set.
        batch_size: ``bulk_create``'s batch size where COPY is not used.

    Returns:
        How many rows were written.

    Raises:
        IntegrityError: a row the database refuses (nothing of this call is kept).
    """
    if not objects:
        return 0
    model = type(objects[0])
    if connection.vendor != "postgresql":
        model.objects.bulk_create(objects, batch_size=batch_size)
        return len(objects)
    # The database computes generated columns (``GeneratedField``); COPY must not name them.
    fields = [
        f
        for f in model._meta.concrete_fields
        if not f.primary_key and not getattr(f, "generated", False)
    ]
    now = timezone.now()
    converters = [_converter(f, now) for f in fields]
    table = connection.ops.quote_name(model._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    statement = f"COPY {table} ({columns}) FROM STDIN WITH (FORMAT csv)"
    with connection.cursor() as cursor, connection.wrap_database_errors:
        for start in range(0, len(objects), COPY_PAGE):
            buffer = io.StringIO()
            for obj in objects[start : start + COPY_PAGE]:
                buffer.write(",".join([convert(obj) for convert in converters]))
                buffer.write("\n")
            buffer.seek(0)
            cursor.cursor.copy_expert(statement, buffer)
    return len(objects)
