"""The systems app's manage.py commands."""
