"""Annotation side of Loupe: corpus (datasets, documents, references), accounts and FAMs."""
