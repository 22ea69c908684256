"""Admin pages of the leaderboards app: none; snapshots are a cache."""
