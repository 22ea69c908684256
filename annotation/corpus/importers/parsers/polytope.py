"""Parser for the PolyTope release (Huang et al., EMNLP 2020): 150 CNN/DM stories, ten systems."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from scoring.metrics.align import (
    LOW_CONFIDENCE_THRESHOLD,
    align_sentences,
    normalize_space,
    split_on_document_sentences,
)

from ..bundle import (
    KIND_ABSTRACTIVE,
    KIND_EXTRACTIVE,
    METHOD_EXACT,
    METHOD_LEAD,
    METHOD_TFIDF,
    DatasetRecord,
    DocumentRecord,
    ImportBundle,
    ImportValidationError,
    Issue,
    Location,
    OutputRecord,
    ReferenceRecord,
    ReportLine,
    SystemRecord,
)
from ..readers import read_lines
from ..splitting import split_sentences

EXPECTED_DOCUMENTS = 150

DATASET = DatasetRecord(
    slug="cnndm-polytope",
    name="CNN/DailyMail (PolyTope release)",
    description=(
        "150 non-anonymized CNN/DailyMail test stories with the outputs of the ten systems "
        "evaluated in Huang et al. (EMNLP 2020), 'What Have We Achieved on Text Summarization?'."
    ),
    source="hddbang/PolyTope commit 6bcbe2b27062b35cc002cb8d13e7c6ce5718984d",
    license=(
        "research use, see release (the repository has no license file; the articles are "
        "CNN/DailyMail content)"
    ),
)

_CNNDM = "CNN/DailyMail"
SYSTEMS = (
    SystemRecord("lead-3", "Lead-3", KIND_EXTRACTIVE, "The first three sentences of the article."),
    SystemRecord("textrank", "TextRank", KIND_EXTRACTIVE, "Graph-based sentence ranking."),
    SystemRecord("summarunner", "SummaRuNNer", KIND_EXTRACTIVE, "RNN sentence classifier.", _CNNDM),
    SystemRecord("bertsumext", "BertSumExt", KIND_EXTRACTIVE, "BERT sentence scorer.", _CNNDM),
    SystemRecord("seq2seq", "Seq2Seq", KIND_ABSTRACTIVE, "Seq2seq with attention.", _CNNDM),
    SystemRecord("pointer-generator", "Pointer-Generator", KIND_ABSTRACTIVE, "", _CNNDM),
    SystemRecord(
        "pointer-generator-coverage", "Pointer-Generator+Coverage", KIND_ABSTRACTIVE, "", _CNNDM
    ),
    SystemRecord("bottom-up", "Bottom-Up", KIND_ABSTRACTIVE, "Content selection + copy.", _CNNDM),
    SystemRecord(
        "bertsumextabs", "BertSumExtAbs", KIND_ABSTRACTIVE, "BERT encoder-decoder.", _CNNDM
    ),
    SystemRecord("bart", "BART", KIND_ABSTRACTIVE, "Pre-trained seq2seq.", _CNNDM),
)
_SYSTEM = {system.slug: system for system in SYSTEMS}

# Folders with one file per trial (``<trial>_.txt``): section header -> system slug.
SECTION_SYSTEMS: Mapping[str, Mapping[str, str]] = {
    "bottom_up": {"decode": "bottom-up"},
    "summarunner": {"decode": "summarunner"},
    "presumm": {"extractive": "bertsumext", "extractive+abstractive": "bertsumextabs"},
    "pointer_gen": {
        "baseline": "seq2seq",
        "pointer-generator": "pointer-generator",
        "pointer-gen-coverage": "pointer-generator-coverage",
    },
}
# The folder that defines the documents and gives the canonical reference. Of the four copies
# of each reference, bottom_up's is the only one that is complete in all 150 files with exactly
# one block: summarunner's drops text after a "." inside a highlight (14_, 36_) and "**"
# (28_, 78_); presumm's has stray extra blocks (0_, 87_) and drops "click here ..." highlights
# (5_, 6_); pointer_gen's is re-detokenised ("£1,400", "10am", curly quotes). bottom_up holds
# the highlights as See et al. (2017) preprocessed them (the form these systems were scored
# against): sentences separated by two spaces, or one per line, each ending in " .".
DOCUMENT_FOLDER = "bottom_up"
# Tie-break when choosing the canonical article among the one-sentence-per-line copies.
ARTICLE_PRIORITY = ("bottom_up", "summarunner", "presumm", "pointer_gen")
TEXTRANK_FOLDER = "textrank"
BART_FILE = "bart/bart.txt"
_BASE_SECTIONS = ("article", "reference")

# Share of an output's (or article's) words found in a document for both to be the same story.
# On the release, right pairs score 0.94-1.00 and the best wrong pair 0.75.
SAME_STORY_OVERLAP = 0.85

_HEADER = re.compile(r"^#([A-Za-z][\w+\-]*):\s*$")
_FIELD = re.compile(r"^(index|hash):\s*(.*?)\s*$")
_HASH = re.compile(r"^[0-9a-f]{40}$")
_TRIAL_NAME = re.compile(r"^(\d+)_?\.txt$")
_SEPARATOR = re.compile(r"\s{2,}")
_NON_WORD = re.compile(r"[\W_]+")
_ARROW_KEY = re.compile(r"\^\[\[[A-D]")  # an arrow key typed into the file, e.g. textrank/48_.txt
# A stand-alone ". ", "? " or "! " token (PTB-tokenised text) followed by a new word.
_TOKENISED_END = re.compile(r"(?<=\s[.!?])\s+(?=[^\s'`\".!?])")
_POUND = re.compile(r"(?<!\S)# (\d[\d,.]*\w*)")
_PTB = {"-lrb-": "(", "-rrb-": ")", "-lsb-": "[", "-rsb-": "]", "-lcb-": "{", "-rcb-": "}"}
_PTB.update({"``": '"', "''": '"'})

Lines = list[tuple[int, str]]


@dataclass
class _Section:
    """One ``#name:`` block of a trial file: header line and non-blank content lines."""

    name: str
    line: int
    lines: Lines


@dataclass
class _TrialFile:
    """One parsed ``<trial>_.txt`` file."""

    label: str
    folder: str
    trial: int
    index: int | None
    story: str
    hash_line: int
    sections: dict[str, _Section]


@dataclass
class _Doc:
    """A document under construction, with the word counts used to recognise its outputs."""

    story: str
    trial: int
    record: DocumentRecord
    words: Counter
    article_line: int


@dataclass(frozen=True)
class _Loose:
    """An output that carries no story id (TextRank file, BART line): placed by trial/content."""

    label: str
    line: int
    trial: int
    lines: tuple[tuple[int, str], ...]

    @property
    def text(self) -> str:
        return " ".join(text for _, text in self.lines)


class _Log:
    """Collects the fatal issues and the report lines of one parse."""

    def __init__(self) -> None:
        self.issues: list[Issue] = []
        self.report: list[ReportLine] = []
        self.failed: set[tuple[str, int]] = set()  # (folder, trial) of files that did not parse

    def issue(self, file: str, line: int | None, field: str | None, message: str) -> None:
        self.issues.append(Issue(Location(file, line, field), message))

    def note(self, file: str, line: int | None, field: str | None, message: str) -> None:
        self.report.append(ReportLine(Location(file, line, field), message))


# --- text helpers ---------------------------------------------------------------------------


def _key(text: str) -> str:
    """Letters and digits only, lower-cased: equal keys mean equal text up to tokenisation."""
    return _NON_WORD.sub("", text.lower())


def _words(text: str) -> Counter:
    return Counter(word for word in (_key(token) for token in text.split()) if word)


def _containment(part: Counter, whole: Counter) -> float:
    """Share of ``part``'s words (with multiplicity) that ``whole`` also has."""
    total = sum(part.values())
    return sum((part & whole).values()) / total if total else 0.0


def _overlap(first: Counter, second: Counter) -> float:
    """Shared words over the smaller text's word count (1.0 when one text contains the other)."""
    smaller = min(sum(first.values()), sum(second.values()))
    return sum((first & second).values()) / smaller if smaller else 0.0


def _is_separator(text: str) -> bool:
    """A stray line such as ``≠≠`` or ``---``: not blank, but without a letter or digit."""
    return bool(text.strip()) and not any(char.isalnum() for char in text)


def _pieces(lines: Iterable[tuple[int, str]]) -> Lines:
    """Split lines on runs of two or more spaces (the release's other sentence separator)."""
    return [(n, p.strip()) for n, text in lines for p in _SEPARATOR.split(text) if p.strip()]


def _split_prose(text: str) -> list[str]:
    """Split one line of summary text with pysbd, then at stand-alone ``.``/``?``/``!`` tokens.

    pysbd misses some boundaries in lower-cased, PTB-tokenised text (e.g. after a quote); a
    period separated by blanks on both sides never ends an abbreviation in that text. A piece
    without a letter or digit (pysbd may cut off a closing quote) joins the previous one.
    """
    sentences: list[str] = []
    for sentence in split_sentences(text):
        for part in _TOKENISED_END.split(sentence):
            if sentences and not any(char.isalnum() for char in part):
                sentences[-1] = f"{sentences[-1]} {part}"
            else:
                sentences.append(part)
    return sentences


# --- reading trial files --------------------------------------------------------------------


def _read(path: Path, label: str, log: _Log) -> Lines | None:
    try:
        return [(number, text.rstrip()) for number, text in read_lines(path, name=label)]
    except ImportValidationError as error:
        log.issues.extend(error.issues)
        return None


def _content(text: str, label: str, number: int, field: str, log: _Log) -> str | None:
    """Clean one content line: None for a stray separator line (noted), else the text."""
    if _is_separator(text):
        log.note(label, number, field, f"stray separator line {text.strip()!r} ignored")
        return None
    if _ARROW_KEY.search(text):
        log.note(label, number, field, "typed arrow-key text such as '^[[A' removed")
        text = _ARROW_KEY.sub("", text)
    return text.strip() or None


def _add_content(section: _Section, number: int, text: str, label: str, log: _Log) -> None:
    cleaned = _content(text, label, number, section.name, log)
    if cleaned is not None:
        section.lines.append((number, cleaned))


def _split_sections(
    lines: Lines, label: str, log: _Log
) -> tuple[dict[str, tuple[int, str]], dict[str, _Section]]:
    """Split a trial file into its ``index:``/``hash:`` fields and its ``#name:`` sections."""
    fields: dict[str, tuple[int, str]] = {}
    sections: dict[str, _Section] = {}
    current: _Section | None = None
    for number, text in lines:
        header = _HEADER.match(text)
        if header:
            name = header.group(1).lower()
            if name in sections:
                log.issue(label, number, name, f"section '#{name}:' appears twice")
            current = _Section(name, number, [])
            sections.setdefault(name, current)
        elif not text.strip():
            continue
        elif current is not None:
            _add_content(current, number, text, label, log)
        elif match := _FIELD.match(text):
            if match.group(1) in fields:
                log.issue(label, number, match.group(1), f"'{match.group(1)}:' appears twice")
            fields.setdefault(match.group(1), (number, match.group(2)))
        else:
            message = f"unexpected text before '#article:': {text[:60]!r}"
            log.issue(label, number, "header", message)
    return fields, sections


def _story_id(
    fields: dict[str, tuple[int, str]], sections: dict[str, _Section], label: str, log: _Log
) -> tuple[str, int] | None:
    if "hash" not in fields:
        first = min((s.line for s in sections.values()), default=1)
        log.issue(label, first, "hash", "no 'hash:' line (the story id) before the sections")
        return None
    line, value = fields["hash"]
    if not _HASH.match(value):
        log.issue(label, line, "hash", f"not a 40-digit lower-case hex story id: {value!r}")
        return None
    return value, line


def _index(fields: dict[str, tuple[int, str]], label: str, log: _Log) -> int | None:
    if "index" not in fields:
        return None
    line, value = fields["index"]
    if not value.isdigit():
        log.issue(label, line, "index", f"must be a whole number, got {value!r}")
        return None
    return int(value)


def _check_sections(
    sections: dict[str, _Section], wanted: tuple[str, ...], last_line: int, label: str, log: _Log
) -> None:
    """Each wanted section must be present and non-empty; no other section is allowed."""
    for name in wanted:
        if name not in sections:
            log.issue(label, last_line, name, f"missing section '#{name}:'")
        elif not sections[name].lines:
            log.issue(label, sections[name].line, name, f"section '#{name}:' is empty")
    for name, section in sections.items():
        if name not in wanted:
            expected = ", ".join(f"#{w}:" for w in wanted)
            log.issue(
                label, section.line, name, f"unknown section '#{name}:' (expected {expected})"
            )


def _trial_file(path: Path, folder: str, trial: int, log: _Log) -> _TrialFile | None:
    label = f"{folder}/{path.name}"
    lines = _read(path, label, log)
    if lines is None:
        return None
    if not any(text.strip() for _, text in lines):
        log.issue(label, None, "file", "the file is empty")
        return None
    before = len(log.issues)
    fields, sections = _split_sections(lines, label, log)
    story = _story_id(fields, sections, label, log)
    index = _index(fields, label, log)
    wanted = (*_BASE_SECTIONS, *SECTION_SYSTEMS[folder])
    _check_sections(sections, wanted, lines[-1][0], label, log)
    if story is None or len(log.issues) > before:
        return None
    return _TrialFile(label, folder, trial, index, story[0], story[1], sections)


def _trial_paths(root: Path, folder: str, log: _Log) -> dict[int, Path]:
    """Map trial number -> file for a per-trial folder; bad names are issues."""
    directory = root / folder
    if not directory.is_dir():
        log.issue(f"{folder}/", None, "folder", "folder is missing")
        return {}
    paths: dict[int, Path] = {}
    for path in sorted(directory.iterdir()):
        if not path.is_file() or path.suffix != ".txt":
            continue
        match = _TRIAL_NAME.match(path.name)
        label = f"{folder}/{path.name}"
        if not match:
            log.issue(label, None, "file name", "expected '<trial>_.txt' or '<trial>.txt'")
        elif int(match.group(1)) in paths:
            other = paths[int(match.group(1))].name
            log.issue(label, None, "file name", f"trial {match.group(1)} also in {other}")
        else:
            paths[int(match.group(1))] = path
    if not paths:
        log.issue(f"{folder}/", None, "folder", "folder holds no '<trial>_.txt' file")
    return paths


def _read_folder(root: Path, folder: str, log: _Log) -> dict[int, _TrialFile]:
    files = {}
    for trial, path in sorted(_trial_paths(root, folder, log).items()):
        parsed = _trial_file(path, folder, trial, log)
        if parsed is None:
            log.failed.add((folder, trial))
        else:
            files[trial] = parsed
    return files


# --- documents ------------------------------------------------------------------------------


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


# --- outputs --------------------------------------------------------------------------------


def _abstractive_sentences(lines: Lines) -> Lines:
    """One sentence per line, or per two-space piece; a single piece goes through pysbd."""
    pieces = _pieces(lines)
    if len(pieces) != 1:
        return pieces
    number, text = pieces[0]
    return [(number, sentence) for sentence in _split_prose(text)]


def _extractive_sentences(
    lines: Lines, document: tuple[str, ...], label: str, field: str, log: _Log
) -> Lines:
    """One sentence per line; a single line is cut back into the document sentences it joins."""
    if len(lines) != 1:
        return _join_broken_lines(lines, document, label, field, log)
    number, text = lines[0]
    return [(number, piece) for piece in split_on_document_sentences(text, document)]


def _join_broken_lines(
    lines: Lines, document: tuple[str, ...], label: str, field: str, log: _Log
) -> Lines:
    """Join two lines that only match a document sentence together (a stray line break)."""
    known = {normalize_space(sentence) for sentence in document}
    joined: Lines = []
    position = 0
    while position < len(lines):
        number, text = lines[position][0], normalize_space(lines[position][1])
        if text not in known and position + 1 < len(lines):
            both = normalize_space(f"{text} {lines[position + 1][1]}")
            if both in known:
                message = (
                    f"line break inside a sentence: lines {number}-{lines[position + 1][0]} joined"
                )
                log.note(label, number, field, message)
                joined.append((number, both))
                position += 2
                continue
        joined.append((number, text))
        position += 1
    return joined


def _output(
    system: SystemRecord, doc: _Doc, lines: Lines, location: Location, log: _Log
) -> OutputRecord:
    """Build one output; extractive sentences are aligned and weak mappings reported."""
    if system.kind != KIND_EXTRACTIVE:
        sentences = tuple(text for _, text in _abstractive_sentences(lines))
        return OutputRecord(system.slug, doc.story, sentences, location=location)
    pieces = _extractive_sentences(lines, doc.record.sentences, location.file, location.field, log)
    sentences = tuple(text for _, text in pieces)
    alignments = align_sentences(sentences, doc.record.sentences)
    for position, ((line, text), found) in enumerate(zip(pieces, alignments, strict=True), 1):
        if found.similarity < LOW_CONFIDENCE_THRESHOLD:
            message = (
                f"low-confidence mapping: {system.name}, document {doc.story} (trial {doc.trial}), "
                f"summary sentence {position} {text[:80]!r} -> document sentence {found.index} "
                f"(TF-IDF cosine {found.similarity:.3f} < {LOW_CONFIDENCE_THRESHOLD})"
            )
            log.note(location.file, line, location.field, message)
    exact = all(found.method == METHOD_EXACT for found in alignments)
    return OutputRecord(
        system.slug,
        doc.story,
        sentences,
        extracted=tuple(found.index for found in alignments),
        method=METHOD_EXACT if exact else METHOD_TFIDF,
        confidences=tuple(round(found.similarity, 4) for found in alignments),
        location=location,
    )


def _lead3(doc: _Doc) -> OutputRecord:
    count = min(3, len(doc.record.sentences))
    return OutputRecord(
        "lead-3",
        doc.story,
        doc.record.sentences[:count],
        extracted=tuple(range(count)),
        method=METHOD_LEAD,
        confidences=(1.0,) * count,
        location=Location(doc.record.meta["article_source"], doc.article_line, "article"),
    )


def _section_outputs(
    stories: dict[str, dict[str, _TrialFile]], docs: dict[str, _Doc], log: _Log
) -> dict[str, list[OutputRecord]]:
    outputs: dict[str, list[OutputRecord]] = {}
    for story, group in stories.items():
        for folder, file in group.items():
            for name, slug in SECTION_SYSTEMS[folder].items():
                section = file.sections[name]
                location = Location(file.label, section.lines[0][0], name)
                record = _output(_SYSTEM[slug], docs[story], section.lines, location, log)
                outputs.setdefault(slug, []).append(record)
    return outputs


def _match_trial(item: _Loose, by_trial: dict[int, _Doc], system: str, log: _Log) -> int | None:
    """The trial whose article contains the item's words: its own number if it fits."""
    words = _words(item.text)
    own = by_trial.get(item.trial)
    own_score = _containment(words, own.words) if own else 0.0
    if own_score >= SAME_STORY_OVERLAP:
        return item.trial
    scores = {trial: _containment(words, doc.words) for trial, doc in by_trial.items()}
    best = max(scores, key=scores.get, default=None)
    if best is None or scores[best] < SAME_STORY_OVERLAP:
        score = scores.get(best, 0.0)
        message = f"{system} summary matches no document (best word overlap {score:.2f})"
        log.issue(item.label, item.line, "summary", message)
        return None
    message = (
        f"{system} summary belongs to trial {best} ({by_trial[best].story}, word overlap "
        f"{scores[best]:.2f}), not trial {item.trial} ({own_score:.2f}); placed by content"
    )
    log.note(item.label, item.line, "summary", message)
    return best


def _place(
    items: list[_Loose], by_trial: dict[int, _Doc], system: str, where: str, log: _Log
) -> dict[int, _Loose]:
    """Give each document at most one item; identical copies are reported and dropped."""
    placed: dict[int, list[_Loose]] = {}
    for item in items:
        trial = _match_trial(item, by_trial, system, log)
        if trial is not None:
            placed.setdefault(trial, []).append(item)
    chosen = {}
    for trial, group in sorted(placed.items()):
        keep = next((item for item in group if item.trial == trial), group[0])
        chosen[trial] = keep
        for item in group:
            first = f"{keep.label}:{keep.line}"
            if item is keep:
                continue
            if _key(item.text) == _key(keep.text):
                log.note(item.label, item.line, "summary", f"duplicate of {first}; ignored")
            else:
                message = f"a second {system} summary for trial {trial} (the first is {first})"
                log.issue(item.label, item.line, "summary", message)
    for trial, doc in sorted(by_trial.items()):
        if trial not in chosen:
            message = f"no {system} summary for document {doc.story} (trial {trial})"
            log.note(where, None, "summary", message)
    return chosen


def _textrank_items(root: Path, trials: Iterable[int], log: _Log) -> list[_Loose]:
    paths = _trial_paths(root, TEXTRANK_FOLDER, log)
    for trial in sorted(set(trials) - set(paths)) if paths else ():
        log.issue(f"{TEXTRANK_FOLDER}/{trial}_.txt", None, "file", "file is missing")
    items = []
    for trial, path in sorted(paths.items()):
        label = f"{TEXTRANK_FOLDER}/{path.name}"
        lines = _read(path, label, log)
        if lines is None:
            continue
        content = []
        for number, text in lines:
            cleaned = _content(text, label, number, "summary", log) if text.strip() else None
            if cleaned is not None:
                content.append((number, cleaned))
        if not content:
            log.issue(label, None, "summary", "the file is empty")
            continue
        items.append(_Loose(label, content[0][0], trial, tuple(content)))
    return items


def _bart_items(root: Path, expected: int, log: _Log) -> list[_Loose]:
    path = root / BART_FILE
    if not path.is_file():
        log.issue(BART_FILE, None, "file", "file is missing")
        return []
    lines = _read(path, BART_FILE, log) or []
    while lines and not lines[-1][1].strip():
        lines.pop()
    items = []
    for trial, (number, text) in enumerate(lines):
        cleaned = _content(text, BART_FILE, number, "summary", log) if text.strip() else None
        if cleaned is None:
            log.issue(BART_FILE, number, "summary", "empty summary line (one summary per trial)")
            continue
        items.append(_Loose(BART_FILE, number, trial, ((number, cleaned),)))
    if lines and expected and len(lines) != expected:
        message = f"expected {expected} lines (one summary per trial), found {len(lines)}"
        log.issue(BART_FILE, len(lines), "summary", message)
    return items


def _loose_outputs(
    slug: str, where: str, items: list[_Loose], by_trial: dict[int, _Doc], log: _Log
) -> list[OutputRecord]:
    system = _SYSTEM[slug]
    outputs = []
    for trial, item in sorted(_place(items, by_trial, system.name, where, log).items()):
        location = Location(item.label, item.line, "summary")
        outputs.append(_output(system, by_trial[trial], list(item.lines), location, log))
    return outputs


# --- entry point ----------------------------------------------------------------------------


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
