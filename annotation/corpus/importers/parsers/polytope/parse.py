"""Entry point of the PolyTope parser: :func:`parse_polytope_release`."""

from __future__ import annotations

from pathlib import Path

from annotation.imports.bundle import ImportBundle, ImportValidationError, Issue, Location

from .documents import _documents, _group_by_story
from .loose import _bart_items, _loose_outputs, _textrank_items
from .outputs import _lead3, _section_outputs
from .records import _Log, _TrialFile
from .release import (
    BART_FILE,
    DATASET,
    DOCUMENT_FOLDER,
    EXPECTED_DOCUMENTS,
    SECTION_SYSTEMS,
    SYSTEMS,
    TEXTRANK_FOLDER,
)
from .trials import _read_folder


def _outputs_root(path: Path) -> Path:
    """Accept the release folder (holding ``outputs/``) or the ``outputs/`` folder itself."""
    return path / "outputs" if (path / "outputs").is_dir() else path


def parse_polytope_release(
    path: Path, *, expected_documents: int | None = EXPECTED_DOCUMENTS
) -> ImportBundle:
    """Parse the PolyTope release into one dataset, ten systems and their outputs.

    Documents are keyed on the story id (``hash:``), never on ``index:``, which differs between
    systems. The canonical article is the majority one-sentence-per-line copy; the reference is
    bottom_up's (see ``DOCUMENT_FOLDER``). TextRank files and BART lines carry no story id: they
    are placed by trial number (file name / line number) after checking that their words come
    from that trial's article, else by content. Extractive outputs are aligned to document
    sentences with :func:`scoring.metrics.align.align_sentences`.

    Args:
        path: the release folder or its ``outputs/`` folder.
        expected_documents: how many documents the release must hold (None: no check).

    Returns:
        An :class:`ImportBundle` with the dataset, documents, systems, outputs and a report of
        non-fatal findings (low-confidence mappings, duplicated or misplaced outputs, ...).

    Raises:
        ImportValidationError: every structural problem found (missing folder or file, missing
            or unknown story id, malformed file, conflicting articles, wrong document count),
            each naming the file, the line and the field.
    """
    root = _outputs_root(Path(path))
    log = _Log()
    if not root.is_dir():
        raise ImportValidationError([Issue(Location(str(path), None, "folder"), "not a folder")])
    folders = {folder: _read_folder(root, folder, log) for folder in SECTION_SYSTEMS}
    stories = _group_by_story(folders, log)
    _check_trial_coverage(folders, stories, log)
    docs = _documents(stories, expected_documents, log)
    by_story = {doc.story: doc for doc in docs}
    by_trial = {doc.trial: doc for doc in docs}
    outputs = {"lead-3": [_lead3(doc) for doc in docs]}
    outputs.update(_section_outputs({s: stories[s] for s in by_story}, by_story, log))
    textrank = _textrank_items(root, by_trial, log)
    outputs["textrank"] = _loose_outputs("textrank", f"{TEXTRANK_FOLDER}/", textrank, by_trial, log)
    bart = _bart_items(root, len(docs), log)
    outputs["bart"] = _loose_outputs("bart", BART_FILE, bart, by_trial, log)
    if log.issues:
        raise ImportValidationError(log.issues)
    ordered = [
        record
        for system in SYSTEMS
        for record in sorted(
            outputs.get(system.slug, []), key=lambda o: by_story[o.document_id].trial
        )
    ]
    return ImportBundle(
        dataset=DATASET,
        documents=[doc.record for doc in docs],
        systems=list(SYSTEMS),
        outputs=ordered,
        report=log.report,
    )


def _check_trial_coverage(
    folders: dict[str, dict[int, _TrialFile]],
    stories: dict[str, dict[str, _TrialFile]],
    log: _Log,
) -> None:
    """Every story of the document folder needs a file in each other per-trial folder."""
    for story, group in stories.items():
        home = group[DOCUMENT_FOLDER]
        for folder in SECTION_SYSTEMS:
            failed = (folder, home.trial) in log.failed
            if folder not in group and folders.get(folder) and not failed:
                message = f"no {folder}/ file has story id {story} (trial {home.trial})"
                log.issue(f"{folder}/", None, "hash", message)
