"""What changed between two releases: an index of every item's digest, and the diff summary.

Each release keeps, beside its archive, ``items.tsv.gz``: one line ``kind<TAB>key<TAB>digest``
per document, system output, FAM and span annotation it holds (the digest is the first 16 hex
digits of the SHA-256 of the item's line in its member). The next release compares its own
index with it: an item is added (a key only it has), removed (a key only the previous one
has) or changed (same key, other digest).
"""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

INDEX = "items.tsv.gz"
KINDS = ("documents", "outputs", "fams", "spans")


class ItemIndex:
    """Digests of a release's items by kind and key, kept compact (16 hex digits each)."""

    def __init__(self):
        self.items: dict[str, dict[str, str]] = {kind: {} for kind in KINDS}

    def add(self, kind: str, key: str, line: bytes) -> None:
        """Record one item.

        Args:
            kind: ``documents``, ``outputs``, ``fams`` or ``spans``.
            key: what identifies it across releases (a document id, ``system/document``, ...).
            line: its bytes in the member.
        """
        self.items[kind][key] = hashlib.sha256(line).hexdigest()[:16]

    def save(self, path: Path) -> None:
        """Write the index (sorted, gzip without a time stamp).

        Args:
            path: the file to write.
        """
        with (
            path.open("wb") as raw,
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as handle,
        ):
            for kind in KINDS:
                for key in sorted(self.items[kind]):
                    handle.write(f"{kind}\t{key}\t{self.items[kind][key]}\n".encode())

    @classmethod
    def load(cls, path: Path) -> ItemIndex:
        """Read an index written by :meth:`save`.

        Args:
            path: the file.

        Returns:
            The index.
        """
        index = cls()
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                kind, key, digest = line.rstrip("\n").split("\t")
                index.items.setdefault(kind, {})[key] = digest
        return index

    def counts(self) -> dict[str, int]:
        """How many items of each kind."""
        return {kind: len(self.items[kind]) for kind in KINDS}


def items_diff(previous: ItemIndex, current: ItemIndex, *, version: int) -> dict:
    """Count what was added, changed and removed since ``previous``.

    Args:
        previous: the earlier release's index.
        current: this release's index.
        version: the earlier release's version.

    Returns:
        ``{"previous_version": n, "<kind>": {"added", "changed", "removed", "unchanged"}}`` for
        documents, outputs, FAMs and spans.
    """
    summary: dict = {"previous_version": version}
    for kind in KINDS:
        before, after = previous.items.get(kind, {}), current.items[kind]
        common = before.keys() & after.keys()
        changed = sum(1 for key in common if before[key] != after[key])
        summary[kind] = {
            "added": len(after.keys() - before.keys()),
            "changed": changed,
            "removed": len(before.keys() - after.keys()),
            "unchanged": len(common) - changed,
        }
    return summary
