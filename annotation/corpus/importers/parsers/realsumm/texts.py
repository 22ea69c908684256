"""The release's texts: ``<t> ... </t>`` sentences, the selected documents, the output files."""

from __future__ import annotations

import re

from ...release_files import ReleaseFiles
from .release import EXPECTED_DOCUMENTS, MAX_TEXT_BYTES, OUTPUTS_DIR, SELECTED_FILE

_TAG = re.compile(r"</?t>")
_LIST = re.compile(r"\[([\d,\s]*)\]")


def tagged_sentences(text: str) -> tuple[str, ...]:
    """A summary's sentences: the text between ``<t>`` and ``</t>`` tags, white space collapsed.

    Any tag separates two sentences, so nested tags (``<t> <t> a . </t> </t>``) and a last
    sentence whose ``</t>`` is missing (a summary cut at a length limit) split alike; a text
    without tags is one sentence.

    Args:
        text: a reference or a summary as released.

    Returns:
        The non-empty sentences in order.
    """
    return tuple(s for part in _TAG.split(text) if (s := " ".join(part.split())))


def plain(text: str) -> str:
    """The text without tags and with white space collapsed, to compare two spellings of it."""
    return " ".join(tagged_sentences(text))


def selected_documents(files: ReleaseFiles) -> list[int] | None:
    """The test-set line numbers of the documents, in document-id order (id d is the d-th).

    Args:
        files: the release; problems become its issues.

    Returns:
        The 100 distinct line numbers, or None after an issue.
    """
    lines = files.read_lines(SELECTED_FILE, max_bytes=MAX_TEXT_BYTES)
    if lines is None:
        return None
    found = [match for match in map(_LIST.search, lines) if match]
    if len(found) != 1:
        files.issue(
            SELECTED_FILE, f"expected one [n, n, ...] list of line numbers, found {len(found)}"
        )
        return None
    numbers = [int(n) for n in found[0].group(1).replace(",", " ").split()]
    if len(numbers) != EXPECTED_DOCUMENTS or len(set(numbers)) != len(numbers):
        files.issue(
            SELECTED_FILE,
            f"expected {EXPECTED_DOCUMENTS} distinct line numbers, found {len(numbers)} "
            f"({len(set(numbers))} distinct)",
        )
        return None
    return numbers


def output_lines(files: ReleaseFiles, name: str) -> list[str] | None:
    """An output file's lines, one per document in document-id order, or None after an issue.

    Args:
        files: the release; a missing or malformed file becomes its issue.
        name: the file under the outputs folder (e.g. ``abs/bart/out.txt``).

    Returns:
        Exactly 100 lines (the last one's line end is optional).
    """
    lines = files.read_lines(name, max_bytes=MAX_TEXT_BYTES)
    if lines is None:
        return None
    if lines and not lines[-1]:  # the last line's end, which the release's files leave out
        lines = lines[:-1]
    if len(lines) != EXPECTED_DOCUMENTS:
        files.issue(name, f"{len(lines)} lines; expected one per document ({EXPECTED_DOCUMENTS})")
        return None
    return lines


class OutputTexts:
    """The release's output files (under ``selected_docs_for_human_eval/``), each read once, so
    a broken one is reported once however many checks read it."""

    def __init__(self, files: ReleaseFiles):
        self.files = files
        self._read: dict[str, list[str] | None] = {}

    def name(self, text: str) -> str:
        """The file's path relative to the release root."""
        return f"{OUTPUTS_DIR}/{text}"

    def lines(self, text: str) -> list[str] | None:
        """:func:`output_lines` of ``text`` (a path under the outputs folder), read once."""
        if text not in self._read:
            self._read[text] = output_lines(self.files, self.name(text))
        return self._read[text]
