"""PolyTope documents: grouping files by story, the canonical article and the reference."""

from __future__ import annotations

import re
from collections import Counter

from annotation.imports.bundle import DocumentRecord, Location, ReferenceRecord
from scoring.metrics.align import normalize_space

from .records import _Doc, _Log, _TrialFile
from .release import ARTICLE_PRIORITY, DOCUMENT_FOLDER, SAME_STORY_OVERLAP
from .text import _key, _overlap, _pieces, _words

_POUND = re.compile(r"(?<!\S)# (\d[\d,.]*\w*)")
_PTB = {"-lrb-": "(", "-rrb-": ")", "-lsb-": "[", "-rsb-": "]", "-lcb-": "{", "-rcb-": "}"}
_PTB.update({"``": '"', "''": '"'})


def _group_by_story(
    folders: dict[str, dict[int, _TrialFile]], log: _Log
) -> dict[str, dict[str, _TrialFile]]:
    """Story id -> folder -> file; the document folder defines which stories exist."""
    stories: dict[str, dict[str, _TrialFile]] = {}
    for file in folders.get(DOCUMENT_FOLDER, {}).values():
        if file.story in stories:
            first = stories[file.story][DOCUMENT_FOLDER].label
            log.issue(file.label, file.hash_line, "hash", f"story id also in {first}")
            continue
        stories[file.story] = {DOCUMENT_FOLDER: file}
    for folder, files in folders.items():
        if folder == DOCUMENT_FOLDER:
            continue
        for file in files.values():
            _attach(file, stories, log)
    return stories


def _attach(file: _TrialFile, stories: dict[str, dict[str, _TrialFile]], log: _Log) -> None:
    group = stories.get(file.story)
    if group is None:
        message = f"story id {file.story} is not among the documents (the {DOCUMENT_FOLDER}/ files)"
        log.issue(file.label, file.hash_line, "hash", message)
    elif file.folder in group:
        log.issue(
            file.label, file.hash_line, "hash", f"story id also in {group[file.folder].label}"
        )
    else:
        group[file.folder] = file


def _article(file: _TrialFile) -> tuple[str, ...]:
    return tuple(normalize_space(text) for _, text in file.sections["article"].lines)


def _canonical_article(group: dict[str, _TrialFile]) -> _TrialFile:
    """The most common one-sentence-per-line copy of the article (ties: ARTICLE_PRIORITY)."""
    ordered = sorted(group.values(), key=lambda f: _priority(f.folder))
    split = [file for file in ordered if len(file.sections["article"].lines) > 1] or ordered
    votes = Counter(_article(file) for file in split)
    return max(split, key=lambda file: votes[_article(file)])  # max keeps the first on ties


def _priority(folder: str) -> int:
    return ARTICLE_PRIORITY.index(folder) if folder in ARTICLE_PRIORITY else len(ARTICLE_PRIORITY)


def _compare_articles(canonical: _TrialFile, group: dict[str, _TrialFile], log: _Log) -> list[str]:
    """Check every other copy of the article; return the labels of retokenised copies."""
    text = " ".join(_article(canonical))
    words, first = _words(text), _key(text)
    variants = []
    for file in group.values():
        if file is canonical:
            continue
        other = " ".join(_article(file))
        second = _key(other)
        line = file.sections["article"].line + 1
        if first == second:
            continue
        if first.startswith(second) or second.startswith(first):
            size = "shorter" if len(second) < len(first) else "longer"
            log.note(file.label, line, "article", f"article is {size} than {canonical.label}")
        elif (score := _overlap(words, _words(other))) >= SAME_STORY_OVERLAP:
            variants.append(file.label)
        else:
            message = (
                f"article conflicts with {canonical.label} for story {canonical.story} "
                f"(word overlap {score:.2f} < {SAME_STORY_OVERLAP})"
            )
            log.issue(file.label, line, "article", message)
    return variants


def _clean_reference(sentence: str, article: str) -> str:
    """Undo PTB escapes and restore "£" that See et al.'s data wrote as "#" before a number.

    A "#" is only turned back into "£" when the article has "£" before the same number.
    """
    text = " ".join(_PTB.get(token, token) for token in sentence.split())

    def pound(match: re.Match) -> str:
        restored = f"£ {match.group(1)}"
        return restored if restored in article else match.group(0)

    return _POUND.sub(pound, text)


def _reference(file: _TrialFile, article: str) -> ReferenceRecord:
    section = file.sections["reference"]
    sentences = tuple(_clean_reference(text, article) for _, text in _pieces(section.lines))
    location = Location(file.label, section.lines[0][0], "reference")
    return ReferenceRecord(sentences=sentences, label="highlights", location=location)


def _compare_references(
    canonical: ReferenceRecord, group: dict[str, _TrialFile], article: str, log: _Log
) -> None:
    """Note each other copy of the reference whose words differ from the canonical one."""
    first = _key(" ".join(canonical.sentences))
    for folder, file in group.items():
        if folder == DOCUMENT_FOLDER:
            continue
        section = file.sections["reference"]
        second = _key(" ".join(_clean_reference(t, article) for _, t in _pieces(section.lines)))
        if second == first:
            continue
        if second.startswith(first):
            what = "has extra text after the reference"
        elif first.startswith(second):
            what = "lacks the end of the reference"
        else:
            what = "differs from the reference"
        message = f"{what} in {canonical.location.file}; {canonical.location.file} is used"
        log.note(file.label, section.line + 1, "reference", message)


def _document(group: dict[str, _TrialFile], log: _Log) -> tuple[_Doc, list[str]]:
    home = group[DOCUMENT_FOLDER]
    canonical = _canonical_article(group)
    variants = _compare_articles(canonical, group, log)
    sentences = _article(canonical)
    article = " ".join(sentences)
    reference = _reference(home, article)
    _compare_references(reference, group, article, log)
    meta: dict = {
        "trial": home.trial,
        "indices": {folder: file.index for folder, file in sorted(group.items())},
        "article_source": canonical.label,
        "reference_source": home.label,
    }
    trials = {folder: file.trial for folder, file in sorted(group.items())}
    if len(set(trials.values())) > 1:
        meta["trials"] = trials
        log.note(home.label, home.hash_line, "hash", f"story has different trials: {trials}")
    record = DocumentRecord(
        external_id=home.story,
        sentences=sentences,
        references=(reference,),
        meta=meta,
        location=Location(canonical.label, canonical.hash_line, "hash"),
    )
    first_line = canonical.sections["article"].lines[0][0]
    return _Doc(home.story, home.trial, record, _words(article), first_line), variants


def _documents(
    stories: dict[str, dict[str, _TrialFile]], expected: int | None, log: _Log
) -> list[_Doc]:
    docs: list[_Doc] = []
    variants: dict[str, list[str]] = {}
    for group in stories.values():
        doc, retokenised = _document(group, log)
        docs.append(doc)
        for label in retokenised:
            variants.setdefault(label.split("/")[0], []).append(label)
    for folder, labels in sorted(variants.items()):
        message = (
            f"{len(labels)} article copies differ from the canonical text only in tokenisation "
            f"or preprocessing (word overlap >= {SAME_STORY_OVERLAP}); the canonical text is used"
        )
        log.note(f"{folder}/", None, "article", message)
    if expected is not None and len(docs) != expected:
        message = f"expected {expected} documents, found {len(docs)}"
        log.issue(f"{DOCUMENT_FOLDER}/", None, "documents", message)
    return sorted(docs, key=lambda doc: doc.trial)
