"""Named entities as plain spans, the pluggable recogniser, and the paper's entity filtering."""

from __future__ import annotations

import re
import string
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import EntitySpanError

# The released code's (APES-on-TAC2011) kept spaCy labels; FACILITY is spaCy 1's name for FAC.
DEFAULT_LABELS: frozenset[str] = frozenset({"PERSON", "ORG", "NORP", "GPE", "FAC", "FACILITY"})

# The released code drops entities whose span is one character or shorter.
MIN_ENTITY_CHARS = 2

_ARTICLES_RE = re.compile(r"\b(a|an|the)\b")
_POSSESSIVE_RE = re.compile(r"['\u2019]s\b")
_PUNCT_TABLE = str.maketrans({c: " " for c in string.punctuation + "\u2019\u2018\u201c\u201d"})


@dataclass(frozen=True, order=True)
class Entity:
    """One entity mention: ``text == source[start:end]``.

    Attributes:
        start: offset of its first character in the text it was found in.
        end: offset just past its last character.
        text: the mention's surface text.
        label: the recogniser's type label (e.g. ``"PERSON"``).
    """

    start: int
    end: int
    text: str
    label: str

    def __post_init__(self) -> None:
        if not isinstance(self.start, int) or not isinstance(self.end, int):
            raise EntitySpanError("offsets must be integers", entity=self)
        if self.start < 0 or self.end <= self.start:
            raise EntitySpanError("needs 0 <= start < end", entity=self)
        if len(self.text) != self.end - self.start:
            raise EntitySpanError("its text's length is not end - start", entity=self)


class EntityRecognizer(ABC):
    """A named-entity recogniser: spaCy or anything else lives behind this in a higher layer."""

    @abstractmethod
    def recognize(self, text: str) -> Sequence[Entity]:
        """The entity mentions of a text.

        Args:
            text: the text to tag.

        Returns:
            Its entities, in any order; each one's ``text`` must equal ``text[start:end]``.

        Raises:
            Whatever the implementation raises for text it cannot tag.
        """


def normalize_entity(text: str) -> str:
    """The key two entity texts are compared by (the SQuAD answer normalisation, plus ``'s``).

    Lower-cases, drops a possessive ``'s``, replaces punctuation with spaces, drops the
    articles *a*, *an*, *the*, and collapses whitespace: ``"The U.S.'s"`` becomes ``"u s"``.

    Args:
        text: an entity's surface text.

    Returns:
        The normalised key (may be empty for text made only of punctuation and articles).

    Raises:
        Nothing.
    """
    lowered = _POSSESSIVE_RE.sub("", text.lower())
    return " ".join(_ARTICLES_RE.sub(" ", lowered.translate(_PUNCT_TABLE)).split())


def check_entities(text: str, entities: Iterable[Entity]) -> tuple[Entity, ...]:
    """Check that every entity is a span of ``text`` and return them sorted by offset.

    Args:
        text: the text the entities were found in.
        entities: the recogniser's entities.

    Returns:
        The entities sorted by ``(start, end)``, exact duplicates once.

    Raises:
        EntitySpanError: an entity ends past the text or its text is not ``text[start:end]``.
    """
    checked = set()
    for entity in entities:
        if not isinstance(entity, Entity):
            raise EntitySpanError("is not an Entity", entity=entity)
        if entity.end > len(text):
            raise EntitySpanError(f"ends past the text ({len(text)} characters)", entity=entity)
        if text[entity.start : entity.end] != entity.text:
            raise EntitySpanError(
                f"the text at its offsets is {text[entity.start : entity.end]!r}", entity=entity
            )
        checked.add(entity)
    return tuple(sorted(checked))


def select_entities(
    text: str,
    entities: Iterable[Entity],
    *,
    labels: frozenset[str] | None = DEFAULT_LABELS,
) -> tuple[Entity, ...]:
    """The entities questions are made of: the kept labels, no tiny or overlapping spans.

    Rules, in order: keep the labels in ``labels`` (all when ``None``); drop spans shorter than
    :data:`MIN_ENTITY_CHARS` and those whose normalised text is empty; then resolve overlaps
    left to right: of overlapping mentions the longest is kept, and of equally long ones the
    earliest (then the label first in alphabetical order), so kept mentions never overlap.

    Args:
        text: the text the entities were found in.
        entities: the recogniser's entities.
        labels: the labels to keep; ``None`` keeps every label.

    Returns:
        The kept entities, sorted by offset, pairwise disjoint.

    Raises:
        EntitySpanError: an entity is not a span of ``text``.
    """
    candidates = [
        e
        for e in check_entities(text, entities)
        if (labels is None or e.label in labels)
        and e.end - e.start >= MIN_ENTITY_CHARS
        and normalize_entity(e.text)
    ]
    # Longest first, then earliest, then label: a greedy pass keeps the preferred of overlaps.
    kept: list[Entity] = []
    for entity in sorted(candidates, key=lambda e: (-(e.end - e.start), e.start, e.label)):
        if all(entity.end <= k.start or entity.start >= k.end for k in kept):
            kept.append(entity)
    return tuple(sorted(kept))
