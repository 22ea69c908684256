"""Management commands of the leaderboards app."""
