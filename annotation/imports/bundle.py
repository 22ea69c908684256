"""Plain-data records that every importer parser produces and the writers consume.

The import pipeline is ``reader -> parser -> validators -> writer``. Parsers turn files into an
:class:`ImportBundle` made only of these dataclasses (no Django), so they can be tested without a
database and reused by the web upload. Every record carries a :class:`Location` so that a
validation error can name the file, the line and the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CATEGORY_NOISE = "noise"
CATEGORY_LOW = "low"
CATEGORY_HIGH = "high"
CATEGORIES = (CATEGORY_NOISE, CATEGORY_LOW, CATEGORY_HIGH)

KIND_EXTRACTIVE = "extractive"
KIND_ABSTRACTIVE = "abstractive"

# What a judgment study's values are (as in an uploaded study).
JUDGMENT_SCORE = "score"  # higher is better
JUDGMENT_RANK = "rank"  # 1 is best
JUDGMENT_KINDS = (JUDGMENT_SCORE, JUDGMENT_RANK)

# How an output's extracted indices were obtained.
METHOD_GIVEN = "given"  # indices supplied by an uploader: repeats are refused
METHOD_RELEASED = "released"  # indices from a public release, kept verbatim (repeats and all)
METHOD_LEAD = "lead"  # Lead-k: the first k document sentences
METHOD_EXACT = "exact"  # every summary sentence matched a document sentence exactly
METHOD_TFIDF = "tfidf"  # at least one sentence needed the nearest TF-IDF cosine match

# Facet labels inside a FAM.
FACET_SUPPORTED = "supported"
FACET_NO_SUPPORT = "no_support"  # high abstraction: no document sentence supports it
FACET_NOISE = "noise"


@dataclass(frozen=True)
class Location:
    """Where a record or a problem comes from: file, 1-based line (if any) and field (if any)."""

    file: str
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        text = self.file
        if self.line is not None:
            text += f":{self.line}"
        if self.field:
            text += f" [{self.field}]"
        return text


@dataclass(frozen=True)
class LocatedMessage:
    """A message tied to a location in the imported files; the base of issues and report lines."""

    location: Location
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


@dataclass(frozen=True)
class Issue(LocatedMessage):
    """One validation problem, always tied to a location."""


#: Issues listed one by one in a report; the rest are counted (a hostile file of a million bad
#: lines must not build a million messages).
MAX_LISTED_ISSUES = 1000


class IssueList(list):
    """Issues as a list that keeps the first ``limit`` and counts the others in ``more``."""

    def __init__(self, limit: int = MAX_LISTED_ISSUES):
        super().__init__()
        self.limit = limit
        self.more = 0

    def append(self, issue: Issue) -> None:
        """Keep ``issue`` if fewer than ``limit`` are kept, else count it.

        Args:
            issue: the problem found.
        """
        if len(self) < self.limit:
            super().append(issue)
        else:
            self.more += 1

    def extend(self, issues) -> None:
        """Append each of ``issues``.

        Args:
            issues: problems found.
        """
        for issue in issues:
            self.append(issue)

    def listed(self) -> list[Issue]:
        """The kept issues, and one more saying how many were only counted.

        Returns:
            The issues to report.
        """
        if not self.more:
            return list(self)
        where = Location(self[-1].location.file) if self else Location("import")
        return [
            *self,
            Issue(where, f"and {self.more:,} more problems (the first {len(self):,} are listed)"),
        ]


class ImportValidationError(Exception):
    """Raised by any pipeline stage when input is invalid; carries every issue found.

    The API renders it as a 400 with its issues: ``annotation.corpus`` registers it as a
    ``config.exceptions.IssuesError`` when Django starts, so that this module needs no Django.
    Given an :class:`IssueList`, it carries the listed issues and the count of the others.
    """

    def __init__(self, issues: list[Issue]):
        self.issues = issues.listed() if isinstance(issues, IssueList) else list(issues)
        super().__init__("\n".join(str(i) for i in self.issues) or "invalid import")


@dataclass(frozen=True)
class DatasetRecord:
    """Dataset metadata proposed by a parser; the slug may be overridden by the caller."""

    slug: str
    name: str
    description: str = ""
    source: str = ""
    license: str = ""


@dataclass(frozen=True)
class ReferenceRecord:
    """One reference summary; each sentence is a facet."""

    sentences: tuple[str, ...]
    label: str = ""
    location: Location | None = None


@dataclass(frozen=True)
class DocumentRecord:
    """One source document with its ordered sentences and references.

    ``meta`` holds importer-specific facts worth keeping, for example
    ``{"split_agrees": True, "split_mismatches": [...]}`` for the FAR release or
    ``{"sample_idx": 17}``.
    """

    external_id: str
    sentences: tuple[str, ...]
    references: tuple[ReferenceRecord, ...]
    category: str | None = None
    meta: dict = field(default_factory=dict)
    location: Location | None = None


@dataclass(frozen=True)
class SystemRecord:
    """A summarization system."""

    slug: str
    name: str
    kind: str  # KIND_EXTRACTIVE | KIND_ABSTRACTIVE
    description: str = ""
    trained_on: str = ""


@dataclass(frozen=True)
class OutputRecord:
    """One system's summary for one document.

    For extractive systems ``extracted`` holds document-sentence indices in extraction order,
    ``method`` says how they were obtained and ``confidences`` holds one similarity in [0, 1]
    per extracted index (1.0 for exact or given matches).
    """

    system_slug: str
    document_id: str
    sentences: tuple[str, ...]
    extracted: tuple[int, ...] | None = None
    method: str = ""
    confidences: tuple[float, ...] | None = None
    location: Location | None = None


@dataclass(frozen=True)
class FacetRecord:
    """One facet of a FAM: its support groups (sets of document-sentence indices) and label."""

    groups: tuple[tuple[int, ...], ...]
    label: str = FACET_SUPPORTED
    note: str = ""


@dataclass(frozen=True)
class FamRecord:
    """A facet-aware mapping for one document and one of its references."""

    document_id: str
    facets: tuple[FacetRecord, ...]
    reference_index: int = 0
    location: Location | None = None


@dataclass(frozen=True)
class AnnotationSetRecord:
    """A named collection of FAMs, e.g. the read-only FAMs shipped with a release."""

    slug: str
    name: str
    kind: str = "released"
    read_only: bool = True
    fams: tuple[FamRecord, ...] = ()


@dataclass(frozen=True)
class SpanAnnotationRecord:
    """One output's error spans in a span annotation set, found by system and document.

    ``errors`` are raw JSON errors for the set's scheme (``side``, ``start``, ``end``, ``words``,
    ``type``, ``label``, ``reason``); offsets index the output's sentences joined by one space.
    ``no_errors`` marks an output read and found clean (then ``errors`` is empty).
    ``annotated_text`` is the summary as annotated when it is not the output's text (the
    offsets index it then); empty otherwise.
    """

    system_slug: str
    document_id: str
    errors: tuple[dict, ...] = ()
    no_errors: bool = False
    location: Location | None = None
    annotated_text: str = ""


@dataclass(frozen=True)
class SpanSetRecord:
    """A named set of error spans of the bundle's outputs under a span scheme.

    For example one crowd worker's hallucination spans of the XSum release.
    """

    slug: str
    name: str
    scheme: str
    kind: str = "human"
    read_only: bool = True
    annotations: tuple[SpanAnnotationRecord, ...] = ()


@dataclass(frozen=True)
class JudgmentRecord:
    """One human judgment of one of the bundle's outputs: a value for a system on a document."""

    system_slug: str
    document_id: str
    value: float
    location: Location | None = None


@dataclass(frozen=True)
class JudgmentStudyRecord:
    """A human judgment study a release brings, per document (e.g. REALSumm's LitePyramid).

    ``kind`` is ``score`` (higher is better) or ``rank`` (1 is best), as for an uploaded study.
    """

    name: str
    kind: str = JUDGMENT_SCORE
    judgments: tuple[JudgmentRecord, ...] = ()


@dataclass(frozen=True)
class ReleasedScoreRecord:
    """One output's automatic scores as a release computed them, under the release's own keys."""

    system_slug: str
    document_id: str
    scores: dict[str, float]
    location: Location | None = None


@dataclass(frozen=True)
class ReleasedScoresRecord:
    """A release's own automatic scores of the bundle's outputs, kept as a reference.

    For example the ROUGE (Perl ROUGE-1.5.5), JS-2, BERTScore and MoverScore values the REALSumm
    authors computed: Loupe compares its own scores with them and correlates them with the
    release's human judgments, but never serves them as its own.
    """

    name: str
    scores: tuple[ReleasedScoreRecord, ...] = ()


@dataclass(frozen=True)
class ReportLine(LocatedMessage):
    """A non-fatal finding the import report must show (e.g. a low-confidence mapping)."""


@dataclass
class ImportBundle:
    """Everything one import will write, produced by a parser and checked by the validators."""

    dataset: DatasetRecord
    documents: list[DocumentRecord] = field(default_factory=list)
    systems: list[SystemRecord] = field(default_factory=list)
    outputs: list[OutputRecord] = field(default_factory=list)
    annotation_sets: list[AnnotationSetRecord] = field(default_factory=list)
    report: list[ReportLine] = field(default_factory=list)
    span_sets: list[SpanSetRecord] = field(default_factory=list)
    judgment_studies: list[JudgmentStudyRecord] = field(default_factory=list)
    released_scores: list[ReleasedScoresRecord] = field(default_factory=list)
