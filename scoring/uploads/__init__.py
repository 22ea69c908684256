"""Uploads app: researchers register systems and upload their outputs (web, REST API, CLI)."""
