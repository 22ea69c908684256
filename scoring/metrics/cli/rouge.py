"""``rouge``: ROUGE-1/2/L of (target, prediction) pairs, identical to rouge-score with stemming."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..rouge import MEASURES, ROUGE_TYPES, score_pair
from .base import Output, fmt, read_jsonl, read_text

DESCRIPTION = """\
Score each (target, prediction) pair with ROUGE-1, ROUGE-2 and ROUGE-L: precision, recall and
F-measure, identical to rouge-score's RougeScorer(["rouge1", "rouge2", "rougeL"],
use_stemmer=True).score(target, prediction). Precision is relative to the prediction, recall
to the target. A text without an ASCII letter or digit has no token and scores 0.0.
"""

EPILOG = """\
input format:
  PAIRS.jsonl   one JSON object per line, {"target": str, "prediction": str}; blank lines are
                skipped, other keys are ignored. Example line:
                  {"target": "The cat sat on the mat.", "prediction": "A cat was sitting on a mat."}

output:
  One JSON line per pair, in input order:
    {"rouge1": {"precision": P, "recall": R, "fmeasure": F}, "rouge2": {...}, "rougeL": {...}}
  With --table: one row per pair, headed by its input line number.

errors (exit status 2, naming the file and the line):
  a missing file, invalid JSON, a line that is not an object, a missing "target" or
  "prediction", or one that is not a string.

example:
  python -m scoring.metrics rouge --pairs pairs.jsonl --table
"""


def register(subparsers, parent: argparse.ArgumentParser) -> None:
    """Add the ``rouge`` sub-command."""
    parser = subparsers.add_parser(
        "rouge",
        parents=[parent],
        help="ROUGE-1/2/L of target/prediction pairs (JSON Lines)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--pairs",
        type=Path,
        required=True,
        metavar="PAIRS.jsonl",
        help='one {"target": str, "prediction": str} per line',
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> Output:
    """Score every pair of ``args.pairs``.

    Args:
        args: the parsed arguments (``pairs``).

    Returns:
        One record per pair (JSON Lines) and a table.

    Raises:
        CliError: bad input, naming the file and the line.
    """
    pairs = [
        (number, read_text(record, "target", f"{args.pairs}:{number}"))
        + (read_text(record, "prediction", f"{args.pairs}:{number}"),)
        for number, record in read_jsonl(args.pairs)
    ]
    records = []
    table = [
        ["line"] + [f"{name} {measure[0].upper()}" for name in ROUGE_TYPES for measure in MEASURES]
    ]
    for number, target, prediction in pairs:
        scores = score_pair(target, prediction).as_dict()
        records.append(scores)
        table.append(
            [str(number)]
            + [fmt(scores[name][measure]) for name in ROUGE_TYPES for measure in MEASURES]
        )
    return Output(records=records, table=table, lines=True)
