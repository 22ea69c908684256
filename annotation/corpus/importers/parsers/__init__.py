"""Parsers: one per input format, each producing an ImportBundle of plain records."""
