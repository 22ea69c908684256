"""Management commands of the systems app."""
