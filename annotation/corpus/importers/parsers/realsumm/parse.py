"""Entry point of the REALSumm parser: :func:`parse_realsumm_release`."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

from annotation.imports.bundle import (
    KIND_ABSTRACTIVE,
    KIND_EXTRACTIVE,
    DocumentRecord,
    ImportBundle,
    ImportValidationError,
    Issue,
    JudgmentRecord,
    JudgmentStudyRecord,
    Location,
    OutputRecord,
    ReferenceRecord,
    ReleasedScoreRecord,
    ReleasedScoresRecord,
    SystemRecord,
)

from ...release_files import ReleaseFiles
from .pickles import ScoresDict, Summary, read_scores_dict
from .release import (
    DATASET,
    EXPECTED_DOCUMENTS,
    LITEPYRAMID,
    OUTPUTS_DIR,
    PICKLES,
    RELEASED,
    RELEASED_KEYS,
    SELECTED_FILE,
    STUDY,
    SYSTEMS,
    TEXT_MISSING_NOTE,
    TRAINED_ON,
    ReleasedSystem,
)
from .texts import OutputTexts, plain, selected_documents, tagged_sentences


def external_id(line: int) -> str:
    """A document's id in Loupe: ``cnndm<test-set line>``, as the release's SCU list names it."""
    return f"cnndm{line}"


def _copies(
    files: ReleaseFiles, texts: OutputTexts, pickled: dict[str, ScoresDict]
) -> dict[ReleasedSystem, ReleasedSystem]:
    """Entries of one pickle identical (summaries and scores) to an entry of the other on every
    document: copy -> the genuine entry, told apart by which one its own text file matches."""
    found = {}
    abstractive = [s for s in SYSTEMS if s.kind == KIND_ABSTRACTIVE]
    extractive = [s for s in SYSTEMS if s.kind == KIND_EXTRACTIVE]
    for a, e in itertools.product(abstractive, extractive):
        left = pickled[KIND_ABSTRACTIVE].summaries[a.key]
        if left != pickled[KIND_EXTRACTIVE].summaries[e.key]:
            continue
        agree = {s: _agreement(texts, s, left) for s in (a, e)}
        genuine = [s for s, n in agree.items() if n == EXPECTED_DOCUMENTS]
        if len(genuine) != 1:
            files.issue(
                PICKLES[a.kind],
                f"{a.key} is identical to {PICKLES[e.kind]}'s {e.key} on every document, and "
                "their text files do not tell which one it belongs to "
                f"({a.text}: {agree[a]}, {e.text}: {agree[e]} documents agree)",
            )
            continue
        copy = e if genuine[0] is a else a
        found[copy] = genuine[0]
        files.note(
            PICKLES[copy.kind],
            f"{copy.key} is a copy of {PICKLES[genuine[0].kind]}'s {genuine[0].key}: the same "
            f"summaries and the same {len(left[0].scores)} scores on all {EXPECTED_DOCUMENTS} "
            f"documents; its text is {genuine[0].text}'s on {agree[genuine[0]]} documents and "
            f"{copy.text}'s on {agree[copy]}. So the release has no LitePyramid recall nor "
            f"released scores for {copy.name}: its outputs are read from {copy.text}, without "
            f"them, and the copy is not imported, so {genuine[0].name} is counted once.",
        )
    return found


def _agreement(texts: OutputTexts, system: ReleasedSystem, summaries: dict[int, Summary]) -> int:
    """On how many documents a pickle entry's summaries are its text file's (tags and white
    space ignored); 0 when the file cannot be read."""
    lines = texts.lines(system.text) or [""] * EXPECTED_DOCUMENTS
    return sum(plain(lines[d]) == plain(summaries[d].text) for d in range(EXPECTED_DOCUMENTS))


def _text_outputs(texts: OutputTexts, system: ReleasedSystem) -> dict[int, tuple[str, ...]]:
    """A system's outputs from its text file; an empty line is an issue."""
    files, name = texts.files, texts.name(system.text)
    lines = texts.lines(system.text) or []
    outputs = {}
    nested = 0
    for doc_id, line in enumerate(lines):
        sentences = tagged_sentences(line)
        if not sentences:
            files.issue(name, "an empty summary", line=doc_id + 1)
        outputs[doc_id] = sentences
        nested += line.lstrip().startswith("<t> <t>")
    if nested:
        files.note(
            name,
            f"{nested} of {len(lines)} lines wrap the summary in a second <t> ... </t>; the "
            "inner tags give the sentences",
        )
    return outputs


def _identical(summaries: dict[ReleasedSystem, dict[int, Summary]]) -> str:
    """The report's line on identical summaries of one document by two systems."""
    pairs: Counter = Counter()
    differ: Counter = Counter()
    largest = 0.0
    for (a, left), (b, right) in itertools.combinations(summaries.items(), 2):
        for doc_id, summary in left.items():
            other = right[doc_id]
            if summary.text != other.text:
                continue
            pairs[(a.slug, b.slug)] += 1
            gap = abs(summary.scores[LITEPYRAMID] - other.scores[LITEPYRAMID])
            largest = max(largest, gap)
            differ[LITEPYRAMID] += gap > 0
            for key in RELEASED_KEYS:
                differ[key] += summary.scores[key] != other.scores[key]
    if not pairs:
        return "no two systems have the same summary of a document"
    top = ", ".join(f"{a} = {b} on {n}" for (a, b), n in pairs.most_common(3))
    keys = ", ".join(f"{key} on {n}" for key, n in differ.items() if n and key != LITEPYRAMID)
    return (
        f"{sum(pairs.values())} times two systems have the same summary of a document "
        f"({len(pairs)} pairs of systems; most: {top}); each was judged and scored apart: their "
        f"LitePyramid recall differs on {differ[LITEPYRAMID]} of them (by up to {largest:.3g})"
        + (f", the released {keys}" if keys else "")
        + "; kept as released"
    )


def _unclosed(summaries: dict[ReleasedSystem, dict[int, Summary]]) -> list[str]:
    counts = {
        system: sum(s.text.count("<t>") != s.text.count("</t>") for s in by_doc.values())
        for system, by_doc in summaries.items()
    }
    return [
        f"{n} {system.name} summaries end without their last </t> (cut at a length limit); "
        "the last sentence is kept as written"
        for system, n in counts.items()
        if n
    ]


def _unused(root: Path, used: set[str]) -> str | None:
    files = sorted(
        str(path.relative_to(root / OUTPUTS_DIR))
        for path in (root / OUTPUTS_DIR).glob("*/*/out*.txt")
    )
    unused = [name for name in files if name not in used]
    if not unused:
        return None
    return (
        f"{len(unused)} output files are in no pickle, so they have no human score; not "
        f"imported: {', '.join(unused)}"
    )


def _report(files, genuine, agreeing: dict[ReleasedSystem, int], *, outputs, judged) -> None:
    """The import report: what was found and every quirk of the release (see the parser)."""
    kinds = Counter(s.kind for s in SYSTEMS)
    whole = sum(n == EXPECTED_DOCUMENTS for n in agreeing.values())
    partial = "".join(
        f"; {s.name}: {n} documents ({s.text})"
        for s, n in agreeing.items()
        if n < EXPECTED_DOCUMENTS
    )
    lines = [
        f"{EXPECTED_DOCUMENTS} documents without article text (named cnndm<test-set line> "
        f"after {SELECTED_FILE}), {len(SYSTEMS)} systems ({kinds[KIND_ABSTRACTIVE]} "
        f"abstractive, {kinds[KIND_EXTRACTIVE]} extractive), {outputs} outputs; LitePyramid "
        f"recall and the {len(RELEASED_KEYS)} released scores for {judged} of them "
        f"({len(genuine)} systems)",
        "the pickles' summaries equal their text files (tags and white space ignored) on all "
        f"{EXPECTED_DOCUMENTS} documents for {whole} of {len(agreeing)} systems{partial}",
        _identical(genuine),
        *_unclosed(genuine),
        *(
            f"{s.name} is extractive in the release's README and in ext.pkl, but its text "
            f"file is {s.text}"
            for s in SYSTEMS
            if s.kind == KIND_EXTRACTIVE and s.text.startswith("abs/")
        ),
    ]
    for line in lines:
        files.note("scores_dicts", line)
    unused = _unused(files.root, {s.text for s in SYSTEMS})
    if unused:
        files.note(OUTPUTS_DIR, unused)


def parse_realsumm_release(path: Path) -> ImportBundle:
    """Parse the REALSumm release folder: 100 documents without text, 25 systems, the
    LitePyramid recall as a judgment study and the authors' automatic scores as a reference.

    Both pickles are read with the restricted unpickler (``numpy.dtype`` and numpy's float
    scalar only) and checked whole (:func:`.pickles.read_scores_dict`). Each document is named
    by its CNN/DailyMail test-set line (``selected_documents.md``: id d is the d-th number;
    :func:`external_id`), has no text (``meta["text_missing"]``) and one reference, the
    pickles' ``ref_summ`` (the same in both), one sentence per ``<t> ... </t>``. Each pickle
    entry is a system (see :data:`.release.SYSTEMS`; its kind is its pickle's) whose outputs
    are its summaries; its ``litepyramid_recall`` values become the per-document study
    ``litepyramid-recall`` and its 14 other scores the released scores ``realsumm``. An entry
    identical to one of the other pickle on every document is a copy (the release's
    abstractive BART): the system's outputs then come from its own text file, with no
    judgment or released score, and the copy is not imported. The quirks found are in the
    report: the copy, the pickles against their text files, identical summaries of two
    systems, summaries cut before their last ``</t>``, output files in no pickle.

    Args:
        path: the release folder (holding ``scores_dicts/`` and
            ``selected_docs_for_human_eval/``).

    Returns:
        An :class:`ImportBundle` with the documents, systems, outputs, the judgment study,
        the released scores and the report.

    Raises:
        ImportValidationError: every problem found: a missing or unreadable file, a pickle
            that references a global other than numpy's dtype and scalar, a truncated,
            oversized or wrongly shaped pickle (each naming the file and the entry), the two
            pickles disagreeing on a reference, a copy whose owner the text files do not
            tell, or a malformed text file.
    """
    root = Path(path)
    if not root.is_dir():
        raise ImportValidationError([Issue(Location(str(path)), "release folder not found")])
    files = ReleaseFiles(root)
    lines = selected_documents(files)
    pickled: dict[str, ScoresDict] = {}
    for kind, name in PICKLES.items():
        keys = frozenset(s.key for s in SYSTEMS if s.kind == kind)
        checked = read_scores_dict(files, name, keys)
        if checked is not None:
            pickled[kind] = checked
    if files.issues:
        raise ImportValidationError(files.issues)
    references = pickled[KIND_ABSTRACTIVE].references
    for doc_id, text in pickled[KIND_EXTRACTIVE].references.items():
        if text != references[doc_id]:
            files.issue(
                PICKLES[KIND_EXTRACTIVE], "ref_summ differs from abs.pkl's", where=f"[{doc_id}]"
            )
    texts = OutputTexts(files)
    copies = _copies(files, texts, pickled)
    genuine: dict[ReleasedSystem, dict[int, Summary]] = {
        s: pickled[s.kind].summaries[s.key] for s in SYSTEMS if s not in copies
    }
    agreeing = {s: _agreement(texts, s, by_doc) for s, by_doc in genuine.items()}
    from_text = {copy: _text_outputs(texts, copy) for copy in copies}
    if files.issues:
        raise ImportValidationError(files.issues)
    ids = [external_id(line) for line in lines]
    documents = [
        DocumentRecord(
            ids[doc_id],
            (),
            (
                ReferenceRecord(
                    tagged_sentences(references[doc_id]),
                    label="reference",
                    location=Location(PICKLES[KIND_ABSTRACTIVE], None, f"[{doc_id}]['ref_summ']"),
                ),
            ),
            meta={
                "realsumm_doc_id": doc_id,
                "cnndm_test_line": lines[doc_id],
                "text_missing": True,
                "text_missing_note": TEXT_MISSING_NOTE,
            },
            location=Location(SELECTED_FILE),
        )
        for doc_id in range(EXPECTED_DOCUMENTS)
    ]
    outputs, judgments, released = [], [], []
    for system in SYSTEMS:
        if system in copies:
            name = texts.name(system.text)
            for doc_id, sentences in from_text[system].items():
                where = Location(name, doc_id + 1)
                outputs.append(OutputRecord(system.slug, ids[doc_id], sentences, location=where))
            continue
        for doc_id, summary in genuine[system].items():
            where = Location(
                PICKLES[system.kind], None, f"[{doc_id}]['system_summaries'][{system.key!r}]"
            )
            document = ids[doc_id]
            sentences = tagged_sentences(summary.text)
            outputs.append(OutputRecord(system.slug, document, sentences, location=where))
            judgments.append(
                JudgmentRecord(system.slug, document, summary.scores[LITEPYRAMID], where)
            )
            scores = {key: summary.scores[key] for key in RELEASED_KEYS}
            released.append(ReleasedScoreRecord(system.slug, document, scores, where))
    _report(files, genuine, agreeing, outputs=len(outputs), judged=len(judgments))
    return ImportBundle(
        dataset=DATASET,
        documents=documents,
        systems=[SystemRecord(s.slug, s.name, s.kind, s.description, TRAINED_ON) for s in SYSTEMS],
        outputs=outputs,
        report=files.report,
        judgment_studies=[JudgmentStudyRecord(STUDY, judgments=tuple(judgments))],
        released_scores=[ReleasedScoresRecord(RELEASED, tuple(released))],
    )
