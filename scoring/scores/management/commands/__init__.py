"""Management commands of the scores app."""
