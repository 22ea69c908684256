"""Versioned, immutable dataset releases: export (a Celery job), list, download."""
