"""Parser for Loupe's own releases (``manage.py export_release``): ``--format loupe-release``.

See ``docs/formats.md`` ("Loupe releases") for the layout; :mod:`.layout` names its files.
"""

from .layout import FORMAT, FORMAT_VERSION
from .parse import parse_loupe_release

__all__ = ["FORMAT", "FORMAT_VERSION", "parse_loupe_release"]
