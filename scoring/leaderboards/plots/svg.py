"""SVG primitives for the plots: escaping, coordinates, elements, the document and "no data"."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Mapping, Sequence

WIDTH = 640
HEIGHT = 420
FONT = "sans-serif"
INK = "#222222"
MUTED = "#555555"
GRID = "#e3e3e3"

# Okabe & Ito (2008), colour-blind safe; yellow (low contrast on white) and black come last.
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#000000",
    "#F0E442",
)

# Characters XML 1.0 does not allow anywhere, not even escaped.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def clean(text: object) -> str:
    """``text`` as a string without the characters XML 1.0 cannot hold.

    Args:
        text: anything; None becomes the empty string.

    Returns:
        The cleaned string (still to be escaped).
    """
    return _INVALID_XML.sub("\ufffd", "" if text is None else str(text))


def esc(text: object) -> str:
    """Escape ``text`` for XML character data and double-quoted attribute values.

    Args:
        text: anything; converted with :func:`str`.

    Returns:
        The escaped string.
    """
    return (
        clean(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
    )


def px(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros.

    Args:
        value: a coordinate in user units.

    Returns:
        Its short, deterministic text.
    """
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def attrs(values: Mapping[str, object]) -> str:
    """Attributes as XML text; None values are left out, floats go through :func:`px`.

    Args:
        values: attribute names to values (names use ``_`` for ``-``: ``data_x`` -> ``data-x``).

    Returns:
        The text, starting with a space when not empty.
    """
    parts = []
    for name, value in values.items():
        if value is None:
            continue
        text = px(value) if isinstance(value, float) else str(value)
        parts.append(f' {name.rstrip("_").replace("_", "-")}="{esc(text)}"')
    return "".join(parts)


def el(tag: str, children: Iterable[str] | str = (), /, **attributes: object) -> str:
    """One element; ``children`` are markup, except a plain string which is text to escape.

    Args:
        tag: the element name.
        children: child markup strings, or one text string.
        **attributes: see :func:`attrs`.

    Returns:
        The element's markup.
    """
    body = esc(children) if isinstance(children, str) else "".join(children)
    if not body:
        return f"<{tag}{attrs(attributes)}/>"
    return f"<{tag}{attrs(attributes)}>{body}</{tag}>"


def text(x: float, y: float, content: str, **attributes: object) -> str:
    """A ``<text>`` element at (x, y) with the plot's default font settings.

    Args:
        x: anchor x.
        y: baseline y.
        content: the text (escaped here).
        **attributes: more attributes; ``font_size`` defaults to 12, ``fill`` to the ink colour.

    Returns:
        The element's markup.
    """
    attributes = {"font_size": 12, "fill": INK, **attributes}
    return el("text", content, x=float(x), y=float(y), **attributes)


def document(kind: str, title: str, desc: str, body: Sequence[str], height: float = HEIGHT) -> str:
    """A complete, self-contained SVG document: title text, ``<title>``, ``<desc>`` and ``body``.

    Args:
        kind: the chart kind, a class name of the root (``scatter``, ``bars``, ...).
        title: the visible and accessible title.
        desc: the accessible summary of the data.
        body: the marks' markup.
        height: the height of the drawing (the width is fixed).

    Returns:
        The SVG document.
    """
    digest = hashlib.sha1("\n".join((kind, title, desc, *body)).encode()).hexdigest()[:10]
    ident = f"loupe-{kind}-{digest}"
    height = float(math.ceil(height))
    root = el(
        "svg",
        [
            el("title", title, id=f"{ident}-title"),
            el("desc", desc, id=f"{ident}-desc"),
            el("rect", x=0, y=0, width=WIDTH, height=height, fill="#ffffff"),
            text(WIDTH / 2, 24, title, font_size=15, font_weight="bold", text_anchor="middle"),
            *body,
        ],
        xmlns="http://www.w3.org/2000/svg",
        role="img",
        aria_labelledby=f"{ident}-title {ident}-desc",
        class_=f"loupe-plot {kind}",
        width=WIDTH,
        height=height,
        viewBox=f"0 0 {WIDTH} {px(height)}",
        font_family=FONT,
    )
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + root + "\n"


def no_data(title: str, message: str = "No data") -> str:
    """The SVG drawn when nothing can be plotted: the title and a centred message.

    Args:
        title: the plot's title.
        message: the message shown.

    Returns:
        The SVG document (its root has the class ``empty``).
    """
    box = el(
        "rect",
        x=24,
        y=44,
        width=WIDTH - 48,
        height=HEIGHT - 68,
        fill="#fafafa",
        stroke=GRID,
    )
    note = text(
        WIDTH / 2,
        HEIGHT / 2 + 10,
        message,
        class_="no-data",
        font_size=16,
        fill=MUTED,
        text_anchor="middle",
    )
    return document("empty", title, f"{message}: nothing to plot.", [box, note])
