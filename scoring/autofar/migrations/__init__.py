"""Migrations of the autofar app."""
