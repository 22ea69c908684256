"""``allpairs``: ROUGE-1/2/L of every facet against every sentence of its document."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..rouge import MEASURES, ROUGE_TYPES, allpairs_dataset
from .base import CliError, Output, fmt, read_jsonl, read_text, required

DESCRIPTION = """\
Score every facet (reference sentence, the target) against every sentence of its document (the
prediction) with ROUGE-1, ROUGE-2 and ROUGE-L, identical to rouge-score's
RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True), or use_stemmer=False with
--no-stemmer. Each sentence is tokenized once and the pairs are scored as matrices. --measure
picks precision (relative to the sentence), recall (relative to the facet) or F-measure.
"""

EPILOG = """\
input format:
  DOCS.jsonl    one JSON object per line, {"id": str, "sentences": [str], "facets": [str]};
                blank lines are skipped, other keys are ignored, ids must be unique.
                Example line:
                  {"id": "d1", "sentences": ["A cat sat.", "It rained."], "facets": ["Cats sat."]}

output:
  One JSON line per document, in input order, holding one matrix per ROUGE type: a list per
  facet of the value for each sentence. For the example line, with --measure recall:
    {"id": "d1", "rouge1": [[1.0, 0.0]], "rouge2": [[1.0, 0.0]], "rougeL": [[1.0, 0.0]]}
  With --table: one row per (document, facet, sentence).

errors (exit status 2, naming the file and the line):
  a missing file, invalid JSON, a line that is not an object, a missing key, an id that is
  not a string or repeats an earlier line's, "sentences" or "facets" not a list of strings.

example:
  python -m scoring.metrics allpairs --docs docs.jsonl --measure recall
"""


def register(subparsers, parent: argparse.ArgumentParser) -> None:
    """Add the ``allpairs`` sub-command."""
    parser = subparsers.add_parser(
        "allpairs",
        parents=[parent],
        help="ROUGE-1/2/L of every facet against every document sentence (JSON Lines)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--docs",
        type=Path,
        required=True,
        metavar="DOCS.jsonl",
        help='one {"id": str, "sentences": [str], "facets": [str]} per line',
    )
    parser.add_argument(
        "--measure",
        choices=MEASURES,
        default="fmeasure",
        help="the value to print for each pair (default %(default)s)",
    )
    parser.add_argument(
        "--no-stemmer",
        dest="use_stemmer",
        action="store_false",
        help="no Porter stemming (rouge-score's default; Loupe stems)",
    )
    parser.set_defaults(run=run)


def _strings(record: dict, key: str, where: str) -> list[str]:
    value = required(record, key, where)
    if not isinstance(value, list):
        raise CliError(f"{where}: {key!r} must be a list of strings, got {type(value).__name__}")
    for index, text in enumerate(value):
        if not isinstance(text, str):
            raise CliError(f"{where}: {key}[{index}] must be a string, got {type(text).__name__}")
    return value


def read_documents(path: Path) -> list[tuple[str, list[str], list[str]]]:
    """Read and check DOCS.jsonl.

    Args:
        path: the file.

    Returns:
        ``(id, facets, sentences)`` per document, in file order.

    Raises:
        CliError: bad input, naming the file and the line.
    """
    documents = []
    seen: dict[str, int] = {}
    for number, record in read_jsonl(path):
        where = f"{path}:{number}"
        doc_id = read_text(record, "id", where)
        if doc_id in seen:
            raise CliError(f"{where}: id {doc_id!r} repeats line {seen[doc_id]}")
        seen[doc_id] = number
        sentences = _strings(record, "sentences", where)
        facets = _strings(record, "facets", where)
        documents.append((doc_id, facets, sentences))
    return documents


def run(args: argparse.Namespace) -> Output:
    """Score every document of ``args.docs``.

    Args:
        args: the parsed arguments (``docs``, ``measure``, ``use_stemmer``).

    Returns:
        One record per document (JSON Lines) and a table with one row per pair.

    Raises:
        CliError: bad input, naming the file and the line.
    """
    measure = args.measure
    records = []
    table = [["id", "facet", "sentence", *(f"{name} {measure}" for name in ROUGE_TYPES)]]
    documents = read_documents(args.docs)
    for doc_id, result in allpairs_dataset(documents, use_stemmer=args.use_stemmer):
        matrices = [getattr(result, name).measure(measure) for name in ROUGE_TYPES]
        records.append(
            {
                "id": doc_id,
                **{name: m.tolist() for name, m in zip(ROUGE_TYPES, matrices, strict=True)},
            }
        )
        n_facets, n_sentences = result.shape
        for facet in range(n_facets):
            for sentence in range(n_sentences):
                table.append(
                    [doc_id, str(facet), str(sentence)]
                    + [fmt(float(m[facet, sentence])) for m in matrices]
                )
    return Output(records=records, table=table, lines=True)
