"""Row helpers that every writer shares: cheap validation of new rows, and conflicts as issues."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import IntegrityError

from .bundle import ImportValidationError, Issue, Location


def clean_all(objects) -> None:
    """``full_clean`` each new row, leaving foreign keys and uniqueness to the database.

    Foreign keys point at rows the writer's transaction just created or locked (validating each
    would cost a query per row and key: 34 s for 11,490 outputs); clean() still checks each
    row's own rules.

    Args:
        objects: unsaved model instances of one model.

    Raises:
        django.core.exceptions.ValidationError: a row breaks its model's rules.
    """
    relations = None
    for obj in objects:
        if relations is None:
            relations = [f.name for f in obj._meta.fields if f.is_relation]
        obj.full_clean(exclude=relations, validate_unique=False, validate_constraints=False)


@contextmanager
def concurrent_conflicts(slug: str) -> Iterator[None]:
    """Turn a uniqueness race (another import wrote the same rows meanwhile) into an issue.

    Args:
        slug: the dataset slug, named in the issue.

    Raises:
        ImportValidationError: the database refused a row another import wrote first.
    """
    try:
        yield
    except IntegrityError as error:
        raise ImportValidationError(
            [Issue(Location(f"dataset {slug}"), f"a concurrent change conflicts: {error}; retry")]
        ) from error
