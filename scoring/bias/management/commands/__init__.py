"""``manage.py bias``."""
