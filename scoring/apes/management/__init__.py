"""Management commands of the apes app."""
