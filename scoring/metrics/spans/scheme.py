"""Span schemes: which types, labels and sides an error may have, and its derived severity.

A scheme is a small class (``SpanScheme``); PolyTope (subtype x label -> severity from the
official matrix) and the XSum hallucination release (intrinsic / extrinsic, no label, no
severity) are the two registered. ``validate_errors`` turns raw JSON errors into
``MarkedError`` records or raises ``SpanSchemeError`` naming the error at fault and why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from ..errors import MetricsError
from ..polytope import Label, PolyTopeError, Subtype, parse_label, parse_subtype, severity_of
from .model import SIDE_NONE, SIDE_SOURCE, SIDE_SUMMARY, SIDES, MarkedError

MAX_REASON = 2000
MAX_WORDS = 2000


class SpanSchemeError(MetricsError):
    """An error that its scheme refuses; ``index`` is its position in the list (or None)."""

    def __init__(self, message: str, *, index: int | None = None):
        where = f"error {index + 1}: " if index is not None else ""
        super().__init__(where + message)
        self.index = index


class SpanScheme:
    """Base class of a span taxonomy. Subclasses set the names and may override the hooks."""

    name: str = ""
    title: str = ""
    types: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    has_severity: bool = False

    def parse_type(self, value: Any) -> str:
        """The canonical type name for ``value``.

        Raises:
            SpanSchemeError: for a name that is not one of ``types``.
        """
        if isinstance(value, str):
            for name in self.types:
                if value.strip().lower() == name.lower():
                    return name
        raise SpanSchemeError(f"type {value!r} is not one of {', '.join(self.types)}")

    def parse_label(self, value: Any) -> str:
        """The canonical label name ("" for a scheme without labels).

        Raises:
            SpanSchemeError: for a label the scheme does not know, or any label in a scheme
                without labels.
        """
        if not self.labels:
            if value in (None, ""):
                return ""
            raise SpanSchemeError(f"the {self.title} scheme has no labels (got {value!r})")
        if isinstance(value, str):
            for name in self.labels:
                if value.strip().lower() == name.lower():
                    return name
        raise SpanSchemeError(f"label {value!r} is not one of {', '.join(self.labels)}")

    def severity(self, type_: str, label: str) -> str:
        """The derived severity of a (type, label) pair; "" when the scheme has none.

        Raises:
            SpanSchemeError: for a combination the scheme does not allow.
        """
        return ""

    def sides_for(self, type_: str) -> tuple[str, ...]:
        """Where an error of ``type_`` may be marked (default: in the summary, or nowhere)."""
        return (SIDE_SUMMARY, SIDE_NONE)

    def describe(self) -> dict:
        """The scheme as plain data for pages and the API (types, labels, severity table)."""
        table = {}
        if self.has_severity:
            for type_ in self.types:
                row = {}
                for label in self.labels:
                    try:
                        row[label] = self.severity(type_, label)
                    except SpanSchemeError:
                        row[label] = None
                table[type_] = row
        return {
            "name": self.name,
            "title": self.title,
            "types": list(self.types),
            "labels": list(self.labels),
            "has_severity": self.has_severity,
            "severity": table,
            "sides": {type_: list(self.sides_for(type_)) for type_ in self.types},
        }


class PolytopeScheme(SpanScheme):
    """PolyTope (Huang et al. 2020): 8 subtypes x 8 syntactic labels, severity from the matrix.

    An Omission is marked in the source (the missing key point lives there) or nowhere; every
    other subtype in the summary or nowhere.
    """

    name = "polytope"
    title = "PolyTope"
    types = tuple(s.value for s in Subtype)
    labels = tuple(label.value for label in Label)
    has_severity = True

    def parse_type(self, value: Any) -> str:
        try:
            return parse_subtype(value).value
        except (PolyTopeError, TypeError) as error:
            raise SpanSchemeError(
                f"subtype {value!r} is not one of {', '.join(self.types)}"
            ) from error

    def parse_label(self, value: Any) -> str:
        try:
            return parse_label(value).value
        except (PolyTopeError, TypeError) as error:
            raise SpanSchemeError(
                f"label {value!r} is not one of {', '.join(self.labels)}"
            ) from error

    def severity(self, type_: str, label: str) -> str:
        try:
            return severity_of(type_, label).value
        except PolyTopeError as error:
            raise SpanSchemeError(
                f"{type_} with the label {label} is N/A in the official severity matrix: "
                "the guidelines do not allow that combination, so it has no severity. "
                "Choose the label that names what is wrong, or another subtype."
            ) from error

    def sides_for(self, type_: str) -> tuple[str, ...]:
        if type_ == Subtype.OMISSION.value:
            return (SIDE_SOURCE, SIDE_NONE)
        return (SIDE_SUMMARY, SIDE_NONE)


class XsumHallucinationScheme(SpanScheme):
    """Maynez et al. (2020): hallucinated summary spans, intrinsic or extrinsic; no severity."""

    name = "xsum-hallucinations"
    title = "XSum hallucinations"
    types = ("intrinsic", "extrinsic")


SCHEMES: Mapping[str, SpanScheme] = MappingProxyType(
    {scheme.name: scheme for scheme in (PolytopeScheme(), XsumHallucinationScheme())}
)


def scheme_names() -> tuple[str, ...]:
    """The registered schemes' names."""
    return tuple(SCHEMES)


def scheme_get(name: str) -> SpanScheme:
    """The registered scheme called ``name``.

    Raises:
        SpanSchemeError: for an unknown name.
    """
    try:
        return SCHEMES[name]
    except KeyError:
        raise SpanSchemeError(
            f"unknown span scheme {name!r} (known: {', '.join(SCHEMES)})"
        ) from None


def _offset(raw: Mapping, key: str, index: int) -> int:
    value = raw.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise SpanSchemeError(f"{key} must be a whole number, got {value!r}", index=index)
    return value


def _text(raw: Mapping, key: str, limit: int, index: int) -> str:
    value = raw.get(key, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise SpanSchemeError(f"{key} must be text, got {value!r}", index=index)
    if len(value) > limit:
        raise SpanSchemeError(f"{key} is longer than {limit} characters", index=index)
    return value


def _one(scheme: SpanScheme, raw: Any, index: int, texts: Mapping[str, str | None]) -> MarkedError:
    if not isinstance(raw, Mapping):
        raise SpanSchemeError("must be an object", index=index)
    try:
        type_ = scheme.parse_type(raw.get("type"))
        if scheme.labels and raw.get("label") in (None, ""):
            raise SpanSchemeError(
                f"{type_} needs a label (one of {', '.join(scheme.labels)})"
                + (" to have a severity" if scheme.has_severity else "")
            )
        label = scheme.parse_label(raw.get("label", ""))
        severity = scheme.severity(type_, label) if scheme.has_severity else ""
    except SpanSchemeError as error:
        raise SpanSchemeError(str(error), index=index) from error
    side = raw.get("side", SIDE_SUMMARY)
    if side not in SIDES:
        raise SpanSchemeError(f"side must be one of {', '.join(SIDES)}, got {side!r}", index=index)
    if side not in scheme.sides_for(type_):
        where = " or ".join(scheme.sides_for(type_))
        raise SpanSchemeError(
            f"a {type_} error is marked in the {where}, not in the {side}"
            + (" (the missing point lives in the source)" if side == SIDE_SUMMARY else ""),
            index=index,
        )
    words = _text(raw, "words", MAX_WORDS, index)
    reason = _text(raw, "reason", MAX_REASON, index)
    start = end = None
    if side != SIDE_NONE:
        text = texts.get(side)
        if text is None:
            raise SpanSchemeError(
                f"the {side} text is not available to mark a span in", index=index
            )
        start, end = _offset(raw, "start", index), _offset(raw, "end", index)
        if not 0 <= start < end <= len(text):
            raise SpanSchemeError(
                f"span [{start}, {end}) is outside the {side} (valid: 0 <= start < end <= "
                f"{len(text)})",
                index=index,
            )
        spanned = text[start:end]
        if words and words != spanned:
            raise SpanSchemeError(
                f"words {words!r} are not the spanned {side} text {spanned!r}", index=index
            )
        words = spanned
    elif raw.get("start") is not None or raw.get("end") is not None:
        raise SpanSchemeError("an error marked nowhere has no start or end", index=index)
    return MarkedError(side, start, end, words, type_, label, severity, reason)


def validate_errors(
    scheme: SpanScheme,
    errors: Sequence[Any],
    *,
    summary: str,
    source: str | None,
) -> tuple[MarkedError, ...]:
    """Check raw errors against a scheme and the texts they point into.

    Args:
        scheme: the annotation set's scheme.
        errors: JSON objects ``{"side", "start", "end", "words", "type", "label", "reason"}``;
            a given ``severity`` is ignored (the scheme derives it).
        summary: the summary text (its sentences joined by one space).
        source: the source text the same way, or None when the release has no text.

    Returns:
        The errors as ``MarkedError`` records, in the given order.

    Raises:
        SpanSchemeError: the first error refused, with its position and the reason; also for an
            exact repeat of an earlier error.
    """
    if not isinstance(errors, Sequence) or isinstance(errors, str | bytes):
        raise SpanSchemeError("errors must be a list")
    texts = {SIDE_SUMMARY: summary, SIDE_SOURCE: source}
    marked: list[MarkedError] = []
    seen: dict[tuple, int] = {}
    for index, raw in enumerate(errors):
        error = _one(scheme, raw, index, texts)
        key = (error.side, error.start, error.end, error.words, error.type, error.label)
        if error.side != SIDE_NONE and key in seen:
            raise SpanSchemeError(
                f"repeats error {seen[key] + 1} (same span, type and label)", index=index
            )
        seen.setdefault(key, index)
        marked.append(error)
    return tuple(marked)
