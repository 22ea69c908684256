"""Scores: scoring jobs run by Celery workers and the per-document scores they store."""
