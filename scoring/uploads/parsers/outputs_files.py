"""Parser for system outputs as per-document files (`<doc_id>.txt`) in a directory or a zip."""

from __future__ import annotations

import os
import stat
import zipfile
import zlib
from collections.abc import Callable, Iterable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from annotation.imports.bundle import (
    ImportValidationError,
    Issue,
    Location,
    OutputRecord,
    ReportLine,
    SystemRecord,
)
from config.uploads import human_size
from scoring.uploads.parsers.outputs_jsonl import parse_output_records

SUFFIX = ".txt"
# Reading one member can fail: an encrypted member (RuntimeError), an unknown compression
# (NotImplementedError), a bad CRC (BadZipFile), corrupt deflate data (zlib.error), I/O.
UNREADABLE = (OSError, EOFError, RuntimeError, NotImplementedError, zipfile.BadZipFile, zlib.error)


@dataclass(frozen=True)
class _Member:
    """One file of the directory or archive: its name inside it, its size and how to read it."""

    name: str  # relative, with "/" separators
    size: int
    read: Callable[[], bytes]


def _skipped(name: str) -> bool:
    """Archive clutter that is ignored: ``__MACOSX/`` folders and dotfiles (``.DS_Store``)."""
    parts = PurePosixPath(name).parts
    return bool(parts) and (parts[0] == "__MACOSX" or any(p.startswith(".") for p in parts))


def _unsafe(name: str) -> bool:
    """Whether a member name (``/`` separators) could escape the folder it is unpacked into."""
    return (
        name.startswith("/")
        or (len(name) > 1 and name[1] == ":")  # a Windows drive, C:...
        or ".." in PurePosixPath(name).parts
    )


def _decode(data: bytes, where: Location, issues: list[Issue]) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        issues.append(
            Issue(
                Location(where.file, line),
                f"not valid UTF-8 (byte {error.start} of the file); save the file as UTF-8",
            )
        )
        return None
    return text.removeprefix("\ufeff")


def _records(
    members: Iterable[_Member], *, label: str, issues: list[Issue]
) -> list[tuple[Location, dict]]:
    """Check names and text of every member; return ``(location, record)`` for the good ones."""
    located: list[tuple[Location, dict]] = []
    first: dict[str, str] = {}
    for member in sorted(members, key=lambda m: m.name):
        where = Location(f"{label}:{member.name}")
        if _unsafe(member.name):
            issues.append(Issue(where, "unsafe file name (absolute or with '..'); refused"))
            continue
        if _skipped(member.name):
            continue
        basename = PurePosixPath(member.name).name
        if not basename.endswith(SUFFIX) or basename == SUFFIX:
            issues.append(
                Issue(
                    where,
                    f"only {SUFFIX} files are accepted, one per document named <doc_id>{SUFFIX}",
                )
            )
            continue
        doc_id = basename.removesuffix(SUFFIX)
        if doc_id in first:
            issues.append(
                Issue(
                    Location(where.file, field="doc_id"),
                    f"document id {doc_id!r} is given twice (first by {label}:{first[doc_id]})",
                )
            )
            continue
        first[doc_id] = member.name
        try:
            data = member.read()
        except UNREADABLE as error:
            issues.append(Issue(where, f"cannot be read ({error})"))
            continue
        text = _decode(data, where, issues)
        if text is None:
            continue
        sentences = [line.strip() for line in text.splitlines() if line.strip()]
        if not sentences:
            issues.append(
                Issue(
                    Location(where.file, field="sentences"),
                    "empty file: give one summary sentence per line",
                )
            )
            continue
        located.append((where, {"doc_id": doc_id, "sentences": sentences}))
    return located


def _parse(
    members: list[_Member],
    *,
    label: str,
    max_bytes: int,
    system: SystemRecord,
    documents: Mapping[str, tuple[str, ...]],
    report: list[ReportLine] | None,
    directory: bool = False,
) -> list[OutputRecord]:
    # Skipped members are never read, so they do not count.
    total = sum(m.size for m in members if not _skipped(m.name))
    if total > max_bytes:
        verb = "holds" if directory else "unpacks to"
        message = (
            f"{label} {verb} {human_size(total)} of files; the limit is "
            f"{human_size(max_bytes)} (LOUPE_UPLOAD_MAX_BYTES)"
        )
        raise ImportValidationError([Issue(Location(label), message)])
    issues: list[Issue] = []
    located = _records(members, label=label, issues=issues)
    if not located and not issues:
        issues.append(Issue(Location(label), f"no <doc_id>{SUFFIX} files found"))
    return parse_output_records(
        located, system=system, documents=documents, report=report, issues=issues
    )


def _zip_members(archive: zipfile.ZipFile) -> list[_Member]:
    def reader(info: zipfile.ZipInfo) -> Callable[[], bytes]:
        # zipfile stops at the declared size, so a lying header cannot unpack more than that.
        return lambda: archive.read(info)

    return [
        _Member(info.filename.replace("\\", "/"), info.file_size, reader(info))
        for info in archive.infolist()
        if not info.is_dir()
    ]


def _dir_members(root: Path, label: str) -> list[_Member]:
    """The regular files below ``root``; links and other special files are refused."""
    members, issues = [], []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        # os.walk lists a linked folder among the folders without entering it.
        for name in sorted(files + [d for d in dirs if (Path(folder) / d).is_symlink()]):
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            info = path.lstat()
            if stat.S_ISREG(info.st_mode):
                members.append(_Member(relative, info.st_size, path.read_bytes))
            elif not _skipped(relative):
                issues.append(
                    Issue(Location(f"{label}:{relative}"), "not a regular file (a link?)")
                )
    if issues:
        raise ImportValidationError(issues)
    return members


def _open_zip(source: Path | BinaryIO, label: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(source)
    except FileNotFoundError as error:
        raise ImportValidationError([Issue(Location(label), "file not found")]) from error
    except (zipfile.BadZipFile, OSError) as error:
        raise ImportValidationError(
            [Issue(Location(label), f"not a readable zip archive ({error})")]
        ) from error


def parse_outputs_files(
    source: Path | BinaryIO,
    *,
    file: str,
    max_bytes: int,
    system: SystemRecord,
    documents: Mapping[str, tuple[str, ...]],
    report: list[ReportLine] | None = None,
) -> list[OutputRecord]:
    """Parse per-document files, ``<doc_id>.txt`` with one summary sentence per line.

    ``source`` is a directory or a zip archive of such files. They may sit in sub-folders;
    ``__MACOSX/`` and dotfiles are ignored. Blank lines are skipped and each other line is one
    sentence; for an extractive system the sentences are mapped to document sentences like
    JSONL text.

    Args:
        source: a directory path, or a zip as a path or a seekable binary file (an upload).
        file: the name used in error messages: a member is ``outputs.zip:doc-7.txt``.
        max_bytes: the largest total (uncompressed) size of the files: a zip-bomb guard.
        system: the system these outputs belong to.
        documents: sentences of every known document, by external id.
        report: where low-confidence mappings are listed (optional).

    Returns:
        One :class:`OutputRecord` per file.

    Raises:
        ImportValidationError: not a zip, too large, an unsafe (absolute, ``..``) or non-.txt
            name, a link in a directory, two files for one document id, bad UTF-8, an
            unreadable member, an empty file, or a record the JSONL rules refuse; each issue
            names the file. Unknown document ids are left to the validators.
    """
    directory = isinstance(source, Path) and source.is_dir()
    with ExitStack() as stack:
        if directory:
            members = _dir_members(source, file)
        else:
            members = _zip_members(stack.enter_context(_open_zip(source, file)))
        return _parse(
            members,
            label=file,
            max_bytes=max_bytes,
            system=system,
            documents=documents,
            report=report,
            directory=directory,
        )
