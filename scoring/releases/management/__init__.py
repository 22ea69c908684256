"""Management commands of the releases app."""
