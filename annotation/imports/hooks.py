"""Writer hooks: a higher layer writes the parts of a bundle that it owns, in the same transaction.

A dataset release can bring system outputs. The import kernel knows no app's rows, so the dataset
writer writes what the corpus owns (documents, references, annotation sets) and hands the systems
and outputs to the part writer that ``annotation.systems`` registers in its
``AppConfig.ready()``. The hand-over happens inside the writer's transaction: the import stays
all or nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .bundle import ImportBundle, ImportValidationError, Issue, Location


@dataclass(frozen=True)
class PartCheck:
    """A part writer's pre-flight verdict: the problems found and the systems that exist."""

    issues: tuple[Issue, ...] = ()
    existing_systems: frozenset[str] = frozenset()


class OutputsPartWriter:
    """Base class for the writer of a bundle's systems and outputs (one is registered)."""

    def check(self, bundle: ImportBundle, *, dataset: Any | None) -> PartCheck:
        """Check the bundle's systems and outputs against the database, writing nothing.

        Args:
            bundle: a validated bundle.
            dataset: the target dataset row, or None when the import creates it.

        Returns:
            A :class:`PartCheck`.
        """
        raise NotImplementedError

    def write(
        self,
        bundle: ImportBundle,
        *,
        dataset: Any,
        documents: Mapping[str, Any],
        user=None,
        source: str = "",
    ) -> tuple[tuple[str, int], ...]:
        """Write the bundle's systems and outputs inside the caller's transaction.

        Args:
            bundle: a validated bundle that passed :meth:`check`.
            dataset: the dataset row.
            documents: the dataset's document rows by external id, locked by the caller.
            user: the importing user.
            source: the file or release the outputs came from.

        Returns:
            ``(system slug, version number)`` of each output version written.
        """
        raise NotImplementedError


_outputs_writer: OutputsPartWriter | None = None


def outputs_writer_register(writer: OutputsPartWriter) -> None:
    """Install the writer of systems and outputs (``annotation.systems`` does, once, at start-up).

    Args:
        writer: the part writer.
    """
    global _outputs_writer
    _outputs_writer = writer


def outputs_writer_get(bundle: ImportBundle) -> OutputsPartWriter | None:
    """The writer for ``bundle``'s systems and outputs, or None when it has neither.

    Args:
        bundle: the bundle to write.

    Returns:
        The registered part writer, or None if the bundle brings no systems or outputs.

    Raises:
        ImportValidationError: the bundle brings outputs but no writer is installed.
    """
    if not bundle.systems and not bundle.outputs:
        return None
    if _outputs_writer is None:
        raise ImportValidationError(
            [
                Issue(
                    Location(f"dataset {bundle.dataset.slug}"),
                    "this import brings system outputs, but no app that stores them is "
                    "installed (add annotation.systems to INSTALLED_APPS)",
                )
            ]
        )
    return _outputs_writer
