"""Management commands of the corpus app."""
