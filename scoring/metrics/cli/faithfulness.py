"""``faithfulness``: word-level faithfulness of summaries from annotators' spans, by either rule."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..spans.faithfulness import (
    DEFAULT_RULE,
    RULE_DESCRIPTIONS,
    RULES,
    FaithfulnessError,
    faithfulness_detail,
)
from .base import CliError, Output, fmt, read_jsonl, read_text, required

DESCRIPTION = """\
Faithfulness (Maynez et al. 2020, the XSum hallucination release): each word of a summary (a
run of non-white-space characters) scores 1 unless an annotator's span marks it; the score is
the mean over the annotators and the words. --rule says when a span marks a word.
"""

EPILOG = f"""\
SUMMARIES.jsonl, one JSON object per summary; "spans" has one list per annotator, each span
[start, end) character offsets into "summary" (0-based, end exclusive); an annotator who
marked nothing has an empty list:
  {{"id": "s1", "summary": "a 24-year-old man died in sheffield.", "spans": [[[2, 4]], []]}}
  {{"id": "s2", "summary": "all clear here", "spans": [[], []]}}

Rules (--rule):
  inside   {RULE_DESCRIPTIONS["inside"]}
  overlap  {RULE_DESCRIPTIONS["overlap"]}

Output: one JSON line per summary {{id, rule, score, words, per_annotator, hallucinated}};
--table prints id, words, score and each annotator's share.
"""


def register(subparsers, parent: argparse.ArgumentParser) -> None:
    """Add the ``faithfulness`` sub-command.

    Args:
        subparsers: the top-level parser's sub-parsers.
        parent: the shared parent parser (``--table``).
    """
    parser = subparsers.add_parser(
        "faithfulness",
        parents=[parent],
        help="word-level faithfulness from hallucinated spans (XSum release's rule or overlap)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--summaries",
        required=True,
        type=Path,
        metavar="SUMMARIES.jsonl",
        help="one summary and its annotators' spans per line",
    )
    parser.add_argument(
        "--rule",
        choices=RULES,
        default=DEFAULT_RULE,
        help=f"when a span marks a word (default {DEFAULT_RULE}, the release's rule)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> Output:
    """Score every summary of ``--summaries`` under ``--rule``.

    Args:
        args: the parsed arguments.

    Returns:
        One JSON line per summary, and the table form.

    Raises:
        CliError: an unreadable file, a bad line or spans the score refuses (file and line).
    """
    records, rows = [], []
    for line, record in read_jsonl(args.summaries):
        where = f"{args.summaries}:{line}"
        summary = read_text(record, "summary", where)
        spans = required(record, "spans", where)
        if not isinstance(spans, list):
            raise CliError(f"{where}: 'spans' must be a list with one list per annotator")
        try:
            result = faithfulness_detail(summary, spans, args.rule)
        except FaithfulnessError as error:
            raise CliError(f"{where}: {error}") from None
        name = str(record.get("id", line))
        records.append(
            {
                "id": name,
                "rule": args.rule,
                "score": result.score,
                "words": result.words,
                "per_annotator": list(result.per_annotator),
                "hallucinated": list(result.hallucinated),
            }
        )
        rows.append(
            [name, str(result.words), fmt(result.score)]
            + [fmt(share) for share in result.per_annotator]
        )
    width = max((len(row) for row in rows), default=3)
    header = ["id", "words", "score"] + [f"annotator {n}" for n in range(1, width - 2)]
    table = [header, *(row + [""] * (width - len(row)) for row in rows)]
    return Output(records=records, table=table, lines=True)
