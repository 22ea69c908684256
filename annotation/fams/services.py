"""FAM services (writes): save a FAM with optimistic versioning and a revision per change."""

from __future__ import annotations

from django.db import transaction

from config.exceptions import ApplicationError, ConflictError

from .models import AnnotationSetKind, Fam, FamRevision
from .signals import scored_fams_changed


def empty_facets(n_facets: int) -> list[dict]:
    """The facets of a FAM nobody has worked on yet.

    Args:
        n_facets: how many reference sentences (facets) there are.

    Returns:
        One ``{"groups": [], "label": "supported", "note": ""}`` per facet.
    """
    return [{"groups": [], "label": "supported", "note": ""} for _ in range(n_facets)]


def _normalized(facets: list[dict], *, gold: bool) -> list[dict]:
    # A gold facet's "provenance" (which annotators it came from) is kept and versioned with it;
    # any other set's facets never carry one (an annotator's client cannot forge it).
    return [
        {
            "groups": [sorted(group) for group in facet.get("groups", [])],
            "label": facet.get("label", "supported"),
            "note": facet.get("note", ""),
            **({"provenance": facet["provenance"]} if gold and "provenance" in facet else {}),
        }
        for facet in facets
    ]


def _provenance_text(provenance: object) -> str:
    if not provenance:
        return "none"
    if not isinstance(provenance, dict):  # refused by Fam.clean, which runs after this
        return repr(provenance)
    names = ", ".join(provenance.get("annotators", []))
    return f"{provenance.get('method')}" + (f" ({names})" if names else "")


def fam_changes(
    old: list[dict], new: list[dict], old_category: str, new_category: str
) -> list[str]:
    """Describe what changed between two FAM states, one short line per change.

    Args:
        old: the facets before.
        new: the facets after.
        old_category: the category override before.
        new_category: the category override after.

    Returns:
        Lines such as ``"facet 2: added group [3, 4]"``; empty when nothing changed.
    """
    changes = []
    for index, (before, after) in enumerate(zip(old, new, strict=True)):
        before_groups = [tuple(g) for g in before["groups"]]
        after_groups = [tuple(g) for g in after["groups"]]
        changes += [
            f"facet {index}: removed group {list(g)}"
            for g in before_groups
            if g not in after_groups
        ]
        changes += [
            f"facet {index}: added group {list(g)}" for g in after_groups if g not in before_groups
        ]
        if before["label"] != after["label"]:
            changes.append(f"facet {index}: label {before['label']} -> {after['label']}")
        if before["note"] != after["note"]:
            changes.append(f"facet {index}: note changed")
        if before.get("provenance") != after.get("provenance"):
            changes.append(
                f"facet {index}: provenance {_provenance_text(before.get('provenance'))} -> "
                f"{_provenance_text(after.get('provenance'))}"
            )
    if old_category != new_category:
        changes.append(
            f"document category: {old_category or 'derived'} -> {new_category or 'derived'}"
        )
    return changes


@transaction.atomic
def fam_save(
    *,
    fam: Fam,
    facets: list[dict],
    base_version: int,
    user,
    category_override: str | None = None,
    announce: bool = True,
) -> Fam:
    """Save a new state of a FAM unless it was changed since ``base_version``.

    Never overwrites newer work: a stale ``base_version`` raises :class:`ConflictError` (HTTP
    409) carrying the server's state, so the client can show both and let the person choose.
    Every accepted change bumps ``version`` and stores a :class:`FamRevision`. Only a gold
    set's facets keep a ``provenance``; it is dropped from any other set's.

    Args:
        fam: the FAM to save.
        facets: the new facets (one entry per reference sentence).
        base_version: the version the client's edit started from.
        user: who saves.
        category_override: the annotator's document category (``""`` = derived; ``None`` =
            unchanged).
        announce: send ``scored_fams_changed`` when a gold FAM changed (False: the caller
            announces it when the change counts for scoring, as adjudication does on "done").

    Returns:
        The saved FAM (unchanged, same version, when nothing differs).

    Raises:
        ConflictError: ``base_version`` is not the current version.
        ApplicationError: the FAM belongs to a read-only annotation set.
        django.core.exceptions.ValidationError: invalid facets (named facet and group).
    """
    # Lock only the FAM row (of="self"): joined rows would serialise a whole campaign's saves.
    fam = (
        Fam.objects.select_for_update(of=("self",))
        .select_related("annotation_set", "document", "reference")
        .get(pk=fam.pk)
    )
    if fam.annotation_set.read_only:
        raise ApplicationError("This annotation set is read-only.")
    gold = fam.annotation_set.kind == AnnotationSetKind.GOLD
    new_facets = _normalized(facets, gold=gold)
    new_category = fam.category_override if category_override is None else category_override
    if base_version != fam.version and (
        new_facets == _normalized(fam.facets, gold=gold) and new_category == fam.category_override
    ):
        # A retry of a save whose response was lost: the server already holds this state.
        return fam
    if base_version != fam.version:
        latest = fam.revisions.select_related("author").first()
        raise ConflictError(
            f"This FAM was saved elsewhere (version {fam.version}) after your copy "
            f"(version {base_version}). Choose which state to keep.",
            extra={
                "server": {
                    "facets": fam.facets,
                    "category": fam.category_override,
                    "version": fam.version,
                    "updated_at": fam.updated_at.isoformat(),
                    "updated_by": latest.author.username if latest and latest.author else None,
                }
            },
        )
    changes = (
        fam_changes(
            _normalized(fam.facets, gold=gold), new_facets, fam.category_override, new_category
        )
        if len(fam.facets) == len(new_facets)
        else ["facets replaced"]
    )
    if not changes:
        return fam
    fam.facets = new_facets
    fam.category_override = new_category
    fam.version += 1
    # Foreign keys and unique constraints are enforced by the database inside this locked
    # transaction; re-checking them here costs ten queries per save.
    fam.full_clean(
        exclude=["annotation_set", "document", "reference", "annotator"], validate_constraints=False
    )
    fam.save()
    revision = FamRevision(
        fam=fam,
        version=fam.version,
        facets=new_facets,
        category_override=new_category,
        changes=changes,
        author=user,
    )
    revision.full_clean(exclude=["fam", "author"], validate_constraints=False)
    revision.save()
    if announce and fam.annotation_set.kind == AnnotationSetKind.GOLD and fam.annotator_id is None:
        # FAR is scored against gold FAMs: scoring queues a rescoring (one job covers a burst).
        scored_fams_changed.send(sender=Fam, dataset=fam.document.dataset, user=user)
    return fam
