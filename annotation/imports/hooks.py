"""Writer hooks: a higher layer writes the parts of a bundle that it owns, in the same transaction.

A dataset release can bring system outputs, human judgment studies and the release's own
automatic scores. The import kernel knows no app's rows, so the dataset writer writes what the
corpus owns (documents, references, annotation sets) and hands the systems and outputs to the
part writer that ``annotation.systems`` registers in its ``AppConfig.ready()``, and the
judgments and released scores to the one ``scoring.judgments`` registers. The hand-over happens
inside the writer's transaction: the import stays all or nothing.
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


class JudgmentsPartWriter:
    """Base class for the writer of a bundle's judgment studies and released scores."""

    def check(self, bundle: ImportBundle, *, dataset: Any | None) -> tuple[Issue, ...]:
        """Check the bundle's studies and released scores against the database, writing nothing.

        Args:
            bundle: a validated bundle.
            dataset: the target dataset row, or None when the import creates it.

        Returns:
            The problems found (a study or released name the dataset has already).
        """
        raise NotImplementedError

    def write(
        self, bundle: ImportBundle, *, dataset: Any, documents: Mapping[str, Any], user=None
    ) -> None:
        """Write the studies and released scores inside the caller's transaction, after the
        systems and outputs they judge.

        Args:
            bundle: a validated bundle that passed :meth:`check`.
            dataset: the dataset row.
            documents: the dataset's document rows by external id.
            user: the importing user, recorded as the judgments' uploader.
        """
        raise NotImplementedError


class _Slot:
    """One kind of part writer: installed once at start-up, asked for by the dataset writer."""

    def __init__(self, what: str, app: str):
        self.what = what
        self.app = app
        self.writer = None

    def get(self, bundle: ImportBundle, *, brings: bool):
        if not brings:
            return None
        if self.writer is None:
            raise ImportValidationError(
                [
                    Issue(
                        Location(f"dataset {bundle.dataset.slug}"),
                        f"this import brings {self.what}, but no app that stores them is "
                        f"installed (add {self.app} to INSTALLED_APPS)",
                    )
                ]
            )
        return self.writer


_OUTPUTS = _Slot("system outputs", "annotation.systems")
_JUDGMENTS = _Slot("human judgments or released scores", "scoring.judgments")


def outputs_writer_register(writer: OutputsPartWriter) -> None:
    """Install the writer of systems and outputs (``annotation.systems`` does, once, at start-up).

    Args:
        writer: the part writer.
    """
    _OUTPUTS.writer = writer


def outputs_writer_get(bundle: ImportBundle) -> OutputsPartWriter | None:
    """The writer for ``bundle``'s systems and outputs, or None when it has neither.

    Args:
        bundle: the bundle to write.

    Returns:
        The registered part writer, or None if the bundle brings no systems or outputs.

    Raises:
        ImportValidationError: the bundle brings outputs but no writer is installed.
    """
    return _OUTPUTS.get(bundle, brings=bool(bundle.systems or bundle.outputs))


def judgments_writer_register(writer: JudgmentsPartWriter) -> None:
    """Install the writer of judgment studies and released scores (``scoring.judgments`` does,
    once, at start-up).

    Args:
        writer: the part writer.
    """
    _JUDGMENTS.writer = writer


def judgments_writer_get(bundle: ImportBundle) -> JudgmentsPartWriter | None:
    """The writer for ``bundle``'s judgment studies and released scores, or None without any.

    Args:
        bundle: the bundle to write.

    Returns:
        The registered part writer, or None if the bundle brings neither.

    Raises:
        ImportValidationError: the bundle brings them but no writer is installed.
    """
    return _JUDGMENTS.get(bundle, brings=bool(bundle.judgment_studies or bundle.released_scores))
