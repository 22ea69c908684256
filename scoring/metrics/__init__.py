"""Pure-Python metrics core (no Django): FAMs, FAR/SAR, PolyTope, agreement, ROUGE, statistics."""
