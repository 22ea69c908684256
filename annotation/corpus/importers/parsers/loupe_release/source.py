"""Where a Loupe release's members are read from: its folder, or its .zip or .tar.gz archive."""

from __future__ import annotations

import hashlib
import tarfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from annotation.imports.bundle import ImportValidationError, Issue, Location

from .layout import MANIFEST

ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz")
CHUNK = 1 << 20


def _is_archive(path: Path) -> bool:
    return path.is_file() and path.name.endswith(ARCHIVE_SUFFIXES)


class ReleaseSource:
    """A release's members by their path inside the release (``documents.jsonl``, ...)."""

    label: str

    def names(self) -> set[str]:
        """Every member's path, relative to the release's root folder."""
        raise NotImplementedError

    @contextmanager
    def open(self, name: str) -> Iterator[BinaryIO]:
        """Open one member for reading bytes.

        Args:
            name: its path inside the release.

        Returns:
            A context manager giving a binary file.
        """
        raise NotImplementedError
        yield  # pragma: no cover

    def digest(self, name: str) -> tuple[int, str]:
        """Read a member through and hash it.

        Args:
            name: its path inside the release.

        Returns:
            ``(size in bytes, SHA-256 hex)``.
        """
        sha, size = hashlib.sha256(), 0
        with self.open(name) as handle:
            while chunk := handle.read(CHUNK):
                sha.update(chunk)
                size += len(chunk)
        return size, sha.hexdigest()

    def close(self) -> None:
        """Release what the source holds open (an archive)."""


class FolderSource(ReleaseSource):
    """An unpacked release: a folder holding ``manifest.json`` and the members."""

    def __init__(self, root: Path):
        self.root = root
        self.label = str(root)

    def names(self) -> set[str]:
        return {
            path.relative_to(self.root).as_posix()
            for path in self.root.rglob("*")
            if path.is_file() and not path.is_symlink()
        }

    @contextmanager
    def open(self, name: str) -> Iterator[BinaryIO]:
        with (self.root / name).open("rb") as handle:
            yield handle


class ArchiveSource(ReleaseSource):
    """A release archive as Loupe writes it: every member under one folder ``<slug>-v<n>/``.

    Members are read in place (nothing is extracted); links and special files are ignored.
    """

    def __init__(self, path: Path):
        self.label = str(path)
        self.zip: zipfile.ZipFile | None = None
        self.tar: tarfile.TarFile | None = None
        if path.name.endswith(".zip"):
            self.zip = zipfile.ZipFile(path)
            names = [info.filename for info in self.zip.infolist() if not info.is_dir()]
        else:
            self.tar = tarfile.open(path, "r:gz")  # noqa: SIM115 - closed by close()
            names = [member.name for member in self.tar.getmembers() if member.isfile()]
        roots = {PurePosixPath(name).parts[0] for name in names if len(PurePosixPath(name).parts)}
        if len(roots) != 1 or any(len(PurePosixPath(name).parts) < 2 for name in names):
            self.close()
            raise ImportValidationError(
                [Issue(Location(self.label), "the archive must hold one folder with the release")]
            )
        self.prefix = roots.pop() + "/"
        self.members = {name.removeprefix(self.prefix): name for name in names}

    def names(self) -> set[str]:
        return set(self.members)

    @contextmanager
    def open(self, name: str) -> Iterator[BinaryIO]:
        if self.zip is not None:
            with self.zip.open(self.members[name]) as handle:
                yield handle
        else:
            handle = self.tar.extractfile(self.members[name])
            try:
                yield handle
            finally:
                handle.close()

    def close(self) -> None:
        for archive in (self.zip, self.tar):
            if archive is not None:
                archive.close()


def open_release(path: Path) -> ReleaseSource:
    """Find the release at ``path``.

    Args:
        path: the release's folder (holding ``manifest.json``); a folder holding exactly one
            such folder (an unpacked archive, as ``export_release --out`` writes it); else a
            folder holding exactly one release archive (``releases/<dataset>/<version>/`` as
            Loupe stores it); or the archive itself.

    Returns:
        The source to read the members from (close it when done).

    Raises:
        ImportValidationError: nothing at ``path`` looks like a Loupe release.
    """
    path = Path(path)
    if _is_archive(path):
        return ArchiveSource(path)
    if path.is_dir():
        if (path / MANIFEST).is_file() and len(list(path.glob("*.jsonl"))):
            return FolderSource(path)
        folders = [p for p in path.iterdir() if p.is_dir() and (p / MANIFEST).is_file()]
        archives = [p for p in path.iterdir() if _is_archive(p)]
        if len(folders) == 1:
            return FolderSource(folders[0])
        if len(archives) == 1 and not folders:
            return ArchiveSource(archives[0])
    raise ImportValidationError(
        [
            Issue(
                Location(str(path)),
                f"no Loupe release here: expected a folder with {MANIFEST} and the release's "
                "files, or one .zip or .tar.gz release archive",
            )
        ]
    )
