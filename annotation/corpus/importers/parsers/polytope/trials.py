"""Reading the PolyTope per-trial files: fields, ``#name:`` sections and folders."""

from __future__ import annotations

import re
from pathlib import Path

from annotation.imports.bundle import ImportValidationError
from annotation.imports.readers import read_lines

from .records import Lines, _Log, _Section, _TrialFile
from .release import _BASE_SECTIONS, SECTION_SYSTEMS
from .text import _is_separator

_HEADER = re.compile(r"^#([A-Za-z][\w+\-]*):\s*$")
_FIELD = re.compile(r"^(index|hash):\s*(.*?)\s*$")
_HASH = re.compile(r"^[0-9a-f]{40}$")
_TRIAL_NAME = re.compile(r"^(\d+)_?\.txt$")
_ARROW_KEY = re.compile(r"\^\[\[[A-D]")  # an arrow key typed into the file, e.g. textrank/48_.txt


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
