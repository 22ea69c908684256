"""Parts of a leaderboard's stamp that other scoring apps contribute (runs outside scoring jobs).

An app that writes per-document scores or leaderboard figures outside a ``ScoringJob`` (APES,
AutoFAR-L) registers a function here in its ``AppConfig.ready()``. The function returns a short
text that changes whenever its figures for the dataset change (e.g. the id and finish time of
its last finished run), so no snapshot computed before the change is served.
"""

from __future__ import annotations

from collections.abc import Callable

from annotation.corpus.models import Dataset

StampPart = Callable[[Dataset], str]
_PARTS: dict[str, StampPart] = {}


def stamp_part_register(*, name: str, part: StampPart) -> None:
    """Register (or replace) one named stamp part.

    Args:
        name: a unique name, e.g. the app's label.
        part: dataset -> text that changes when the app's figures for it change.
    """
    _PARTS[name] = part


def stamp_parts(*, dataset: Dataset) -> str:
    """Every registered part for a dataset, in name order, as one text.

    Args:
        dataset: the dataset.

    Returns:
        ``|name=text`` per registered part, in name order (empty when none is registered).
    """
    return "".join(f"|{name}={_PARTS[name](dataset)}" for name in sorted(_PARTS))
