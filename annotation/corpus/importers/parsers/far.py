"""Parser for the FAR public release (Mao et al., ACL 2020): documents, FAMs and system outputs.

Reads the release folder as published at morningmoni/FAR (see its PROVENANCE.md):

* ``output/{low_abstraction,noise,high_abstraction}.txt`` give each sample's story id, document
  (one line, sentence boundaries removed), reference facets and, for low-abstraction samples, the
  support sentences with their released sentence index;
* ``data/FAMs.pkl`` gives the categories and the FAMs; ``data/idx2labels_*.pkl`` the extracted
  sentence indices of five systems; ``data/all_test.txt`` the CNN/DM test URLs (story id = SHA1).

Pickles are read with :mod:`..safe_pickle`, never plain ``pickle``. Documents are split with
:mod:`..far_split`; the released indices (FAM groups and extracted sentences) are always kept
exactly as released, and the split is checked against the released support-sentence texts.
A release index that falls outside the split is never papered over: for a FAM the parser refuses
it, and a system output keeps it so that the pipeline's validator refuses the import.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..bundle import (
    CATEGORY_HIGH,
    CATEGORY_LOW,
    CATEGORY_NOISE,
    FACET_NO_SUPPORT,
    FACET_SUPPORTED,
    KIND_EXTRACTIVE,
    METHOD_LEAD,
    METHOD_RELEASED,
    AnnotationSetRecord,
    DatasetRecord,
    DocumentRecord,
    FacetRecord,
    FamRecord,
    ImportBundle,
    ImportValidationError,
    Issue,
    Location,
    OutputRecord,
    ReferenceRecord,
    ReportLine,
    SystemRecord,
)
from ..far_split import released_mismatches, split_sentences
from ..safe_pickle import safe_loads

RELEASE_COMMIT = "69a7890c578405fc06f5edf05653d4afeb16d353"
FAMS_FILE = "data/FAMs.pkl"
URLS_FILE = "data/all_test.txt"
DUMP_FILES = {
    CATEGORY_LOW: "output/low_abstraction.txt",
    CATEGORY_NOISE: "output/noise.txt",
    CATEGORY_HIGH: "output/high_abstraction.txt",
}
FAM_KEYS = {"low_abs": CATEGORY_LOW, "noise": CATEGORY_NOISE, "high_abs": CATEGORY_HIGH}


@dataclass(frozen=True)
class ReleasedSystem:
    """One system whose extracted indices the release ships as a pickle."""

    slug: str
    name: str
    file: str
    description: str


RELEASED_SYSTEMS = (
    ReleasedSystem(
        "banditsum", "BanditSum", "data/idx2labels_bs.pkl", "BanditSum (Dong et al., 2018)."
    ),
    ReleasedSystem(
        "fastrl-e",
        "FastRL(E)",
        "data/idx2labels_fastrl.pkl",
        "The extractor of Fast Abstractive Summarization with RL (Chen and Bansal, 2018).",
    ),
    ReleasedSystem("neusum", "NeuSum", "data/idx2labels_neusum.pkl", "NeuSum (Zhou et al., 2018)."),
    ReleasedSystem(
        "refresh", "Refresh", "data/idx2labels_refresh.pkl", "Refresh (Narayan et al., 2018)."
    ),
    ReleasedSystem(
        "unifiedsum-e",
        "UnifiedSum(E)",
        "data/idx2labels_unified.pkl",
        "The extractor of the unified extractive-abstractive model (Hsu et al., 2018).",
    ),
)
LEAD_SLUG = "lead-3"
LEAD_K = 3

DATASET = DatasetRecord(
    slug="cnndm-far",
    name="CNN/DailyMail FAR (Mao et al., 2020)",
    description=(
        "150 CNN/DailyMail test articles annotated for Facet-Aware Evaluation (Mao et al., ACL "
        "2020): each reference sentence is a facet; 89 low-abstraction samples map every facet "
        "to support groups of document sentences, 41 are noise and 20 high abstraction. With "
        "the extracted sentences of BanditSum, FastRL(E), NeuSum, Refresh and UnifiedSum(E)."
    ),
    source=f"morningmoni/FAR commit {RELEASE_COMMIT}",
    license=(
        "Not stated by the FAR release (the repository has no license file); the articles are "
        "CNN/DailyMail stories, distributed for research use."
    ),
)

_IDX = re.compile(r"^idx: (\d+)$")
_ID = re.compile(r"^ID: (.*)$")
_SHA1 = re.compile(r"^[0-9a-f]{40}$")
_FACET = re.compile(r"^Facet-(\d+): ?(.*)$")
_SUPPORT = re.compile(r"^\[Support Group-(\d+)\]\[Sent-(\d+)\]\[Sent_idx:(\d+)\]: ?(.*)$")
_NOTE = re.compile(r"^Note: ?(.*)$")


# ---------------------------------------------------------------------------------------------
# Reading files
# ---------------------------------------------------------------------------------------------


class _Context:
    """The release root plus every issue and report line found so far."""

    def __init__(self, root: Path):
        self.root = root
        self.issues: list[Issue] = []
        self.report: list[ReportLine] = []

    def issue(self, file: str, message: str, line: int | None = None, where: str | None = None):
        self.issues.append(Issue(Location(file, line, where), message))

    def note(self, file: str, message: str, line: int | None = None, where: str | None = None):
        self.report.append(ReportLine(Location(file, line, where), message))

    def read_bytes(self, name: str) -> bytes | None:
        try:
            return (self.root / name).read_bytes()
        except FileNotFoundError:
            self.issue(name, "file not found in the release folder")
        except OSError as error:
            self.issue(name, f"cannot read file: {error.strerror or error}")
        return None

    def read_lines(self, name: str) -> list[str] | None:
        data = self.read_bytes(name)
        if data is None:
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data[: error.start].count(b"\n") + 1
            self.issue(name, "not valid UTF-8", line)
            return None
        return [line.rstrip("\r") for line in text.split("\n")]

    def load_pickle(self, name: str) -> object | None:
        data = self.read_bytes(name)
        if data is None:
            return None
        try:
            return safe_loads(data, source=name)
        except ImportValidationError as error:
            self.issues.extend(error.issues)
            return None


# ---------------------------------------------------------------------------------------------
# The human-readable dump
# ---------------------------------------------------------------------------------------------


@dataclass
class _Support:
    group: int
    index: int
    text: str
    line: int


@dataclass
class _Facet:
    text: str
    line: int
    supports: list[_Support] = field(default_factory=list)


@dataclass
class _Sample:
    """One sample as printed in a dump file."""

    idx: int
    category: str
    file: str
    line: int
    story_id: str | None = None
    document: str | None = None
    reference_line: int | None = None
    facets: list[_Facet] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def released_texts(self) -> dict[int, list[str]]:
        """Released sentence index -> every support text printed for it."""
        texts: dict[int, list[str]] = {}
        for facet in self.facets:
            for support in facet.supports:
                texts.setdefault(support.index, []).append(support.text)
        return texts

    def dump_groups(self, facet: int) -> list[frozenset[int]]:
        """The support groups of one facet as printed, in group-number order."""
        groups: dict[int, set[int]] = {}
        for support in self.facets[facet].supports:
            groups.setdefault(support.group, set()).add(support.index)
        return [frozenset(groups[number]) for number in sorted(groups)]


class _DumpReader:
    """A line-by-line state machine over one dump file."""

    def __init__(self, ctx: _Context, file: str, category: str):
        self.ctx = ctx
        self.file = file
        self.category = category
        self.samples: list[_Sample] = []
        self.current: _Sample | None = None
        self.expect_document = False

    def error(self, number: int, message: str, where: str | None = None) -> None:
        self.ctx.issue(self.file, message, number, where)

    def read(self, lines: list[str]) -> list[_Sample]:
        for number, line in enumerate(lines, start=1):
            self.line(number, line)
        if self.expect_document:
            self.error(len(lines), "file ends before the document line", "document")
        self.finish()
        return self.samples

    def line(self, number: int, line: str) -> None:
        match = _IDX.match(line)
        if self.expect_document:
            self.expect_document = False
            if not match:
                self.document(number, line)
                return
            self.error(number, "the line after 'Document' must hold the document", "document")
        if match:
            self.finish()
            self.current = _Sample(int(match[1]), self.category, self.file, number)
            self.samples.append(self.current)
        elif not line.strip():
            return
        elif self.current is None:
            self.error(number, "expected 'idx: <sample index>' to start a sample", "idx")
        else:
            self.field(number, line)

    def field(self, number: int, line: str) -> None:
        sample = self.current
        if match := _ID.match(line):
            self.story_id(number, match[1].strip())
        elif line == "Document":
            self.expect_document = True
        elif line == "Reference":
            sample.reference_line = number
        elif match := _FACET.match(line):
            self.facet(number, int(match[1]), match[2].strip())
        elif match := _SUPPORT.match(line):
            self.support(number, match)
        elif match := _NOTE.match(line):
            sample.notes.append(match[1].strip())
        else:
            self.error(number, f"unrecognised line: {line[:60]!r}")

    def story_id(self, number: int, value: str) -> None:
        if not _SHA1.match(value):
            self.error(number, f"story ID must be 40 lower-case hex digits, got {value!r}", "ID")
        elif self.current.story_id is not None:
            self.error(number, "second ID line in one sample", "ID")
        else:
            self.current.story_id = value

    def document(self, number: int, line: str) -> None:
        if not line.strip():
            self.error(number, "the line after 'Document' must hold the document", "document")
        elif self.current.document is not None:
            self.error(number, "second document in one sample", "document")
        else:
            self.current.document = line

    def facet(self, number: int, position: int, text: str) -> None:
        sample = self.current
        if sample.reference_line is None:
            self.error(number, "facet before the 'Reference' line", "Facet")
        if position != len(sample.facets):
            expected = len(sample.facets)
            self.error(number, f"expected Facet-{expected}, got Facet-{position}", "Facet")
        if not text:
            self.error(number, "empty facet", f"Facet-{position}")
        sample.facets.append(_Facet(text, number))

    def support(self, number: int, match: re.Match) -> None:
        if not self.current.facets:
            self.error(number, "support sentence before any facet", "Support")
            return
        if not match[4].strip():
            self.error(number, "empty support sentence", "Support")
        support = _Support(int(match[1]), int(match[3]), match[4], number)
        self.current.facets[-1].supports.append(support)

    def finish(self) -> None:
        sample = self.current
        if sample is None:
            return
        where = f"sample {sample.idx}"
        if sample.story_id is None:
            self.error(sample.line, f"{where} has no 'ID:' line", "ID")
        if sample.document is None:
            self.error(sample.line, f"{where} has no document", "document")
        if not sample.facets:
            self.error(sample.line, f"{where} has no facets", "Reference")
        self.current = None


def _read_dumps(ctx: _Context) -> dict[int, _Sample]:
    samples: dict[int, _Sample] = {}
    for category, name in DUMP_FILES.items():
        lines = ctx.read_lines(name)
        if lines is None:
            continue
        for sample in _DumpReader(ctx, name, category).read(lines):
            if sample.idx in samples:
                first = samples[sample.idx]
                ctx.issue(
                    name,
                    f"sample {sample.idx} appears twice (first at {first.file}:{first.line})",
                    sample.line,
                    "idx",
                )
                continue
            samples[sample.idx] = sample
    return samples


# ---------------------------------------------------------------------------------------------
# Pickle shapes
# ---------------------------------------------------------------------------------------------


def _is_index(value: object) -> bool:
    return type(value) is int and value >= 0


def _index_collection(value: object) -> bool:
    return isinstance(value, (list, tuple, set, frozenset)) and all(map(_is_index, value))


@dataclass
class _Fams:
    """FAMs.pkl, checked: sample idx -> category, and the low-abstraction groups."""

    all_idx: list[int]
    categories: dict[int, str]
    groups: dict[int, list[list[frozenset[int]]]]


def _check_fam_sample(ctx: _Context, idx: object, facets: object) -> list | None:
    where = f"low_abs[{idx!r}]"
    if not _is_index(idx) or not isinstance(facets, Mapping):
        ctx.issue(FAMS_FILE, "must map a sample index to {facet: [support groups]}", where=where)
        return None
    keys = list(facets)
    if not keys or not all(map(_is_index, keys)) or sorted(keys) != list(range(len(keys))):
        ctx.issue(FAMS_FILE, f"facet keys must be 0..n-1, got {keys!r}", where=where)
        return None
    result = []
    for facet in range(len(facets)):
        groups = facets[facet]
        if not isinstance(groups, list) or not all(_index_collection(g) and g for g in groups):
            ctx.issue(
                FAMS_FILE,
                "must be a list of non-empty sets of sentence indices",
                None,
                f"{where}[{facet}]",
            )
            return None
        result.append([frozenset(group) for group in groups])
    return result


def _check_fams_shape(ctx: _Context, data: object) -> _Fams | None:
    if not isinstance(data, Mapping) or set(data) != {*FAM_KEYS, "all_idx"}:
        keys = sorted(map(repr, data)) if isinstance(data, Mapping) else type(data).__name__
        ctx.issue(
            FAMS_FILE, f"expected a dict with keys {sorted(FAM_KEYS)} and 'all_idx', got {keys}"
        )
        return None
    all_idx = data["all_idx"]
    if not isinstance(all_idx, list) or not all(map(_is_index, all_idx)):
        ctx.issue(FAMS_FILE, "must be a list of sample indices", where="all_idx")
        return None
    if len(set(all_idx)) != len(all_idx):
        ctx.issue(FAMS_FILE, "repeats a sample index", where="all_idx")
    if not isinstance(data["low_abs"], Mapping):
        ctx.issue(FAMS_FILE, "must be a dict", where="low_abs")
        return None
    for key in ("noise", "high_abs"):
        if not _index_collection(data[key]):
            ctx.issue(FAMS_FILE, "must be a set of sample indices", where=key)
            return None
    groups = {}
    for idx, facets in data["low_abs"].items():
        checked = _check_fam_sample(ctx, idx, facets)
        if checked is not None:
            groups[idx] = checked
    return _Fams(list(all_idx), _categories(ctx, data), groups)


def _categories(ctx: _Context, data: Mapping) -> dict[int, str]:
    categories: dict[int, str] = {}
    for key, category in FAM_KEYS.items():
        for idx in data[key]:
            if idx in categories:
                ctx.issue(
                    FAMS_FILE, f"sample {idx} is both {categories[idx]} and {category}", where=key
                )
            categories[idx] = category
    missing = sorted(set(data["all_idx"]) - set(categories))
    extra = sorted(set(categories) - set(data["all_idx"]))
    if missing:
        ctx.issue(FAMS_FILE, f"samples without a category: {missing}", where="all_idx")
    if extra:
        ctx.issue(FAMS_FILE, f"categorised samples missing from all_idx: {extra}", where="all_idx")
    return categories


def _check_labels_shape(
    ctx: _Context, system: ReleasedSystem, data: object, wanted: set[int]
) -> dict[int, list[int]] | None:
    """Return sample idx -> released indices for the wanted samples; report the rest."""
    if isinstance(data, list):
        entries = dict(enumerate(data))
    elif isinstance(data, Mapping):
        entries = dict(data)
    else:
        ctx.issue(system.file, f"expected a dict or list of index lists, got {type(data).__name__}")
        return None
    bad = [
        key for key, value in entries.items() if not _is_index(key) or not _index_collection(value)
    ]
    if bad:
        ctx.issue(system.file, "must hold lists of sentence indices", where=f"sample {bad[0]!r}")
        return None
    ignored = sorted(set(entries) - wanted)
    if ignored:
        ctx.note(
            system.file,
            f"{len(ignored)} entries for samples outside the 150 annotated ones ignored",
        )
    return {idx: list(value) for idx, value in entries.items() if idx in wanted}


# ---------------------------------------------------------------------------------------------
# Cross-checks
# ---------------------------------------------------------------------------------------------


def _check_story_ids(ctx: _Context, samples: Mapping[int, _Sample]) -> None:
    urls = ctx.read_lines(URLS_FILE)
    if urls is None:
        return
    for idx, sample in sorted(samples.items()):
        if sample.story_id is None:
            continue
        if idx >= len(urls) or not urls[idx].strip():
            ctx.issue(URLS_FILE, f"no URL for sample {idx}", idx + 1)
            continue
        digest = hashlib.sha1(urls[idx].strip().encode("utf-8")).hexdigest()
        if digest != sample.story_id:
            ctx.issue(
                sample.file,
                f"story ID {sample.story_id} of sample {idx} is not the SHA1 of its URL "
                f"({URLS_FILE} line {idx + 1} hashes to {digest})",
                sample.line + 1,
                "ID",
            )


def _check_partition(ctx: _Context, fams: _Fams, samples: Mapping[int, _Sample]) -> None:
    missing = sorted(set(fams.all_idx) - set(samples))
    extra = sorted(set(samples) - set(fams.all_idx))
    if missing:
        ctx.issue(
            FAMS_FILE, f"samples with no entry in the output/ dumps: {missing}", where="all_idx"
        )
    if extra:
        ctx.issue(FAMS_FILE, f"dumped samples missing from all_idx: {extra}", where="all_idx")
    for idx, sample in samples.items():
        category = fams.categories.get(idx)
        if category is not None and category != sample.category:
            ctx.issue(
                sample.file,
                f"sample {idx} is {category!r} in {FAMS_FILE} but dumped as {sample.category!r}",
                sample.line,
                "idx",
            )


def _check_fam_against_dump(ctx: _Context, sample: _Sample, groups: list) -> None:
    if len(groups) != len(sample.facets):
        ctx.issue(
            sample.file,
            f"sample {sample.idx}: {FAMS_FILE} maps {len(groups)} facets, the dump prints "
            f"{len(sample.facets)}",
            sample.reference_line or sample.line,
            "Facet",
        )
        return
    for position, facet_groups in enumerate(groups):
        if set(facet_groups) != set(sample.dump_groups(position)):
            ctx.issue(
                sample.file,
                f"sample {sample.idx} facet {position}: support groups differ from {FAMS_FILE} "
                f"({[sorted(g) for g in facet_groups]})",
                sample.facets[position].line,
                f"Facet-{position}",
            )


# ---------------------------------------------------------------------------------------------
# Building records
# ---------------------------------------------------------------------------------------------


@dataclass
class _Doc:
    """A sample on its way to becoming a DocumentRecord."""

    sample: _Sample
    sentences: tuple[str, ...]
    mismatches: set[int] = field(default_factory=set)
    out_of_range: set[int] = field(default_factory=set)
    checked: bool = False


def _split(ctx: _Context, sample: _Sample) -> _Doc:
    doc = _Doc(sample, tuple(split_sentences(sample.document or "")))
    released = sample.released_texts()
    doc.checked = bool(released)
    doc.mismatches = set(released_mismatches(doc.sentences, released))
    if doc.mismatches:
        ctx.note(
            sample.file,
            f"sample {sample.idx}: the sentence split disagrees with the released support "
            f"sentences at indices {sorted(doc.mismatches)}",
            sample.line,
            "document",
        )
    return doc


def _fam_record(ctx: _Context, doc: _Doc, groups: list[list[frozenset[int]]]) -> FamRecord:
    sample = doc.sample
    facets = []
    for position, facet_groups in enumerate(groups):
        released = tuple(tuple(sorted(group)) for group in facet_groups)
        for index in sorted({i for group in released for i in group}):
            if index >= len(doc.sentences):
                ctx.issue(
                    FAMS_FILE,
                    f"sample {sample.idx} facet {position}: support sentence {index} is outside "
                    f"the document's {len(doc.sentences)} sentences as split",
                    where=f"low_abs[{sample.idx}][{position}]",
                )
        note = ""
        if len(set(released)) != len(released):
            note = "the release lists the same support group more than once"
            ctx.note(FAMS_FILE, f"sample {sample.idx} facet {position}: {note}: {released}")
        label = FACET_SUPPORTED if released else FACET_NO_SUPPORT
        facets.append(FacetRecord(groups=released, label=label, note=note))
    location = Location(sample.file, sample.reference_line or sample.line, "FAM")
    return FamRecord(document_id=sample.story_id, facets=tuple(facets), location=location)


def _output(
    ctx: _Context, system: ReleasedSystem, doc: _Doc, extracted: list[int]
) -> OutputRecord | None:
    sample = doc.sample
    where = f"sample {sample.idx}"
    if not extracted:
        ctx.note(
            system.file, f"empty entry for sample {sample.idx}: no output imported", where=where
        )
        return None
    outside = [i for i in extracted if i >= len(doc.sentences)]
    if outside:
        # Kept as released: the validator then refuses the whole import, naming the index.
        doc.out_of_range.update(outside)
    if len(set(extracted)) != len(extracted):
        ctx.note(system.file, f"sample {sample.idx}: repeats an index: {extracted}", where=where)
    return OutputRecord(
        system_slug=system.slug,
        document_id=sample.story_id,
        sentences=tuple(doc.sentences[i] if i < len(doc.sentences) else "" for i in extracted),
        extracted=tuple(extracted),
        method=METHOD_RELEASED,
        confidences=tuple(1.0 for _ in extracted),
        location=Location(system.file, field=where),
    )


def _lead_output(doc: _Doc) -> OutputRecord:
    extracted = tuple(range(min(LEAD_K, len(doc.sentences))))
    return OutputRecord(
        system_slug=LEAD_SLUG,
        document_id=doc.sample.story_id,
        sentences=tuple(doc.sentences[i] for i in extracted),
        extracted=extracted,
        method=METHOD_LEAD,
        confidences=tuple(1.0 for _ in extracted),
        location=Location(doc.sample.file, doc.sample.line, "lead-3"),
    )


def _system_outputs(
    ctx: _Context, docs: Mapping[int, _Doc], categories: Mapping[int, str]
) -> list[OutputRecord]:
    outputs = [_lead_output(doc) for doc in docs.values()]
    for system in RELEASED_SYSTEMS:
        labels = _check_labels_shape(ctx, system, ctx.load_pickle(system.file), set(docs))
        if labels is None:
            continue
        made = [_output(ctx, system, docs[idx], labels[idx]) for idx in docs if idx in labels]
        made = [output for output in made if output is not None]
        outputs.extend(made)
        _report_coverage(ctx, system, made, docs, categories)
    return outputs


def _report_coverage(ctx, system: ReleasedSystem, made, docs, categories) -> None:
    by_id = {doc.sample.story_id: idx for idx, doc in docs.items()}
    counts = {category: 0 for category in DUMP_FILES}
    for output in made:
        category = categories.get(by_id[output.document_id])
        if category in counts:
            counts[category] += 1
    detail = ", ".join(f"{category} {count}" for category, count in counts.items())
    ctx.note(
        system.file, f"{system.name}: outputs for {len(made)} of {len(docs)} samples ({detail})"
    )


def _document_record(doc: _Doc, category: str | None) -> DocumentRecord:
    sample = doc.sample
    disagreeing = sorted(doc.mismatches | doc.out_of_range)
    # "Agrees at every released index": vacuously true where the release gives no sentence text;
    # split_checked says whether there was anything to check.
    meta = {
        "sample_idx": sample.idx,
        "split_agrees": not disagreeing,
        "split_checked": bool(doc.checked),
        "split_mismatches": disagreeing,
    }
    if sample.notes:
        meta["release_notes"] = list(sample.notes)
    reference = ReferenceRecord(
        sentences=tuple(facet.text for facet in sample.facets),
        location=Location(sample.file, sample.reference_line or sample.line, "Reference"),
    )
    return DocumentRecord(
        external_id=sample.story_id,
        sentences=doc.sentences,
        references=(reference,),
        category=category,
        meta=meta,
        location=Location(sample.file, sample.line),
    )


def _systems() -> list[SystemRecord]:
    lead = SystemRecord(
        LEAD_SLUG, "Lead-3", KIND_EXTRACTIVE, "The first three document sentences.", ""
    )
    released = [
        SystemRecord(s.slug, s.name, KIND_EXTRACTIVE, s.description, "CNN/DailyMail")
        for s in RELEASED_SYSTEMS
    ]
    return [lead, *released]


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
