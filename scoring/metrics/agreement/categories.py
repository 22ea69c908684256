"""A FAM's document category (noise, low or high abstraction), as the workspace derives it."""

from __future__ import annotations

from collections.abc import Iterable

from .errors import InvalidAnnotationError

NOISE = "noise"
LOW = "low"
HIGH = "high"
CATEGORIES = (NOISE, LOW, HIGH)

LABEL_SUPPORTED = "supported"
LABEL_NO_SUPPORT = "no_support"
LABEL_NOISE = "noise"


def fam_category(labels: Iterable[str], override: str = "") -> str:
    """The document category an annotator's FAM gives (the FAR paper's three categories).

    The annotator's explicit choice (``override``) wins. Otherwise, as the FAM workspace
    derives it (``frontend/static/loupe/fam.js``): any facet labelled ``no_support`` makes the
    document high abstraction; every facet labelled ``noise`` makes it noise; anything else is
    low abstraction.

    Args:
        labels: each facet's label (``supported``, ``no_support`` or ``noise``).
        override: the annotator's category, or ``""`` to derive it.

    Returns:
        ``"noise"``, ``"low"`` or ``"high"``.

    Raises:
        InvalidAnnotationError: an override or a label outside the known values.
    """
    labels = list(labels)
    known = (LABEL_SUPPORTED, LABEL_NO_SUPPORT, LABEL_NOISE)
    for facet, label in enumerate(labels):
        if label not in known:
            raise InvalidAnnotationError(
                f"facet label {label!r} is not one of {list(known)}", facet=facet
            )
    if override:
        if override not in CATEGORIES:
            raise InvalidAnnotationError(f"category {override!r} is not one of {list(CATEGORIES)}")
        return override
    if LABEL_NO_SUPPORT in labels:
        return HIGH
    if labels and all(label == LABEL_NOISE for label in labels):
        return NOISE
    return LOW
