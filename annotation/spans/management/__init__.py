"""Management commands of the spans app."""
