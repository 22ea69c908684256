"""Unpack an uploaded release folder (a .zip or .tar.gz) into a temporary folder, safely.

Nothing of the archive can land outside that folder: absolute names, ``..``, links and other
special files are refused, and the unpacked size is capped (a zip-bomb guard). Every problem is
collected and raised at once as an :class:`ImportValidationError`, each naming its member.
"""

from __future__ import annotations

import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from annotation.imports.bundle import ImportValidationError, Issue, Location

# Reading a member can fail: encrypted (RuntimeError), unknown compression, bad CRC, I/O.
UNREADABLE = (
    OSError,
    EOFError,
    RuntimeError,
    NotImplementedError,
    zipfile.BadZipFile,
    tarfile.TarError,
    zlib.error,
)
CLUTTER = {"__MACOSX", ".DS_Store"}


def _human(n_bytes: int) -> str:
    return f"{n_bytes / (1024 * 1024):.1f} MB" if n_bytes >= 1024 * 1024 else f"{n_bytes} bytes"


def _unsafe(name: str) -> bool:
    return (
        name.startswith("/")
        or (len(name) > 1 and name[1] == ":")  # a Windows drive, C:...
        or ".." in PurePosixPath(name).parts
    )


def _clutter(name: str) -> bool:
    parts = PurePosixPath(name).parts
    return any(p in CLUTTER or p.startswith("._") for p in parts)


class _Unpacker:
    """Checks members one by one and copies the good ones below ``root``."""

    def __init__(self, root: Path, label: str, max_bytes: int, max_members: int):
        self.root, self.label = root, label
        self.max_bytes, self.max_members = max_bytes, max_members
        self.issues: list[Issue] = []
        self.total = self.count = 0

    def where(self, name: str) -> Location:
        return Location(f"{self.label}:{name}")

    def admit(self, name: str, size: int, regular: bool) -> bool:
        """Whether the member may be unpacked (an issue is recorded when it may not)."""
        if _unsafe(name):
            self.issues.append(Issue(self.where(name), "unsafe name (absolute or with '..')"))
            return False
        if _clutter(name):
            return False
        if not regular:
            self.issues.append(Issue(self.where(name), "not a regular file (a link?); refused"))
            return False
        self.count += 1
        self.total += size
        return True

    def copy(self, name: str, stream, size: int) -> None:
        target = self.root.joinpath(*PurePosixPath(name).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("wb") as out:
            # At most the declared size (plus one byte to notice a lie): no bomb through here.
            shutil.copyfileobj(_Limited(stream, size + 1), out)
        if target.stat().st_size > size:
            self.issues.append(Issue(self.where(name), "larger than its declared size"))

    def check_totals(self) -> None:
        if self.count > self.max_members:
            message = f"holds {self.count} files; the most an upload may hold is {self.max_members}"
            raise ImportValidationError([Issue(Location(self.label), message)])
        if self.total > self.max_bytes:
            raise ImportValidationError(
                [
                    Issue(
                        Location(self.label),
                        f"unpacks to {_human(self.total)}; the limit is {_human(self.max_bytes)} "
                        "(LOUPE_UPLOAD_MAX_BYTES)",
                    )
                ]
            )


class _Limited:
    """A read-only stream that yields at most ``limit`` bytes of another."""

    def __init__(self, stream, limit: int):
        self.stream, self.left = stream, limit

    def read(self, size: int = -1) -> bytes:
        if self.left <= 0:
            return b""
        size = self.left if size is None or size < 0 else min(size, self.left)
        data = self.stream.read(size)
        self.left -= len(data)
        return data


def _unzip(archive: zipfile.ZipFile, unpacker: _Unpacker) -> None:
    members = []
    for info in archive.infolist():
        name = info.filename.replace("\\", "/")
        if info.is_dir():
            continue
        # Unix file type bits, when the archiver wrote any (many write none, or only the
        # permissions): only a link or another special type is refused.
        kind = stat.S_IFMT(info.external_attr >> 16)
        regular = kind in (0, stat.S_IFREG)
        if unpacker.admit(name, info.file_size, regular):
            members.append((name, info))
    unpacker.check_totals()
    for name, info in members:
        try:
            with archive.open(info) as stream:
                unpacker.copy(name, stream, info.file_size)
        except UNREADABLE as error:
            unpacker.issues.append(Issue(unpacker.where(name), f"cannot be read ({error})"))


def _untar(archive: tarfile.TarFile, unpacker: _Unpacker) -> None:
    members = []
    for member in archive.getmembers():
        if member.isdir():
            continue
        if unpacker.admit(member.name, member.size, member.isfile()):
            members.append(member)
    unpacker.check_totals()
    for member in members:
        try:
            stream = archive.extractfile(member)
            if stream is None:
                raise OSError("no data")
            with stream:
                unpacker.copy(member.name, stream, member.size)
        except UNREADABLE as error:
            unpacker.issues.append(Issue(unpacker.where(member.name), f"cannot be read ({error})"))


def _root(folder: Path) -> Path:
    """The release folder inside the unpacked tree: single enclosing folders are stepped into."""
    while True:
        entries = [p for p in folder.iterdir() if not _clutter(p.name)]
        if len(entries) != 1 or not entries[0].is_dir():
            return folder
        folder = entries[0]


@contextmanager
def archive_unpacked(
    source: BinaryIO, *, label: str, max_bytes: int, max_members: int = 100_000
) -> Iterator[Path]:
    """Unpack a .zip or .tar(.gz, .bz2, .xz) upload of a release folder into a temporary folder.

    The kind of archive is read from its content, not its name. ``__MACOSX/``, ``.DS_Store``
    and ``._*`` files are skipped. When everything sits in one folder (``far-release/...``),
    that folder is the release's; the temporary folder is removed on leaving the block.

    Args:
        source: the uploaded file (seekable).
        label: its name, for messages (``release.zip:data/FAMs.pkl``).
        max_bytes: the largest total unpacked size.
        max_members: the most files it may hold.

    Yields:
        The release folder.

    Raises:
        ImportValidationError: not an archive, too large, an unsafe name, a link or special
            file, an unreadable member, or no file at all; each issue names its member.
    """
    with tempfile.TemporaryDirectory(prefix="loupe-import-") as tmp:
        root = Path(tmp) / "release"
        root.mkdir()
        unpacker = _Unpacker(root, label, max_bytes, max_members)
        source.seek(0)
        if zipfile.is_zipfile(source):
            source.seek(0)
            try:
                with zipfile.ZipFile(source) as archive:
                    _unzip(archive, unpacker)
            except (zipfile.BadZipFile, OSError) as error:
                raise ImportValidationError(
                    [Issue(Location(label), f"not a readable zip archive ({error})")]
                ) from error
        else:
            source.seek(0)
            try:
                with tarfile.open(fileobj=source, mode="r:*") as archive:
                    _untar(archive, unpacker)
            except (tarfile.TarError, EOFError, zlib.error, OSError) as error:
                raise ImportValidationError(
                    [
                        Issue(
                            Location(label),
                            "not a readable .zip or .tar.gz archive: pack the release folder "
                            f"as one ({error})",
                        )
                    ]
                ) from error
        if unpacker.issues:
            raise ImportValidationError(unpacker.issues)
        if not unpacker.count:
            raise ImportValidationError([Issue(Location(label), "the archive holds no file")])
        yield _root(root)
