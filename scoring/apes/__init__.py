"""APES in the platform: reference cloze questions answered from summaries, stored as scores."""
