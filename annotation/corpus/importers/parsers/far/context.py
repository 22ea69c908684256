"""Reading the FAR release files: the shared release reader, under the name FAR's modules use."""

from __future__ import annotations

from ...release_files import ReleaseFiles as _Context

__all__ = ["_Context"]
