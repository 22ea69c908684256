"""The official PolyTope workbooks in and out: reader -> parser -> matcher, and the writer.

A pipeline in the style of the import kernel, without Django: ``reader`` takes the Error Log's
cell values (data only, nothing run), ``parser`` groups rows into segments and keeps the errors
Loupe can store (reporting the rest), ``matcher`` places segments on a system's outputs and
errors on spans. ``writer`` writes annotations back in the official layout (or as JSONL) and
``jsonl`` reads that JSONL. The database side is ``annotation.spans.services_workbook``.
"""

from .cells import escape_text, unescape_text
from .jsonl import SpanLine, parse_spans_jsonl
from .matcher import Candidate, PlacedSegment, Placement, find_span, place_segments
from .parser import ParsedWorkbook, SegmentGroup, parse_error_log
from .reader import ErrorLogSheet, read_error_log
from .writer import JSONL_TYPE, XLSX_TYPE, ExportSegment, jsonl_lines, workbook_bytes

__all__ = [
    "JSONL_TYPE",
    "XLSX_TYPE",
    "Candidate",
    "ErrorLogSheet",
    "ExportSegment",
    "ParsedWorkbook",
    "PlacedSegment",
    "Placement",
    "SegmentGroup",
    "SpanLine",
    "escape_text",
    "find_span",
    "jsonl_lines",
    "parse_error_log",
    "parse_spans_jsonl",
    "place_segments",
    "read_error_log",
    "unescape_text",
    "workbook_bytes",
]
