"""Parsers of system outputs: JSONL files, and zips or directories of ``<doc_id>.txt`` files."""
