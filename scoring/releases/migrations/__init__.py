"""Migrations of the releases app."""
