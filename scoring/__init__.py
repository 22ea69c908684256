"""Scoring side of Loupe: systems and their outputs, and the pure metrics core."""
