"""Adjudication to gold: annotators' differences per facet or error, combining them, provenance.

Plain data in and out. A FAM facet is a mapping ``{"groups": [[sentence, ...], ...], "label":
"supported"|"no_support"|"noise"}``; an error is a stored ``MarkedError`` dict (``side``,
``start``, ``end``, ``words``, ``type``, ``label``, ...). Annotators are named by any hashable
key (usernames in the app), and every function returns them sorted.

Combining rules (also the checks a gold facet's ``provenance`` must pass):

- ``take``: one annotator's facet (groups and label) as it is.
- ``union``: every distinct support group any of the named annotators gave (a group is a set of
  sentences: the same set twice is one group), in order of first appearance.
- ``intersection``: the groups every named annotator gave.
- ``agreed``: the named annotators gave the same facet; it is copied.
- ``edited``: written by hand by the adjudicator (no check; ``annotators`` may say what it
  started from).

A combined facet with groups is ``supported``. A union without groups (nobody gave one) takes
the label the named annotators share; when their labels differ, ``no_support`` if any of them
said so, else ``noise`` if any did, else ``supported`` (undecided). An intersection without
groups does the same when every named annotator labelled the facet ``no_support`` or ``noise``,
and is left ``supported`` (undecided: the adjudicator chooses) when any of them gave groups or
left it undecided. (The adjudication page's ``gold.js`` builds facets by the same rules.)
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from .agreement.sets import jaccard
from .errors import MetricsError

TAKE, UNION, INTERSECTION, EDITED, AGREED = "take", "union", "intersection", "edited", "agreed"
METHODS = (TAKE, UNION, INTERSECTION, EDITED, AGREED)
COMBINING = (TAKE, UNION, INTERSECTION, AGREED)
SUPPORTED = "supported"
LABELS = (SUPPORTED, "no_support", "noise")
PROVENANCE_KEYS = frozenset({"method", "annotators"})

Group = frozenset[int]


class AdjudicationError(MetricsError):
    """Invalid adjudication input: a bad provenance, an unknown annotator, a facet that is not
    what its provenance says; the message names the facet or error at fault."""


def provenance_validate(value: object, *, where: str = "") -> dict:
    """Check one provenance record and return its canonical form.

    Args:
        value: ``{"method": one of METHODS, "annotators": [names]}``; ``annotators`` may be
            left out for ``edited``.
        where: a prefix for messages, such as ``"facet 2: "``.

    Returns:
        ``{"method", "annotators"}`` with the names sorted and each kept once.

    Raises:
        AdjudicationError: not a mapping, unknown keys, an unknown method, names that are not
            non-empty strings, ``take`` without exactly one annotator, or ``union``,
            ``intersection`` or ``agreed`` without any.
    """
    if not isinstance(value, Mapping):
        raise AdjudicationError(f"{where}provenance must be an object, got {value!r}")
    unknown = set(value) - PROVENANCE_KEYS
    if unknown:
        raise AdjudicationError(
            f"{where}provenance has unknown keys {sorted(map(str, unknown))} "
            f"(allowed: method, annotators)"
        )
    method = value.get("method")
    if method not in METHODS:
        raise AdjudicationError(
            f"{where}provenance method must be one of {list(METHODS)}, got {method!r}"
        )
    names = value.get("annotators", [])
    if not isinstance(names, list | tuple) or not all(
        isinstance(name, str) and name for name in names
    ):
        raise AdjudicationError(f"{where}provenance annotators must be a list of usernames")
    names = sorted(set(names))
    if method == TAKE and len(names) != 1:
        raise AdjudicationError(f"{where}'take' names exactly one annotator, got {names}")
    if method in (UNION, INTERSECTION, AGREED) and not names:
        raise AdjudicationError(f"{where}'{method}' names the annotators it combines")
    return {"method": method, "annotators": names}


def _groups(facet: Mapping) -> tuple[Group, ...]:
    """A facet's distinct groups as frozensets, in their order."""
    return tuple(dict.fromkeys(frozenset(group) for group in facet.get("groups", [])))


def _label(facet: Mapping) -> str:
    return facet.get("label", SUPPORTED) or SUPPORTED


def _as_lists(groups: Iterable[Group]) -> list[list[int]]:
    return [sorted(group) for group in groups]


def _support(groups: Iterable[Group]) -> frozenset[int]:
    return frozenset().union(*groups)


def facets_agree(facets: Sequence[Mapping]) -> bool:
    """Whether annotators gave the same facet: the same set of groups and the same label.

    Args:
        facets: one facet per annotator.

    Returns:
        True for one facet or several identical ones (group order does not matter); False for
        none.
    """
    if not facets:
        return False
    first = (set(_groups(facets[0])), _label(facets[0]))
    return all((set(_groups(f)), _label(f)) == first for f in facets[1:])


def groups_union(facets: Sequence[Mapping]) -> list[list[int]]:
    """Every distinct support group of the facets, in order of first appearance.

    Args:
        facets: one facet per annotator.

    Returns:
        The groups, each a sorted list of sentence indices.
    """
    return _as_lists(dict.fromkeys(g for facet in facets for g in _groups(facet)))


def groups_intersection(facets: Sequence[Mapping]) -> list[list[int]]:
    """The support groups that every facet has, in the first facet's order.

    Args:
        facets: one facet per annotator.

    Returns:
        The shared groups (none for no facet).
    """
    if not facets:
        return []
    others = [set(_groups(facet)) for facet in facets[1:]]
    return _as_lists(g for g in _groups(facets[0]) if all(g in other for other in others))


def _label_without_groups(facets: Sequence[Mapping]) -> str:
    """The shared label, else no_support if any, else noise if any, else supported."""
    labels = {_label(facet) for facet in facets}
    if len(labels) == 1:
        return labels.pop()
    return next((label for label in ("no_support", "noise") if label in labels), SUPPORTED)


def _combined_label(method: str, groups: Sequence, facets: Sequence[Mapping]) -> str:
    if groups:
        return SUPPORTED
    if method == INTERSECTION and any(_label(facet) == SUPPORTED for facet in facets):
        return SUPPORTED
    return _label_without_groups(facets)


@dataclass(frozen=True)
class FacetDiff:
    """How the compared annotators' facets differ.

    Attributes:
        facet: the facet's index.
        agree: every compared annotator gave the same groups and label.
        union: the distinct groups any of them gave.
        intersection: the groups all of them gave.
        support_union: sentences in any of their groups.
        support_intersection: sentences in the support of every one of them.
        labels: annotator -> the label they gave.
    """

    facet: int
    agree: bool
    union: tuple[tuple[int, ...], ...]
    intersection: tuple[tuple[int, ...], ...]
    support_union: tuple[int, ...]
    support_intersection: tuple[int, ...]
    labels: tuple[tuple[Hashable, str], ...]

    def as_dict(self) -> dict:
        """The JSON form: lists instead of tuples, ``labels`` as an object."""
        return {
            "facet": self.facet,
            "agree": self.agree,
            "union": [list(g) for g in self.union],
            "intersection": [list(g) for g in self.intersection],
            "support_union": list(self.support_union),
            "support_intersection": list(self.support_intersection),
            "labels": dict(self.labels),
        }


def _facet_lists(annotations: Mapping[Hashable, Sequence[Mapping]]) -> tuple[list, int]:
    names = sorted(annotations)
    counts = {len(annotations[name]) for name in names}
    if len(counts) > 1:
        raise AdjudicationError(
            "the annotators' FAMs have different facet counts: "
            + ", ".join(f"{name}: {len(annotations[name])}" for name in names)
        )
    return names, counts.pop() if counts else 0


def fam_diff(annotations: Mapping[Hashable, Sequence[Mapping]]) -> tuple[FacetDiff, ...]:
    """Facet by facet, where the annotators' FAMs of one reference agree and differ.

    Args:
        annotations: annotator -> their facets (one mapping per reference sentence).

    Returns:
        One :class:`FacetDiff` per facet (none for no annotator).

    Raises:
        AdjudicationError: the FAMs have different facet counts.
    """
    names, n_facets = _facet_lists(annotations)
    diffs = []
    for index in range(n_facets):
        facets = [annotations[name][index] for name in names]
        supports = [_support(_groups(facet)) for facet in facets]
        diffs.append(
            FacetDiff(
                facet=index,
                agree=facets_agree(facets),
                union=tuple(map(tuple, groups_union(facets))),
                intersection=tuple(map(tuple, groups_intersection(facets))),
                support_union=tuple(sorted(frozenset().union(*supports))),
                support_intersection=tuple(
                    sorted(frozenset.intersection(*supports)) if supports else ()
                ),
                labels=tuple(
                    (name, _label(facet)) for name, facet in zip(names, facets, strict=True)
                ),
            )
        )
    return tuple(diffs)


def _named(annotations: Mapping, names: Sequence, where: str) -> list:
    missing = [name for name in names if name not in annotations]
    if missing:
        raise AdjudicationError(
            f"{where}no annotation by {sorted(map(str, missing))} "
            f"(annotators: {sorted(map(str, annotations))})"
        )
    return [annotations[name] for name in sorted(names)]


def facet_combine(
    annotations: Mapping[Hashable, Mapping], method: str, annotators: Sequence[Hashable]
) -> dict:
    """Build one gold facet from the named annotators' facets (see the module's rules).

    Args:
        annotations: annotator -> their facet (the same facet index for all).
        method: ``take``, ``union``, ``intersection`` or ``agreed``.
        annotators: whose facets are combined (exactly one for ``take``).

    Returns:
        ``{"groups", "label", "provenance": {"method", "annotators"}}``.

    Raises:
        AdjudicationError: an unknown method, ``edited`` (nothing to combine), a name without
            an annotation, or ``agreed`` for facets that differ.
    """
    if method not in COMBINING:
        raise AdjudicationError(f"combine with one of {list(COMBINING)}, not {method!r}")
    provenance = provenance_validate({"method": method, "annotators": list(annotators)})
    facets = _named(annotations, provenance["annotators"], "")
    if method == AGREED and not facets_agree(facets):
        raise AdjudicationError(
            f"{provenance['annotators']} do not agree on this facet: take, union or edit it"
        )
    if method in (TAKE, AGREED):
        groups = _as_lists(_groups(facets[0]))
        label = _label(facets[0])
    else:
        groups = groups_union(facets) if method == UNION else groups_intersection(facets)
        label = _combined_label(method, groups, facets)
    return {"groups": groups, "label": label, "provenance": provenance}


def facet_decided(facet: Mapping) -> bool:
    """Whether a facet is decided: it has a support group, or a no-support or noise label.

    Args:
        facet: a facet.

    Returns:
        False for a facet without groups left ``supported``.
    """
    return bool(_groups(facet)) or _label(facet) != SUPPORTED


def facet_provenance_check(
    facet: Mapping, annotations: Mapping[Hashable, Mapping], *, where: str = ""
) -> dict | None:
    """Check that a gold facet is what its provenance says; return the canonical provenance.

    An ``edited`` facet is not checked (its annotators, if given, must still exist). The
    others must equal :func:`facet_combine` of the named annotators: the same set of groups
    (any order) and the same label. A facet without provenance is ``edited`` when it is
    decided and has none (None: not decided yet) when it is not.

    Args:
        facet: the gold facet with its ``provenance`` (None or missing: see above).
        annotations: annotator -> their facet of the same index.
        where: a prefix for messages, such as ``"facet 2: "``.

    Returns:
        The canonical provenance (see :func:`provenance_validate`), or None.

    Raises:
        AdjudicationError: an invalid provenance, an unknown annotator, or a facet that is not
            what its provenance says (with the expected groups and label).
    """
    raw = facet.get("provenance")
    if raw is None and not facet_decided(facet):
        return None
    provenance = provenance_validate(
        {"method": EDITED, "annotators": []} if raw is None else raw, where=where
    )
    _named(annotations, provenance["annotators"], where)
    if provenance["method"] == EDITED:
        return provenance
    try:
        expected = facet_combine(annotations, provenance["method"], provenance["annotators"])
    except AdjudicationError as error:
        raise AdjudicationError(f"{where}{error}") from error
    given = (set(_groups(facet)), _label(facet))
    if given != (set(map(frozenset, expected["groups"])), expected["label"]):
        raise AdjudicationError(
            f"{where}the provenance says {provenance['method']} of "
            f"{', '.join(provenance['annotators'])}, which gives groups {expected['groups']} "
            f"labelled {expected['label']}, but the facet has groups "
            f"{_as_lists(_groups(facet))} labelled {_label(facet)}; mark it edited"
        )
    return provenance


def fam_document_agreement(annotations: Mapping[Hashable, Sequence[Mapping]]) -> float | None:
    """A document's agreement: the mean Jaccard index of support sentences over facet pairs.

    One unit is one facet for one pair of annotators, scored by the Jaccard index of the two
    supports (the union of each one's groups). A facet neither of the pair supports is left out
    (as ``fam_jaccard``'s default ``both_empty="skip"`` does); the value is the mean of the
    units.

    Args:
        annotations: annotator -> their facets.

    Returns:
        The mean in [0, 1], or None with fewer than two annotators or no unit left.

    Raises:
        AdjudicationError: the FAMs have different facet counts.
    """
    names, n_facets = _facet_lists(annotations)
    units = []
    for a, b in combinations(names, 2):
        for index in range(n_facets):
            value = jaccard(
                _support(_groups(annotations[a][index])), _support(_groups(annotations[b][index]))
            )
            if value is not None:
                units.append(value)
    return sum(units) / len(units) if units else None


# Errors: two errors are "the same" when they mark the same place with the same type and label.
ERROR_KEY = ("side", "start", "end", "words", "type", "label")


def error_key(error: Mapping) -> tuple:
    """What makes two marked errors the same error.

    Args:
        error: a stored error.

    Returns:
        ``(side, start, end, words, type, label)``; the reason, severity and provenance are
        not part of it.
    """
    return tuple(error.get(field) for field in ERROR_KEY)


def _bare(error: Mapping) -> dict:
    return {key: value for key, value in error.items() if key != "provenance"}


@dataclass(frozen=True)
class ErrorDiff:
    """One distinct error among the compared annotators' errors of one output.

    Attributes:
        error: the error as the first annotator (by name) who marked it stored it, without
            provenance.
        annotators: who marked it.
        agree: every compared annotator marked it.
    """

    error: Mapping
    annotators: tuple[Hashable, ...]
    agree: bool

    def as_dict(self) -> dict:
        """The JSON form."""
        return {"error": dict(self.error), "annotators": list(self.annotators), "agree": self.agree}


def errors_diff(annotations: Mapping[Hashable, Sequence[Mapping]]) -> tuple[ErrorDiff, ...]:
    """Which annotators marked each distinct error of one output.

    Args:
        annotations: annotator -> their errors of the output (empty when clean or unmarked).

    Returns:
        One :class:`ErrorDiff` per distinct error, in order of first appearance (annotators by
        name, each one's errors in their order).
    """
    names = sorted(annotations)
    found: dict[tuple, list] = {}
    for name in names:
        for error in annotations[name]:
            entry = found.setdefault(error_key(error), [_bare(error), []])
            if name not in entry[1]:
                entry[1].append(name)
    return tuple(
        ErrorDiff(error=error, annotators=tuple(who), agree=len(who) == len(names))
        for error, who in found.values()
    )


def errors_combine(
    annotations: Mapping[Hashable, Mapping], method: str, annotators: Sequence[Hashable]
) -> dict:
    """Build an output's gold errors from the named annotators' errors.

    ``take`` copies one annotator's errors and mark; ``union`` keeps every distinct error any
    named annotator marked, ``intersection`` those all of them marked, ``agreed`` the errors
    when all of them marked the same ones. Each gold error's provenance names the method and
    those of the named annotators who marked it. The "no errors" mark is set when the result
    has no error and every named annotator marked the output as clean.

    Args:
        annotations: annotator -> ``{"errors": [...], "no_errors": bool}``.
        method: ``take``, ``union``, ``intersection`` or ``agreed``.
        annotators: whose errors are combined.

    Returns:
        ``{"errors": [error with "provenance"], "no_errors": bool}``.

    Raises:
        AdjudicationError: an unknown method, a name without an annotation, or ``agreed``
            when the named annotators' errors differ.
    """
    if method not in COMBINING:
        raise AdjudicationError(f"combine with one of {list(COMBINING)}, not {method!r}")
    names = provenance_validate({"method": method, "annotators": list(annotators)})["annotators"]
    chosen = dict(zip(names, _named(annotations, names, ""), strict=True))
    diffs = errors_diff({name: chosen[name].get("errors", []) for name in names})
    if method == AGREED and not all(diff.agree for diff in diffs):
        raise AdjudicationError(f"{names} did not mark the same errors: take, union or edit them")
    kept = [d for d in diffs if d.agree] if method == INTERSECTION else list(diffs)
    errors = [
        {**dict(d.error), "provenance": {"method": method, "annotators": list(d.annotators)}}
        for d in kept
    ]
    clean = not errors and all(chosen[name].get("no_errors", False) for name in names)
    return {"errors": errors, "no_errors": clean}


def error_provenance_check(
    error: Mapping, annotations: Mapping[Hashable, Sequence[Mapping]], *, where: str = ""
) -> dict:
    """Check that every annotator a gold error's provenance names marked that error.

    Args:
        error: the gold error with its ``provenance`` (None or missing: ``edited``).
        annotations: annotator -> their errors of the same output.
        where: a prefix for messages, such as ``"error 3: "``.

    Returns:
        The canonical provenance.

    Raises:
        AdjudicationError: an invalid provenance, an unknown annotator, or a named annotator
            who did not mark this error (same place, type and label).
    """
    raw = error.get("provenance")
    provenance = provenance_validate(
        {"method": EDITED, "annotators": []} if raw is None else raw, where=where
    )
    _named(annotations, provenance["annotators"], where)
    if provenance["method"] == EDITED:
        return provenance
    key = error_key(error)
    missing = [
        name
        for name in provenance["annotators"]
        if all(error_key(other) != key for other in annotations[name])
    ]
    if missing:
        raise AdjudicationError(
            f"{where}the provenance says {provenance['method']} of "
            f"{', '.join(provenance['annotators'])}, but {', '.join(missing)} did not mark "
            "this error (same place, type and label); mark it edited"
        )
    return provenance
