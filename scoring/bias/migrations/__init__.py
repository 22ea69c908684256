"""Migrations of the bias app."""
