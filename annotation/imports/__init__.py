"""The import kernel: records, readers, field parsing, validation, summaries and writer hooks.

Every importer builds on it: the dataset formats in ``annotation.corpus.importers``, the system
outputs in ``scoring.uploads.parsers`` and the human judgments in ``scoring.judgments``. It knows
no format and writes no row itself; see ``hooks`` for how other apps write their parts.
"""
