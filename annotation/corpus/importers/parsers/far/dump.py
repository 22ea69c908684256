"""The human-readable FAR dumps (``output/*.txt``): samples, facets and support sentences."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .context import _Context
from .release import DUMP_FILES

_IDX = re.compile(r"^idx: (\d+)$")
_ID = re.compile(r"^ID: (.*)$")
_SHA1 = re.compile(r"^[0-9a-f]{40}$")
_FACET = re.compile(r"^Facet-(\d+): ?(.*)$")
_SUPPORT = re.compile(r"^\[Support Group-(\d+)\]\[Sent-(\d+)\]\[Sent_idx:(\d+)\]: ?(.*)$")
_NOTE = re.compile(r"^Note: ?(.*)$")


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
