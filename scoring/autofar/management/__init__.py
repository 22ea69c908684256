"""Management commands of the autofar app."""
