"""PolyTope outputs without a story id (TextRank files, BART lines), placed by trial or content."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from annotation.imports.bundle import Location, OutputRecord

from .outputs import _output
from .records import _Doc, _Log, _Loose
from .release import _SYSTEM, BART_FILE, SAME_STORY_OVERLAP, TEXTRANK_FOLDER
from .text import _containment, _key, _words
from .trials import _content, _read, _trial_paths


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
