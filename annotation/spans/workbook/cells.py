"""Cell text in and out of workbooks: formula-injection escaping, plain text from any cell value.

A spreadsheet program runs a text cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab
or carriage return before one) as a formula when a user edits or re-saves it, so exported text
that starts so is written with a leading apostrophe: ``'=cmd|' /C calc'!A0``. The apostrophe is
part of the stored text (the cell stays a string; nothing is run). Reading strips exactly one
such apostrophe again, so an export followed by an import gives the same text back. The rule is
a bijection: text matching ``'*`` then a dangerous character gains one apostrophe on the way out
and loses one on the way in; other text is never touched.

Characters XML cannot carry (control characters; a carriage return would come back as a line
feed) are written the way Excel writes them, ``_x000D_``, and a literal ``_xHHHH_`` in the text
as ``_x005F_xHHHH_``; reading decodes both (openpyxl leaves them as they are), so such text also
survives a round trip, and Excel shows it as it was.
"""

from __future__ import annotations

import datetime as dt
import re

# Characters that make a spreadsheet read a cell as a formula (OWASP's CSV-injection list).
DANGEROUS_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NEEDS_ESCAPE = re.compile(r"'*[=+\-@\t\r]")
_ESCAPED = re.compile(r"'+[=+\-@\t\r]")
# What XML cannot carry as it is (control characters, CR), and literal escapes: written _xHHHH_.
_ENCODE = re.compile(r"_x[0-9A-Fa-f]{4}_|[\000-\010\013\014\015\016-\037]")
_DECODE = re.compile(r"_x([0-9A-Fa-f]{4})_")
# Excel's limit on the characters of one cell.
MAX_CELL_CHARS = 32_767


def escape_text(text: str) -> str:
    """The text to write into a cell so that no spreadsheet runs it as a formula.

    Args:
        text: the plain text.

    Returns:
        ``text`` with one ``'`` in front when it starts (after any apostrophes) with ``=``,
        ``+``, ``-``, ``@``, a tab or a carriage return; otherwise ``text`` unchanged.
    """
    return "'" + text if _NEEDS_ESCAPE.match(text) else text


def unescape_text(text: str) -> str:
    """Undo :func:`escape_text` on text read from a cell.

    Args:
        text: a cell's text.

    Returns:
        ``text`` without its first ``'`` when it is apostrophes followed by a dangerous
        character; otherwise ``text`` unchanged.
    """
    return text[1:] if _ESCAPED.match(text) else text


def _encode(match: re.Match) -> str:
    found = match.group(0)
    return "_x005F" + found if len(found) > 1 else f"_x{ord(found):04X}_"


def writable_text(text: str) -> tuple[str, bool]:
    """The string to store in an XLSX cell for ``text``: escaped, encoded, at most 32,767 long.

    Args:
        text: the plain text.

    Returns:
        ``(cell text, cut)``: the escaped and ``_xHHHH_``-encoded text, and whether it had to be
        cut to Excel's 32,767 characters (then it ends with an ellipsis and is no longer exact).
    """
    stored = _ENCODE.sub(_encode, escape_text(text))
    if len(stored) > MAX_CELL_CHARS:
        return stored[: MAX_CELL_CHARS - 1] + "\u2026", True
    return stored, False


def cell_text(value: object) -> str | None:
    """A cell value as plain text: strings unescaped, whole floats without ``.0``.

    Args:
        value: what openpyxl read (str, int, float, bool, date/time, None or a formula
            object).

    Returns:
        The text (``_xHHHH_`` decoded, then unescaped), or None for an empty cell.
    """
    if value is None:
        return None
    if isinstance(value, str):
        return unescape_text(_DECODE.sub(lambda match: chr(int(match.group(1), 16)), value))
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    text = getattr(value, "text", None)  # an array formula read without its cached value
    return str(text if isinstance(text, str) else value)
