"""Entry point of the FAR parser: :func:`parse_far_release`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from annotation.imports.bundle import (
    CATEGORY_LOW,
    AnnotationSetRecord,
    ImportBundle,
    ImportValidationError,
    Issue,
    Location,
)

from .checks import _check_fam_against_dump, _check_partition, _check_story_ids
from .context import _Context
from .documents import _document_record, _fam_record, _split
from .dump import _read_dumps, _Sample
from .outputs import _system_outputs, _systems
from .pickles import _check_fams_shape, _Fams
from .release import DATASET, DUMP_FILES, FAMS_FILE


def _build(ctx: _Context, fams: _Fams, samples: Mapping[int, _Sample]) -> ImportBundle:
    order = [idx for idx in fams.all_idx if idx in samples]
    docs = {idx: _split(ctx, samples[idx]) for idx in order}
    fam_records = []
    for idx, groups in fams.groups.items():
        if idx in docs and samples[idx].story_id is not None:
            _check_fam_against_dump(ctx, samples[idx], groups)
            fam_records.append(_fam_record(ctx, docs[idx], groups))
    outputs = _system_outputs(ctx, docs, fams.categories)
    unchecked = sum(1 for doc in docs.values() if not doc.checked)
    ctx.note(
        DUMP_FILES[CATEGORY_LOW],
        f"sentence split agrees with the released support sentences on "
        f"{sum(1 for d in docs.values() if d.checked and not d.mismatches)} of "
        f"{len(docs) - unchecked} documents; {unchecked} documents have no released sentence "
        "text to check against",
    )
    annotation_set = AnnotationSetRecord(
        slug="released",
        name="FAR release FAMs",
        kind="released",
        read_only=True,
        fams=tuple(fam_records),
    )
    return ImportBundle(
        dataset=DATASET,
        documents=[_document_record(docs[i], fams.categories.get(i)) for i in order],
        systems=_systems(),
        outputs=outputs,
        annotation_sets=[annotation_set],
    )


def parse_far_release(path: Path) -> ImportBundle:
    """Parse the FAR release folder into an :class:`ImportBundle`.

    Args:
        path: The release root, holding ``data/`` and ``output/`` as published.

    Returns:
        One dataset with the 150 annotated documents (category low/noise/high, one reference whose
        sentences are the facets, ``meta`` with ``sample_idx``, ``split_agrees`` — True/False when
        the released support sentences could check the split, None when the document has none
        and nothing contradicts it — and ``split_mismatches``), the six extractive systems with
        their outputs (indices exactly as released; Lead-3 computed), and one read-only
        annotation set with the released FAM of each low-abstraction document. Non-fatal
        findings (split disagreements, repeated indices, coverage) are in ``bundle.report``.

    Raises:
        ImportValidationError: With every issue found: a missing or unreadable file, a pickle
            that is unsafe or of the wrong shape, a malformed dump entry (file and line), a story
            id that is not the SHA1 of its URL, the dump and the pickles disagreeing, or a FAM
            index outside the split document.
    """
    ctx = _Context(Path(path))
    if not ctx.root.is_dir():
        raise ImportValidationError([Issue(Location(str(path)), "release folder not found")])
    samples = _read_dumps(ctx)
    data = ctx.load_pickle(FAMS_FILE)
    fams = _check_fams_shape(ctx, data) if data is not None else None
    _check_story_ids(ctx, samples)
    bundle = None
    if fams is not None:
        _check_partition(ctx, fams, samples)
        bundle = _build(ctx, fams, samples)
    if ctx.issues or bundle is None:
        raise ImportValidationError(ctx.issues)
    bundle.report.extend(ctx.report)
    return bundle
