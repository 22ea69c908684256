"""Assignment strategies as pure functions: which annotator gets which document."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

D = TypeVar("D")
A = TypeVar("A")


class AssignmentError(ValueError):
    """The requested assignment is impossible (e.g. more annotators per document than exist)."""


def round_robin(
    documents: Sequence[D], annotators: Sequence[A], per_document: int
) -> list[tuple[D, A]]:
    """Give each document to ``per_document`` distinct annotators, cycling through them.

    Loads are balanced: over the whole campaign, annotator loads differ by at most one.
    Document ``i`` goes to annotators ``(i*k + j) mod n`` for ``j < k``, so consecutive
    documents overlap different annotator pairs.

    Args:
        documents: the documents, in queue order.
        annotators: the annotators, in a fixed order.
        per_document: how many annotators each document gets (``k``).

    Returns:
        ``(document, annotator)`` pairs, documents in order.

    Raises:
        AssignmentError: no annotators, or ``per_document`` is not in ``1..len(annotators)``.
    """
    n = len(annotators)
    if n == 0:
        raise AssignmentError("no annotators to assign to")
    if not 1 <= per_document <= n:
        raise AssignmentError(
            f"{per_document} annotators per document requested, but only {n} annotator(s) given"
        )
    if len(set(annotators)) != n:
        raise AssignmentError("an annotator is listed twice")
    return [
        (document, annotators[(index * per_document + offset) % n])
        for index, document in enumerate(documents)
        for offset in range(per_document)
    ]
