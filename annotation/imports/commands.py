"""What the import commands share: a refused import on stderr (exit status 1) and the report."""

from __future__ import annotations

from collections.abc import Iterable

from django.core.management.base import BaseCommand, CommandError

from .bundle import ImportValidationError


def import_refused(
    command: BaseCommand, error: ImportValidationError, *, what: str = "Import"
) -> CommandError:
    """Write every problem of a refused import to stderr and give the error to raise.

    Raising the returned error makes ``manage.py`` print its one-line message and exit with
    status 1.

    Args:
        command: the running management command (its ``stderr`` gets one line per problem).
        error: the refusal, with every problem found.
        what: the word that starts the message (``"Import"``, ``"Upload"``).

    Returns:
        A :class:`CommandError` that counts the problems and says nothing was written.
    """
    for issue in error.issues:
        command.stderr.write(f"  {issue}")
    return CommandError(
        f"{what} refused: {len(error.issues)} problem(s) (listed above); nothing was written."
    )


def import_verb(dry_run: bool) -> str:
    """``"Would import"`` for a dry run, else ``"Imported"``.

    Args:
        dry_run: whether nothing was written.

    Returns:
        The verb that opens a command's summary line.
    """
    return "Would import" if dry_run else "Imported"


def import_report_write(
    command: BaseCommand, lines: Iterable[object], *, unit: str = "line(s)", none: str = "nothing"
) -> None:
    """Write an import's report to stdout: a heading with the count, then a line each.

    Args:
        command: the running management command.
        lines: the report's lines (written with ``str``).
        unit: what the heading counts, e.g. ``"low-confidence mapping(s)"``.
        none: what the heading says when there is no line.
    """
    lines = list(lines)
    command.stdout.write(f"Report ({len(lines)} {unit}):" if lines else f"Report: {none}.")
    for line in lines:
        command.stdout.write(f"  {line}")
