"""``rouge``: ROUGE of (target, prediction) pairs, identical to rouge-score with its options."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..rouge import MEASURES, ROUGE_ALL_TYPES, RougeConfig, RougeConfigError, score_pairs
from ..rouge.config import DEFAULT_ROUGE_TYPES
from .base import CliError, Output, fmt, read_jsonl, read_text

DESCRIPTION = f"""\
Score each (target, prediction) pair with ROUGE: precision, recall and F-measure of each type,
identical to rouge-score's RougeScorer(rouge_types, use_stemmer=..., split_summaries=...)
.score(target, prediction). Precision is relative to the prediction, recall to the target. A
text without an ASCII letter or digit has no token and scores 0.0.

Types: {", ".join(ROUGE_ALL_TYPES)}. rougeN counts n-grams, rougeL the longest common
subsequence, rougeLsum the summary-level LCS over sentences: a text's lines (put each sentence
on its own line), or with --split-summaries the sentences NLTK's Punkt finds, as rouge-score's
split_summaries=True (its English model ships with Loupe; nothing is downloaded).
Defaults are Loupe's: {" ".join(DEFAULT_ROUGE_TYPES)} with Porter stemming; rouge-score's own
default is --no-stemmer.
"""

EPILOG = """\
input format:
  PAIRS.jsonl   one JSON object per line, {"target": str, "prediction": str}; blank lines are
                skipped, other keys are ignored. Example line:
                  {"target": "The cat sat on the mat.", "prediction": "A cat was sitting on a mat."}
                For rougeLsum, a line break (\\n in JSON) between sentences:
                  {"target": "The cat sat on the mat.\\nIt purred.", "prediction": "A cat sat."}

output:
  One JSON line per pair, in input order, one key per type in the order given above:
    {"rouge1": {"precision": P, "recall": R, "fmeasure": F}, ..., "rougeLsum": {...}}
  With --table: one row per pair, headed by its input line number.

errors (exit status 2, naming the file and the line or the option):
  a missing file, invalid JSON, a line that is not an object, a missing "target" or
  "prediction", or one that is not a string; an unknown or repeated ROUGE type.

examples:
  python -m scoring.metrics rouge --pairs pairs.jsonl --table
  python -m scoring.metrics rouge --pairs pairs.jsonl --rouge-types rouge1,rougeLsum --no-stemmer
"""


def register(subparsers, parent: argparse.ArgumentParser) -> None:
    """Add the ``rouge`` sub-command."""
    parser = subparsers.add_parser(
        "rouge",
        parents=[parent],
        help="ROUGE of target/prediction pairs (JSON Lines), any of rouge-score's options",
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
    add_rouge_options(parser)
    parser.set_defaults(run=run)


def add_rouge_options(parser: argparse.ArgumentParser) -> None:
    """The options of a :class:`~scoring.metrics.rouge.RougeConfig`: ``--rouge-types``,
    ``--use-stemmer``/``--no-stemmer``, ``--split-summaries``/``--no-split-summaries``.

    Args:
        parser: the command's parser; :func:`rouge_config` reads what it parsed.
    """
    parser.add_argument(
        "--rouge-types",
        nargs="+",
        metavar="TYPE",
        help="ROUGE types, separated by spaces or commas (default: "
        f"{','.join(DEFAULT_ROUGE_TYPES)})",
    )
    _switch(
        parser,
        "use_stemmer",
        ("--use-stemmer", "Porter-stem words longer than 3 characters (the default)"),
        ("--no-stemmer", "no stemming (rouge-score's default)"),
    )
    _switch(
        parser,
        "split_summaries",
        ("--split-summaries", "rougeLsum: find sentences with NLTK's Punkt, not the text's lines"),
        ("--no-split-summaries", "rougeLsum: sentences are the text's lines (the default)"),
    )


def _switch(parser, dest: str, on: tuple[str, str], off: tuple[str, str]) -> None:
    """Two options that set ``dest`` to True or False (None when neither is given)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(on[0], dest=dest, action="store_true", default=None, help=on[1])
    group.add_argument(off[0], dest=dest, action="store_false", help=off[1])


def rouge_config(args: argparse.Namespace) -> RougeConfig:
    """The configuration the options of :func:`add_rouge_options` ask for.

    Args:
        args: the parsed arguments.

    Returns:
        The :class:`~scoring.metrics.rouge.RougeConfig` (Loupe's defaults where not given).

    Raises:
        CliError: an unknown, repeated or missing ROUGE type (naming the option).
    """
    options = {}
    if args.rouge_types is not None:
        options["rouge_types"] = [t for item in args.rouge_types for t in item.split(",") if t]
    if args.use_stemmer is not None:
        options["use_stemmer"] = args.use_stemmer
    if args.split_summaries is not None:
        options["split_summaries"] = args.split_summaries
    try:
        return RougeConfig.from_dict(options)
    except RougeConfigError as error:
        option = f"--{error.field.replace('_', '-')}: " if error.field else ""
        raise CliError(f"{option}{error}") from None


def run(args: argparse.Namespace) -> Output:
    """Score every pair of ``args.pairs`` with the configuration asked for.

    Args:
        args: the parsed arguments (``pairs`` and the ROUGE options).

    Returns:
        One record per pair (JSON Lines) and a table.

    Raises:
        CliError: bad input, naming the file and the line, or a bad option.
    """
    config = rouge_config(args)
    pairs = [
        (number, read_text(record, "target", f"{args.pairs}:{number}"))
        + (read_text(record, "prediction", f"{args.pairs}:{number}"),)
        for number, record in read_jsonl(args.pairs)
    ]
    scores = score_pairs([t for _, t, _ in pairs], [p for _, _, p in pairs], config).pair_list()
    types = config.rouge_types
    records = []
    table = [["line"] + [f"{name} {measure[0].upper()}" for name in types for measure in MEASURES]]
    for (number, _, _), pair in zip(pairs, scores, strict=True):
        record = pair.as_dict()
        records.append(record)
        table.append(
            [str(number)] + [fmt(record[name][measure]) for name in types for measure in MEASURES]
        )
    return Output(records=records, table=table, lines=True)
