"""The Loupe release layout: its member files, format version and conventions (no Django).

Shared by the exporter (``scoring.releases``) and the importer (:mod:`.parse`), so both name
the same files. ``docs/formats.md`` ("Loupe releases") documents every member's schema.
"""

from __future__ import annotations

FORMAT = "loupe-release"
FORMAT_VERSION = 1

MANIFEST = "manifest.json"
DATASHEET = "DATASHEET.md"
DOCUMENTS = "documents.jsonl"
SYSTEMS = "systems.jsonl"
OUTPUTS = "outputs.jsonl"
ANNOTATION_SETS = "annotation_sets.jsonl"
FAMS = "fams.jsonl"
SPANS = "polytope.jsonl"
SCORES = "scores.jsonl"
AGREEMENT = "agreement.json"
FAR_FAMS = "far/FAMs.json"
FAR_IDS = "far/idx2id.json"

# What an import reads; the rest (scores, agreement, workbooks, the FAR files) is derived.
REQUIRED = (DOCUMENTS, SYSTEMS, OUTPUTS, ANNOTATION_SETS, FAMS, SPANS)

# Every member's modification time in the archives (zip's earliest date), so bytes repeat.
MEMBER_DATE = (1980, 1, 1, 0, 0, 0)
MEMBER_EPOCH = 315532800  # 1980-01-01T00:00:00Z as a POSIX time (tar headers)


def far_labels_name(system: str) -> str:
    """The FAR-compatible file of one extractive system's extracted indices.

    Args:
        system: the system's slug.

    Returns:
        ``far/idx2labels_<system>.json``.
    """
    return f"far/idx2labels_{system}.json"


def workbook_name(annotation_set: str, system: str) -> str:
    """The official-layout PolyTope workbook of one span set's annotations of one system.

    Args:
        annotation_set: the span set's slug.
        system: the system's slug.

    Returns:
        ``workbooks/<set>/<system>.xlsx``.
    """
    return f"workbooks/{annotation_set}/{system}.xlsx"


def annotator_set_slug(annotation_set: str, annotator: str) -> str:
    """The set an imported release puts one pseudonymous annotator's rows of a set in.

    A Loupe user cannot be recreated from a pseudonym, so each annotator's FAMs (or spans) of a
    set come back as a read-only set of their own.

    Args:
        annotation_set: the released set's slug.
        annotator: the pseudonym (``annotator-1``, ...).

    Returns:
        ``<set>-<annotator>``.
    """
    return f"{annotation_set}-{annotator}"


def archive_root(dataset: str, version: int) -> str:
    """The folder every member of a release archive sits in.

    Args:
        dataset: the dataset's slug.
        version: the release's version.

    Returns:
        ``<dataset>-v<version>``.
    """
    return f"{dataset}-v{version}"
