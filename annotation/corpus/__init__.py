"""Corpus app: datasets, documents with ordered sentences, and reference summaries."""
