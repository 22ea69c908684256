"""One summary's judgements: each worker slot's rows become errors, a clean mark or nothing."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from annotation.imports.bundle import Location, ReportLine

from .offsets import CLIPPED, PLACED, UNPLACED, matching_conventions, place_span
from .release import HALLUCINATIONS_FILE, NULL, WORKERS
from .rows import Row


@dataclass(frozen=True)
class Judgement:
    """One worker slot's judgement of one summary: raw span errors, or the no-errors mark."""

    errors: tuple[dict, ...]
    no_errors: bool
    line: int  # the worker's first row


@dataclass
class Tally:
    """Counts over the whole release for the import report (``rows`` by what became of them)."""

    rows: Counter = field(default_factory=Counter)
    notes: list[ReportLine] = field(default_factory=list)

    def note(self, row: Row, field_name: str, message: str) -> None:
        self.notes.append(ReportLine(Location(HALLUCINATIONS_FILE, row.line, field_name), message))


def _who(row: Row) -> str:
    return f"{row.system} summary of {row.bbcid}, {row.worker}"


def _error(row: Row, tally: Tally) -> dict:
    placement = place_span(row.summary, row.span, row.start, row.end)
    tally.rows[placement.kind] += 1
    if placement.kind != UNPLACED:
        return {
            "side": "summary",
            "start": placement.start,
            "end": placement.end,
            "words": placement.words,
            "type": row.type,
        }
    others = matching_conventions(row.summary, row.span, row.start, row.end)
    tally.note(
        row,
        "hallucinated_span_start",
        f"{_who(row)}: offsets [{row.start}, {row.end}) do not give the span {row.span!r} under "
        "the release's convention"
        + (f" (they do under {', '.join(others)})" if others else " nor any other")
        + f"; kept as an {row.type} error with its words and no position",
    )
    return {"side": "none", "words": placement.words, "type": row.type}


def _worker(rows: Sequence[Row], tally: Tally) -> Judgement | None:
    errors: list[dict] = []
    seen: set[tuple] = set()
    clean: list[Row] = []
    typeless: list[Row] = []
    for row in rows:
        if row.type is None:
            if row.span == NULL and row.start == row.end == -1:
                clean.append(row)
            else:
                typeless.append(row)
            continue
        error = _error(row, tally)
        key = tuple(sorted(error.items()))
        if key in seen:
            tally.rows["duplicate"] += 1
            tally.note(row, "hallucinated_span", f"{_who(row)}: repeats an earlier row; kept once")
            continue
        seen.add(key)
        errors.append(error)
    for row in typeless:
        tally.rows["typeless"] += 1
        tally.note(
            row,
            "hallucination_type",
            f"{_who(row)}: type {NULL} with the words {row.span!r} and offsets "
            f"[{row.start}, {row.end}): no type, so not stored"
            + ("" if errors or clean else "; this worker's judgement of the summary is left out"),
        )
    if errors:
        for row in clean:
            tally.rows["no-span beside spans"] += 1
            tally.note(
                row,
                "hallucination_type",
                f"{_who(row)}: a no-span row beside this worker's spans; the spans are kept",
            )
        return Judgement(tuple(errors), False, rows[0].line)
    if clean:
        tally.rows["no span"] += len(clean)
        return Judgement((), True, rows[0].line)
    return None


def judgements(rows: Sequence[Row], tally: Tally) -> dict[str, Judgement]:
    """Each worker slot's judgement of one summary.

    A typed row is a span (placed by :func:`place_span`; an exact repeat is kept once); a row
    with type NULL, span NULL and offsets -1 says the worker marked nothing (``no_errors``)
    unless the same worker marked spans too. A NULL-typed row with words cannot be stored (no
    type); a worker with only such rows has no judgement. Every such case is noted in ``tally``.

    Args:
        rows: the rows of one summary (one bbcid and system), in file order.
        tally: counts and report lines, updated.

    Returns:
        ``{worker: Judgement}`` for the workers with a storable judgement.
    """
    by_worker: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_worker[row.worker].append(row)
    found = {}
    for worker in WORKERS:
        if worker not in by_worker:
            first = rows[0]
            tally.rows["missing worker"] += 1
            tally.notes.append(
                ReportLine(
                    Location(HALLUCINATIONS_FILE, first.line, "worker_id"),
                    f"{first.system} summary of {first.bbcid}: no row of {worker}",
                )
            )
            continue
        judgement = _worker(by_worker[worker], tally)
        if judgement is not None:
            found[worker] = judgement
    return found


__all__ = ["CLIPPED", "PLACED", "UNPLACED", "Judgement", "Tally", "judgements"]
