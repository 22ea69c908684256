"""Migrations of the apes app."""
