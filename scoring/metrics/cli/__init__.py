"""Command-line interface of the metrics core: JSON to stdout, ``--table`` for people."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from importlib import import_module

from .base import CliError, Output

# Each module registers one sub-command with ``register(subparsers, parent)``.
COMMAND_MODULES = ("far", "rouge", "allpairs", "polytope", "faithfulness")


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every sub-command registered.

    Returns:
        An ``argparse.ArgumentParser``.
    """
    parser = argparse.ArgumentParser(
        prog="python -m scoring.metrics",
        description="Loupe's metrics core without the server: FAR/SAR, ROUGE, PolyTope, "
        "faithfulness. "
        "Each command writes JSON to stdout; --table prints a readable table instead. "
        "Run a command with --help to see its input formats.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--table", action="store_true", help="print a readable table, not JSON")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        import_module(f"{__name__}.{name}").register(subparsers, parent)
    return parser


def emit(output: Output, *, table: bool, stream=None) -> None:
    """Write a command's output as JSON (one object, or one line per record) or a table.

    Args:
        output: what the command produced.
        table: print ``output.table`` as aligned columns instead of JSON.
        stream: where to write (stdout by default).
    """
    stream = stream or sys.stdout
    if table:
        rows = output.table or []
        widths = (
            [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))] if rows else []
        )
        for row in rows:
            cells = (str(cell).ljust(width) for cell, width in zip(row, widths, strict=True))
            stream.write("  ".join(cells).rstrip() + "\n")
        return
    if output.lines:
        for record in output.records:
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")
    else:
        stream.write(json.dumps(output.records[0], ensure_ascii=False, indent=2) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI.

    Args:
        argv: arguments without the program name (``sys.argv[1:]`` by default).

    Returns:
        The exit status: 0 on success, 2 for bad input (the message goes to stderr).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        output = args.run(args)
    except CliError as error:
        sys.stderr.write(f"error: {error}\n")
        return 2
    emit(output, table=args.table)
    return 0
