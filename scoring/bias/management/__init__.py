"""Management commands of the bias app."""
