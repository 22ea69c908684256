"""Deterministic release files: canonical JSON lines, hashed as written, and fixed-date archives.

Nothing here holds a whole member in memory. Members are written line by line into a staging
folder while their SHA-256 and size are computed; the archive is then streamed from the staged
files in chunks. Every archive entry gets the same date (1980-01-01), owner and mode, and the
gzip header no name or time, so the same members always give the same archive bytes.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import shutil
import tarfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from annotation.corpus.importers.parsers.loupe_release.layout import MEMBER_DATE, MEMBER_EPOCH

CHUNK = 1 << 20
ZIP_LEVEL = 6
GZIP_LEVEL = 6
# openpyxl stamps a workbook with the time it was made and saved: both become this date.
XLSX_DATE = "1980-01-01T00:00:00Z"
_XLSX_STAMPS = re.compile(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)")


def canonical_json(value) -> str:
    """The one JSON text of ``value``: sorted keys, no spaces, UTF-8 characters kept.

    Args:
        value: a JSON-ready value.

    Returns:
        The text (no newline).
    """
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Member:
    """A written member: its path in the release, size in bytes, SHA-256 and JSONL rows."""

    path: str
    size: int
    sha256: str
    rows: int | None = None

    def as_manifest(self) -> dict:
        entry = {"path": self.path, "size": self.size, "sha256": self.sha256}
        if self.rows is not None:
            entry["rows"] = self.rows
        return entry


class MemberWriter:
    """Writes one member to the staging folder, hashing every byte on the way."""

    def __init__(self, root: Path, path: str):
        self.path = path
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        self.handle = target.open("wb")
        self.sha = hashlib.sha256()
        self.size = 0
        self.rows = 0

    def write_bytes(self, data: bytes) -> None:
        """Append raw bytes."""
        self.handle.write(data)
        self.sha.update(data)
        self.size += len(data)

    def write_text(self, text: str) -> None:
        """Append UTF-8 text."""
        self.write_bytes(text.encode("utf-8"))

    def write_line(self, value) -> bytes:
        """Append ``value`` as one canonical JSON line.

        Args:
            value: a JSON-ready value.

        Returns:
            The line's bytes (newline included), for the caller's item index.
        """
        line = (canonical_json(value) + "\n").encode("utf-8")
        self.write_bytes(line)
        self.rows += 1
        return line

    def close(self, *, jsonl: bool = False) -> Member:
        """Finish the member.

        Args:
            jsonl: record its row count in the manifest.

        Returns:
            The :class:`Member`.
        """
        self.handle.close()
        return Member(self.path, self.size, self.sha.hexdigest(), self.rows if jsonl else None)


def file_sha256(path: Path) -> tuple[int, str]:
    """Size and SHA-256 of a file, read in chunks.

    Args:
        path: the file.

    Returns:
        ``(bytes, hex digest)``.
    """
    sha, size = hashlib.sha256(), 0
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            sha.update(chunk)
            size += len(chunk)
    return size, sha.hexdigest()


def _zip(staging: Path, names: Iterable[str], target: Path, root: str) -> None:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=ZIP_LEVEL) as archive:
        for name in names:
            source = staging / name
            info = zipfile.ZipInfo(f"{root}/{name}", date_time=MEMBER_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o100644 << 16
            info.create_system = 3  # Unix, whatever the platform
            info.file_size = source.stat().st_size  # lets zipfile choose zip64 up front
            with source.open("rb") as handle, archive.open(info, "w") as out:
                shutil.copyfileobj(handle, out, CHUNK)


def _tar_gz(staging: Path, names: Iterable[str], target: Path, root: str) -> None:
    with (
        target.open("wb") as raw,
        gzip.GzipFile(
            filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=GZIP_LEVEL
        ) as compressed,
        tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as archive,
    ):
        for name in names:
            source = staging / name
            info = tarfile.TarInfo(f"{root}/{name}")
            info.size = source.stat().st_size
            info.mtime = MEMBER_EPOCH
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            with source.open("rb") as handle:
                archive.addfile(info, handle)


def write_archive(
    *, staging: Path, names: Iterable[str], target: Path, archive: str, root: str
) -> None:
    """Stream the staged members into a ``zip`` or ``tar.gz`` archive under one folder.

    Args:
        staging: the folder the members were written to.
        names: the members' paths, in the order to store them.
        target: the archive file to write.
        archive: ``zip`` or ``tar.gz``.
        root: the folder inside the archive (``<dataset>-v<version>``).

    Raises:
        ValueError: another archive format.
    """
    if archive == "zip":
        _zip(staging, names, target, root)
    elif archive == "tar.gz":
        _tar_gz(staging, names, target, root)
    else:
        raise ValueError(f"archive must be zip or tar.gz, not {archive!r}")


def xlsx_fixed(data: bytes) -> bytes:
    """A workbook's bytes with its dates fixed, so the same sheets give the same file.

    openpyxl writes the time of creation and of saving into ``docProps/core.xml`` and the time
    of saving into every zip entry; both become 1980-01-01. Entries keep their order, names
    and compression.

    Args:
        data: an ``.xlsx`` file.

    Returns:
        The same workbook with fixed dates.
    """
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=ZIP_LEVEL) as target,
    ):
        for info in source.infolist():
            body = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = _XLSX_STAMPS.sub(rb"\g<1>" + XLSX_DATE.encode() + rb"\g<2>", body)
            fixed = zipfile.ZipInfo(info.filename, date_time=MEMBER_DATE)
            fixed.compress_type = info.compress_type
            fixed.external_attr = info.external_attr
            fixed.create_system = 3
            target.writestr(fixed, body)
    return out.getvalue()
