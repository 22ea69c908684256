"""Writer hooks: a higher layer writes the parts of a bundle that it owns, in the same transaction.

A dataset release can bring system outputs, FAM annotation sets, span sets, human judgment
studies and the release's own automatic scores. The import kernel knows no app's rows, so the
dataset writer (``annotation.corpus``) writes what the corpus owns (the dataset, documents and
references) and hands each other part to the part writer its app registers in its
``AppConfig.ready()``: systems and outputs to ``annotation.systems``, annotation sets to
``annotation.fams``, span sets to ``annotation.spans``, judgments and released scores to
``scoring.judgments``. Those apps sit above corpus, which never imports them. The hand-over
happens inside the writer's transaction: the import stays all or nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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


class AnnotationSetsPartWriter:
    """Base class for the writer of a bundle's FAM annotation sets (``annotation.fams``'s)."""

    def write(
        self,
        bundle: ImportBundle,
        *,
        dataset: Any,
        documents: Mapping[str, Any],
        references: Mapping[tuple[str, int], Any],
    ) -> None:
        """Write the bundle's annotation sets and their FAMs inside the caller's transaction.

        Args:
            bundle: a validated bundle.
            dataset: the dataset row.
            documents: the dataset's document rows by external id.
            references: the reference rows this import wrote, by (document id, position).
        """
        raise NotImplementedError


class SpanSetsPartWriter:
    """Base class for the writer of a bundle's span sets (``annotation.spans``'s)."""

    def check(self, bundle: ImportBundle, *, dataset: Any | None) -> tuple[Issue, ...]:
        """Check the bundle's span sets against the database, writing nothing.

        Args:
            bundle: a validated bundle.
            dataset: the target dataset row, or None when the import creates it.

        Returns:
            The problems found (a span set's slug the dataset has already).
        """
        raise NotImplementedError

    def write(
        self,
        bundle: ImportBundle,
        *,
        dataset: Any,
        versions: tuple[tuple[str, int], ...],
        user=None,
    ) -> None:
        """Write each span set with its annotations of the outputs just written.

        Args:
            bundle: a bundle that passed :meth:`check`.
            dataset: the dataset row.
            versions: ``(system slug, version number)`` of each output version written.
            user: the importing user.
        """
        raise NotImplementedError


@dataclass
class _Slot:
    """One kind of part writer: installed once at start-up, asked for by the dataset writer."""

    what: str
    app: str
    brings: Callable[[ImportBundle], bool]
    writer: object | None = None


# The parts of a bundle that other apps write, by name: what they are, the app that stores them.
OUTPUTS = "outputs"
ANNOTATION_SETS = "annotation_sets"
SPAN_SETS = "span_sets"
JUDGMENTS = "judgments"
_SLOTS = {
    OUTPUTS: _Slot("system outputs", "annotation.systems", lambda b: bool(b.systems or b.outputs)),
    ANNOTATION_SETS: _Slot(
        "FAM annotation sets", "annotation.fams", lambda b: bool(b.annotation_sets)
    ),
    SPAN_SETS: _Slot("span sets", "annotation.spans", lambda b: bool(b.span_sets)),
    JUDGMENTS: _Slot(
        "human judgments or released scores",
        "scoring.judgments",
        lambda b: bool(b.judgment_studies or b.released_scores),
    ),
}
PartWriter = OutputsPartWriter | AnnotationSetsPartWriter | SpanSetsPartWriter | JudgmentsPartWriter


def part_writer_register(part: str, writer: PartWriter) -> None:
    """Install the writer of one part (its app does, once, in ``AppConfig.ready()``).

    Args:
        part: :data:`OUTPUTS` (``annotation.systems``), :data:`ANNOTATION_SETS`
            (``annotation.fams``), :data:`SPAN_SETS` (``annotation.spans``) or
            :data:`JUDGMENTS` (``scoring.judgments``).
        writer: the part writer (an instance of the part's base class above).
    """
    _SLOTS[part].writer = writer


def part_writer_get(part: str, bundle: ImportBundle):
    """The writer for one part of ``bundle``, or None when the bundle does not bring that part.

    Args:
        part: one of the parts named at :func:`part_writer_register`.
        bundle: the bundle to write.

    Returns:
        The registered part writer, or None if the bundle brings nothing of the part.

    Raises:
        ImportValidationError: the bundle brings the part but no app that stores it is installed.
    """
    slot = _SLOTS[part]
    if not slot.brings(bundle):
        return None
    if slot.writer is None:
        raise ImportValidationError(
            [
                Issue(
                    Location(f"dataset {bundle.dataset.slug}"),
                    f"this import brings {slot.what}, but no app that stores them is "
                    f"installed (add {slot.app} to INSTALLED_APPS)",
                )
            ]
        )
    return slot.writer
