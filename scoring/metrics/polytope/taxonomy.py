"""The PolyTope taxonomy: 2 aspects, 8 subtypes, 8 syntactic labels, with their official names."""

from __future__ import annotations

import re
from enum import Enum

from .errors import PolyTopeError, UnknownLabelError, UnknownSubtypeError


class Aspect(Enum):
    """The two issue types (``IssueTypes.xlsm``, column "Issue types")."""

    ACCURACY = "Accuracy"
    FLUENCY = "Fluency"


class Subtype(Enum):
    """The 8 subtypes; values are the names in ``IssueTypes.xlsm``.

    Order is the Severity_Matrix / ScoreCard order of the release's workbooks.
    """

    ADDITION = "Addition"
    OMISSION = "Omission"
    INACCURACY_INTRINSIC = "Inaccuracy Intrinsic"
    INACCURACY_EXTRINSIC = "Inaccuracy Extrinsic"
    POSITIVE_NEGATIVE_ASPECT = "Positive-Negative Aspect"
    WORD_ORDER = "Word Order"
    DUPLICATION = "Duplication"
    WORD_FORM = "Word Form"

    @property
    def aspect(self) -> Aspect:
        """The issue type (Accuracy or Fluency) this subtype belongs to."""
        return Aspect.FLUENCY if self in _FLUENCY else Aspect.ACCURACY


_FLUENCY = frozenset({Subtype.WORD_ORDER, Subtype.DUPLICATION, Subtype.WORD_FORM})


class Label(Enum):
    """The 8 syntactic labels; values are the names in ``Labels.xlsm``.

    Order is the Severity_Matrix / ScoreCard column order of the release's workbooks.
    """

    SUBJECT = "Subject"
    OBJECT = "Object"
    PREDICATE = "Predicate"
    NUMBER_TIME = "Number & Time"
    PLACE_NAME = "Place & Name"
    ATTRIBUTE = "Attribute"
    FUNCTION_WORD = "Function Word"
    WHOLE_SENTENCE = "Whole Sentence"


# Other spellings the official workbooks use for the same item: the Severity_Matrix and Error
# Log of the annotated BART workbook ("Inaccuracy_internal", "Event Entity-Subject", ...), the
# AnnotationTemplate, the DecisionTree ("Inacc Intrinsic") and IssueTypes' examples ("Grammar -
# Word Order"). "Word_From" is the workbook's own misspelt named range for Word_Form.
SUBTYPE_ALIASES: dict[str, Subtype] = {
    "Inaccuracy_internal": Subtype.INACCURACY_INTRINSIC,
    "Inacc Intrinsic": Subtype.INACCURACY_INTRINSIC,
    "Inaccuracy_external": Subtype.INACCURACY_EXTRINSIC,
    "Inacc Extrinsic": Subtype.INACCURACY_EXTRINSIC,
    "Grammar - Word Order": Subtype.WORD_ORDER,
    "Grammar - Word Form": Subtype.WORD_FORM,
    "Word_From": Subtype.WORD_FORM,
}
LABEL_ALIASES: dict[str, Label] = {
    "Event Entity-Subject": Label.SUBJECT,
    "Event Entity-Object": Label.OBJECT,
    "Event Relation-Predicate": Label.PREDICATE,
    "Grammar Function Words": Label.FUNCTION_WORD,
    "Function Words": Label.FUNCTION_WORD,
}


def normalize_name(name: str) -> str:
    """Lower-case ``name`` and collapse every run of non-alphanumerics to one space.

    So "Positive_Negative_Aspect", "Positive-Negative Aspect" and "positive negative aspect"
    are the same key, as are "Number&Time" and "Number & Time".

    Args:
        name: a subtype or label name.

    Returns:
        The lookup key.

    Raises:
        Nothing for a string (callers check the type first).
    """
    return re.sub(r"[^0-9a-z]+", " ", name.casefold()).strip()


def _index(members: type[Enum], aliases: dict) -> dict[str, Enum]:
    table = {normalize_name(m.value): m for m in members}
    table.update({normalize_name(m.name): m for m in members})
    table.update({normalize_name(k): v for k, v in aliases.items()})
    return table


_SUBTYPES = _index(Subtype, SUBTYPE_ALIASES)
_LABELS = _index(Label, LABEL_ALIASES)


def _resolve(
    value: object,
    members: type[Enum],
    table: dict[str, Enum],
    error: type[PolyTopeError],
    index: int | None,
) -> Enum:
    """``value`` if it is already one of ``members``, else its entry in ``table``, or ``error``."""
    if isinstance(value, members):
        return value
    found = table.get(normalize_name(value)) if isinstance(value, str) else None
    if found is None:
        raise error(value, index=index)
    return found


def parse_subtype(value: str | Subtype, *, index: int | None = None) -> Subtype:
    """Resolve a subtype name (official, workbook spelling or enum name; case-insensitive).

    Args:
        value: the name, or a :class:`Subtype` (returned as is).
        index: position of the item in its input, carried by the error.

    Returns:
        The :class:`Subtype`.

    Raises:
        UnknownSubtypeError: not a string, or no subtype has that name.
    """
    return _resolve(value, Subtype, _SUBTYPES, UnknownSubtypeError, index)


def parse_label(value: str | Label, *, index: int | None = None) -> Label:
    """Resolve a label name (official, workbook spelling or enum name; case-insensitive).

    Args:
        value: the name, or a :class:`Label` (returned as is).
        index: position of the item in its input, carried by the error.

    Returns:
        The :class:`Label`.

    Raises:
        UnknownLabelError: not a string, or no label has that name.
    """
    return _resolve(value, Label, _LABELS, UnknownLabelError, index)
