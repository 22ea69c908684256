"""The two score pickles, read with the restricted unpickler and checked shape by shape.

The expected shape (protocol 3) is ``{doc_id: {"doc_id", "ref_summ", "system_summaries":
{"<system>_<variant>.txt": {"system_summary", "scores": {key: float}}}}}``. The check walks only
that shape, so a hostile file's size or nesting never costs more than the release's own, and a
message never prints more of a wrong value than its type or a short excerpt.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from ...release_files import ReleaseFiles
from ...safe_pickle import REALSUMM_GLOBALS
from .release import (
    DOCUMENT_KEYS,
    EXPECTED_DOCUMENTS,
    LITEPYRAMID,
    MAX_PICKLE_BYTES,
    SCORE_KEYS,
    SUMMARY_KEYS,
)
from .texts import tagged_sentences

# Problems listed per file; a file wrong everywhere gets this many and a count of the rest.
MAX_ISSUES_PER_FILE = 20


@dataclass(frozen=True)
class Summary:
    """One released summary: its text as released and its 15 scores as plain floats."""

    text: str
    scores: dict[str, float]


@dataclass
class ScoresDict:
    """One checked pickle: each document's reference and each system entry's summaries."""

    file: str
    references: dict[int, str] = field(default_factory=dict)
    summaries: dict[str, dict[int, Summary]] = field(default_factory=dict)


def _what(value: object) -> str:
    """A short description of a wrong value: never its whole text or structure."""
    if isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value[:40] + ("..." if len(value) > 40 else ""))
    return f"a {type(value).__name__}"


class _Problems:
    """Issues of one file, at most :data:`MAX_ISSUES_PER_FILE` of them and then a count."""

    def __init__(self, files: ReleaseFiles, name: str):
        self.files, self.name, self.count = files, name, 0

    def __call__(self, message: str, where: str | None = None) -> None:
        self.count += 1
        if self.count <= MAX_ISSUES_PER_FILE:
            self.files.issue(self.name, message, where=where)

    def close(self) -> None:
        if self.count > MAX_ISSUES_PER_FILE:
            more = self.count - MAX_ISSUES_PER_FILE
            self.files.issue(self.name, f"and {more} more problem(s) of the same kinds")


def _keys_problem(found: Mapping, wanted: frozenset) -> str | None:
    """How a dict's keys differ from the wanted ones (a few named), or None."""
    if not all(isinstance(key, str) for key in found):
        return "has keys that are not strings"
    if found.keys() == wanted:
        return None
    missing, extra = sorted(wanted - found.keys()), sorted(found.keys() - wanted)
    parts = [
        f"missing {missing[:5]}" if missing else "",
        f"unexpected {extra[:5]}" if extra else "",
    ]
    return ", ".join(p for p in parts if p) + f" ({len(missing)} missing, {len(extra)} unexpected)"


def _shaped(value: object, keys: frozenset, what: str, where: str, problem) -> dict | None:
    """``value`` if it is a dict with exactly ``keys``; else None after naming the problem."""
    if not isinstance(value, dict):
        problem(f"expected a dict ({what}), got {_what(value)}", where)
        return None
    wrong = _keys_problem(value, keys)
    if wrong:
        problem(f"{what}: {wrong}", where)
        return None
    return value


def _scores(value: object, where: str, problem: _Problems) -> dict[str, float] | None:
    value = _shaped(value, SCORE_KEYS, "the scores", where, problem)
    if value is None:
        return None
    scores = {}
    for key in sorted(value):
        number = value[key]
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            problem(f"{key} is {_what(number)}, not a number", where)
            return None
        if not math.isfinite(number):
            problem(f"{key} is {number!r}, not a finite number", where)
            return None
        scores[key] = float(number)
    if not 0.0 <= scores[LITEPYRAMID] <= 1.0:
        problem(f"{LITEPYRAMID} is {scores[LITEPYRAMID]!r}, outside [0, 1]", where)
        return None
    return scores


def _summary(value: object, where: str, problem: _Problems) -> Summary | None:
    value = _shaped(value, SUMMARY_KEYS, "the system entry", where, problem)
    if value is None:
        return None
    text = value["system_summary"]
    if not isinstance(text, str) or not tagged_sentences(text):
        problem(f"system_summary is {_what(text)}, not a non-empty text", where)
        return None
    scores = _scores(value["scores"], f"{where}['scores']", problem)
    return None if scores is None else Summary(text, scores)


def _document(
    checked: ScoresDict, doc_id: int, value: object, systems: frozenset, problem: _Problems
) -> None:
    where = f"[{doc_id}]"
    value = _shaped(value, DOCUMENT_KEYS, "the document", where, problem)
    if value is None:
        return
    if type(value["doc_id"]) is not int or value["doc_id"] != doc_id:
        problem(f"doc_id is {_what(value['doc_id'])}, not its key {doc_id}", where)
    reference = value["ref_summ"]
    if not isinstance(reference, str) or not tagged_sentences(reference):
        problem(f"ref_summ is {_what(reference)}, not a non-empty text", where)
    else:
        checked.references[doc_id] = reference
    where = f"{where}['system_summaries']"
    entries = _shaped(value["system_summaries"], systems, "the systems", where, problem)
    if entries is None:
        return
    for key in sorted(entries):
        summary = _summary(entries[key], f"{where}[{key!r}]", problem)
        if summary is not None:
            checked.summaries.setdefault(key, {})[doc_id] = summary


def read_scores_dict(files: ReleaseFiles, name: str, systems: frozenset[str]) -> ScoresDict | None:
    """Load one pickle with the restricted unpickler and check its whole shape.

    Only ``numpy.dtype`` and numpy's float scalar are admitted (see
    :data:`~annotation.corpus.importers.safe_pickle.REALSUMM_GLOBALS`); a larger file than
    :data:`MAX_PICKLE_BYTES` is not read. The documents must be the ids ``0..99``, each with the
    same system entries ``systems`` and each entry with a non-empty summary and the 15 finite
    scores (LitePyramid recall in [0, 1]).

    Args:
        files: the release; every problem becomes one of its issues (at most
            :data:`MAX_ISSUES_PER_FILE` per file, then a count).
        name: the pickle, relative to the release root.
        systems: the entries the file must hold for every document.

    Returns:
        The checked contents, or None when nothing of the file is usable (any problem).
    """
    data = files.load_pickle(name, allowed=REALSUMM_GLOBALS, max_bytes=MAX_PICKLE_BYTES)
    if data is None:
        return None
    problem = _Problems(files, name)
    wanted = set(range(EXPECTED_DOCUMENTS))
    if not isinstance(data, dict):
        problem(f"expected a dict of documents, got {_what(data)}")
    elif len(data) != EXPECTED_DOCUMENTS or data.keys() != wanted:
        ids = sorted((k for k in data if type(k) is int), key=int)[:5]
        problem(
            f"expected the document ids 0..{EXPECTED_DOCUMENTS - 1}, found {len(data)} keys "
            f"(first integer ones: {ids})"
        )
    else:
        checked = ScoresDict(name)
        for doc_id in range(EXPECTED_DOCUMENTS):
            _document(checked, doc_id, data[doc_id], systems, problem)
    problem.close()
    return None if problem.count else checked
