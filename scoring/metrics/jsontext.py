"""Bounded JSON: parse a text, refusing nesting deeper than a limit and saying where it went."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .errors import MetricsError

#: The deepest nesting Loupe accepts in any JSON it reads (request bodies, JSONL lines, release
#: manifests). Its own formats nest at most 6 levels (a FAM: facets, groups, sentences); 64
#: leaves room for any sensible client and keeps every later walk far from Python's recursion
#: limit (about 1,000), where ``json.loads`` itself gives up with a RecursionError.
MAX_DEPTH = 64

# A JSON string (escapes included) or one structural character: enough to follow the nesting.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]', re.DOTALL)
_PATH_SHOWN = 8  # path steps shown in a message; a longer path keeps its first and last ones


@dataclass(frozen=True)
class Nesting:
    """Where a JSON text first nests deeper than allowed.

    Attributes:
        path: the steps down to the first container too deep (keys and indices, e.g.
            ``("facets", 0, "groups", 0)``).
        depth: that container's depth (1 for the outermost value's container).
        limit: the deepest nesting allowed.
    """

    path: tuple[str | int, ...]
    depth: int
    limit: int

    def where(self) -> str:
        """The path as JSONPath (``$.facets[0].groups[0]``), long ones shortened in the middle.

        Returns:
            The path text.
        """
        steps = [f"[{step}]" if isinstance(step, int) else f".{step}" for step in self.path]
        if len(steps) > _PATH_SHOWN:
            steps = [
                *steps[: _PATH_SHOWN - 2],
                f"…({len(steps) - _PATH_SHOWN + 2} more)…",
                *steps[-2:],
            ]
        return "$" + "".join(steps)


class JsonTooDeepError(MetricsError):
    """A JSON text nests deeper than allowed; ``nesting`` says where."""

    def __init__(self, nesting: Nesting):
        super().__init__(
            f"JSON nested deeper than {nesting.limit} levels (depth {nesting.depth} at "
            f"{nesting.where()})"
        )
        self.nesting = nesting


def loads(text: str | bytes, *, limit: int = MAX_DEPTH):
    """Parse JSON like ``json.loads``, refusing nesting deeper than ``limit``.

    Texts with fewer than ``limit`` brackets (nearly all) cost one count of the brackets more
    than ``json.loads``; the others are scanned for their deepest container.

    Args:
        text: the JSON text.
        limit: the deepest nesting allowed.

    Returns:
        The parsed value.

    Raises:
        JsonTooDeepError: the text nests deeper than ``limit`` (checked before anything that
            could recurse that deep).
        json.JSONDecodeError: the text is not JSON.
    """
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")
    if text.count("[") + text.count("{") > limit:
        found = nesting(text, limit=limit)
        if found is not None:
            raise JsonTooDeepError(found)
    return json.loads(text)


def nesting(text: str, *, limit: int = MAX_DEPTH) -> Nesting | None:
    """Find the first container of ``text`` deeper than ``limit``, without parsing it.

    Args:
        text: a JSON text (malformed text is followed as far as its brackets go).
        limit: the deepest nesting allowed.

    Returns:
        Where the nesting first goes too deep, or None when it never does.
    """
    # One frame per open container: [index or key, expecting a key] (objects hold the key).
    stack: list[list] = []
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            stack.append([0, False] if token == "[" else [None, True])
            if len(stack) > limit:
                return Nesting(_path(stack[:-1]), len(stack), limit)
        elif token in "]}":
            if stack:
                stack.pop()
        elif token == ",":
            if stack:
                frame = stack[-1]
                if frame[1] is False and isinstance(frame[0], int):
                    frame[0] += 1
                else:
                    frame[1] = True
        elif token == ":":
            continue
        elif stack and stack[-1][1] is True:  # a string where an object's key is expected
            stack[-1] = [_key(token), None]
    return None


def _key(token: str) -> str:
    try:
        return json.loads(token)
    except ValueError:
        return token[1:-1]


def _path(frames: list[list]) -> tuple[str | int, ...]:
    return tuple(frame[0] for frame in frames)
