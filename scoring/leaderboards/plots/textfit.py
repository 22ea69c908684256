"""Text measured for layout: an upper bound of its width, and cutting or wrapping it to fit."""

from __future__ import annotations

# Advance widths of printable ASCII (space to tilde) in thousandths of an em: the larger of
# DejaVu Sans and Liberation Sans (Arial's and Helvetica's metrics), the fonts "sans-serif" is on
# most systems, as Chromium measures them. A few other characters the plots print follow; any
# other character counts as a full em. Layout that keeps to these widths holds in either font.
_ASCII_WIDTHS = (
    (318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337)
    + (636,) * 10
    + (337, 337, 838, 838, 838, 556, 1015)
    + (684, 686, 722, 770, 667, 611, 778, 752, 295, 500, 667, 557, 863)
    + (748, 787, 667, 787, 722, 667, 611, 732, 684, 989, 685, 667, 685)
    + (390, 337, 390, 838, 556, 500)
    + (613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974)
    + (634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525)
    + (636, 337, 636, 838)
)
_WIDTHS = {chr(32 + i): width for i, width in enumerate(_ASCII_WIDTHS)}
_WIDTHS.update({"\u00a0": 318, "\u00b7": 318, "\u00d7": 838, "\u2013": 556, "\u25c7": 769})


def text_width(content: str, size: float = 12) -> float:
    """An upper bound of the width of ``content`` in a sans-serif font, for layout.

    Args:
        content: the text.
        size: the font size.

    Returns:
        The width in user units if drawn in DejaVu Sans or Liberation Sans (see ``_WIDTHS``).
    """
    return size * sum(_WIDTHS.get(char, 1000) for char in content) / 1000


def truncate(content: str, limit: int) -> str:
    """``content`` cut to ``limit`` characters with an ellipsis when longer.

    Args:
        content: the text.
        limit: the most characters kept (ellipsis included).

    Returns:
        The possibly shortened text.
    """
    return content if len(content) <= limit else content[: limit - 1] + "\u2026"


def fit(content: str, width: float, size: float = 12) -> str:
    """``content`` cut with an ellipsis until :func:`text_width` says it is at most ``width``.

    Args:
        content: the text.
        width: the room in user units.
        size: the font size.

    Returns:
        The text, whole when it fits; else its longest fitting start and an ellipsis.
    """
    if text_width(content, size) <= width:
        return content
    room = width - text_width("\u2026", size)
    kept = ""
    for char in content:
        if text_width(kept + char, size) > room:
            break
        kept += char
    return kept.rstrip() + "\u2026"


def wrap(content: str, width: float, size: float = 12) -> list[str]:
    """``content`` broken at spaces into lines of at most ``width`` (see :func:`text_width`).

    Args:
        content: the text.
        width: the room per line in user units.
        size: the font size.

    Returns:
        The lines; a word longer than a line is cut with :func:`fit`.
    """
    lines: list[str] = []
    for word in content.split():
        if lines and text_width(f"{lines[-1]} {word}", size) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(fit(word, width, size))
    return lines
